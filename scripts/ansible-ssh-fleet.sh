#!/usr/bin/env bash
# Runs contrib/ansible/ssdfade.yml over real SSH against four inventory hosts on this machine and
# ends with the fleet report built on the controller (not part of CI: it starts sshd daemons).
#
# Each host is an sshd of its own (its own host key, config and log) listening on its own
# loopback address (127.0.50.N, port 2222) in UTS and PID namespaces of its own (`unshare --uts
# --pid`), so the runs record its own host name (ssd-h1…) and whatever the play starts there
# ends with its sshd: a key made for this run is the only way in.
#   ssd-h1  two simulated drives (serials H1-A, H1-B): completes
#   ssd-h2  a zram device it makes plus a simulated drive: its ssdfade on the zram device is
#           killed (SIGKILL) mid-run, so the host fails, after sending both runs (the killed
#           one as far as it went), and the play names it as failed
#   ssd-h3  a simulated drive (H3-A) on a host whose clock is an hour ahead: its sshd sets
#           LD_PRELOAD=libfaketime with FAKETIME=+1h for every session (SetEnv), so everything
#           the play runs there, ssdfade included, reads the wall clock an hour fast (the
#           monotonic clock is left alone)
#   ssd-h4  down: nothing listens on its address
# Everything it made is removed when it ends, pass or fail: the sshd processes (by their pid),
# the zram device, /run/sshd if it made it, and its temporary folder (KEEP=1 keeps the folder).
#
#   scripts/ansible-ssh-fleet.sh            # ssdfade from target/release (cargo build --release)
#   SSDFADE=/usr/bin/ssdfade scripts/ansible-ssh-fleet.sh
#
# Needs root, sshd (apt-get install openssh-server), ansible and libfaketime (apt-get install
# ansible faketime); without them it says which is missing and exits 0 (skipped).
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "ansible-ssh-fleet.sh: skipped: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "needs root (it makes a zram device and starts sshd)"
[ -x /usr/sbin/sshd ] || skip "no sshd: apt-get install openssh-server"
command -v ansible-playbook > /dev/null || skip "no ansible-playbook: apt-get install ansible"
command -v ssh-keygen > /dev/null || skip "no ssh-keygen: apt-get install openssh-client"
faketime_lib=$(ls /usr/lib/*/faketime/libfaketime.so.1 2> /dev/null | head -1 || true)
[ -n "$faketime_lib" ] || skip "no libfaketime: apt-get install faketime"
bin=$(realpath "${SSDFADE:-target/release/ssdfade}")
[ -x "$bin" ] || { echo "ansible-ssh-fleet.sh: no ssdfade at $bin: cargo build --release" >&2; exit 2; }

. scripts/lib/ram-devices.sh
work=$(mktemp -d /tmp/ssdfade-ssh-fleet.XXXXXX)
chmod 755 "$work"
if [ "${KEEP:-0}" = 1 ]; then echo "keeping $work"; else remove_on_exit "$work"; fi

SSHD_PIDS=() # the unshare processes, one per host
made_run_sshd=0
stop_hosts() {
    local pid
    # unshare itself ignores TERM while it waits: its child, the host's sshd, is stopped.
    for pid in "${SSHD_PIDS[@]}"; do kill $(pgrep -P "$pid") 2> /dev/null || true; done
    for pid in "${SSHD_PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    done
    [ "$made_run_sshd" = 1 ] && rmdir /run/sshd 2> /dev/null || true
    ram_devices_cleanup
}
trap stop_hosts EXIT

[ -d /run/sshd ] || { mkdir -p /run/sshd; chmod 755 /run/sshd; made_run_sshd=1; }
ssh-keygen -q -t ed25519 -N '' -C ssdfade-ssh-fleet -f "$work/client_key"
cp "$work/client_key.pub" "$work/authorized_keys"

# start_host N [SetEnv line]: sshd for ssd-hN on 127.0.50.N:2222.
start_host() {
    local n=$1 h="$work/sshd-h$1"
    mkdir -p "$h"
    ssh-keygen -q -t ed25519 -N '' -f "$h/host_key"
    cat > "$h/sshd_config" <<CONF
ListenAddress 127.0.50.$n:2222
HostKey $h/host_key
PidFile $h/sshd.pid
AuthorizedKeysFile $work/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
${2:-}
CONF
    # A PID namespace too: when its init (sshd) stops, everything the play left running on the
    # host is killed with it, and unshare ends.
    unshare --uts --pid --fork --kill-child \
        sh -c "hostname ssd-h$n && exec /usr/sbin/sshd -D -e -f '$h/sshd_config'" \
        > "$h/sshd.log" 2>&1 &
    SSHD_PIDS+=("$!")
}
start_host 1
start_host 2
start_host 3 "SetEnv LD_PRELOAD=$faketime_lib FAKETIME=+1h FAKETIME_DONT_FAKE_MONOTONIC=1"
for n in 1 2 3; do
    for _ in $(seq 50); do
        (exec 3<> "/dev/tcp/127.0.50.$n/2222") 2> /dev/null && break
        sleep 0.1
    done
done
echo "sshd pids: ${SSHD_PIDS[*]} (ssd-h1..h3 on 127.0.50.1-3:2222; ssd-h4 at 127.0.50.4 is down)"

new_zram 256M
zram=$RAM_DEV
echo "zram device of ssd-h2: $zram"

cat > "$work/inventory.yml" <<YAML
all:
  vars:
    ansible_user: root
    ansible_port: 2222
    ansible_ssh_private_key_file: $work/client_key
    ansible_ssh_common_args: -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=5
    ansible_python_interpreter: /usr/bin/python3
    ssdfade_become: false
    ssdfade_use_systemd: false
    ssdfade_bin: $bin
    ssdfade_controller_bin: $bin
    ssdfade_fleet: $work/fleet
    ssdfade_wait_hours: 0.1
    ssdfade_options: [--measure-duration, 3s, --soak-duration, 20s, --qd, "16"]
  hosts:
    ssd-h1:
      ansible_host: 127.0.50.1
      ssdfade_dir: $work/h1
      ssdfade_targets: ["sim:dc-ssd-400g,scale=64,serial=H1-A", "sim:dc-ssd-400g,scale=64,serial=H1-B"]
    ssd-h2:
      ansible_host: 127.0.50.2
      ssdfade_dir: $work/h2
      ssdfade_targets: [$zram, "sim:dc-ssd-400g,scale=64,serial=H2-A"]
      ssdfade_destroy_data: [$zram]
      ssdfade_options: [--measure-duration, 3s, --soak-duration, 60s, --qd, "16"]
    ssd-h3:
      ansible_host: 127.0.50.3
      ssdfade_dir: $work/h3
      ssdfade_targets: ["sim:dc-ssd-400g,scale=64,serial=H3-A"]
    ssd-h4:
      ansible_host: 127.0.50.4
      ssdfade_dir: $work/h4
      ssdfade_targets: ["sim:dc-ssd-400g,scale=64,serial=H4-A"]
YAML

# ssd-h2 fails mid-run: its ssdfade on the zram device is killed 8 s after it starts.
(
    for _ in $(seq 600); do
        pid=
        for p in $(pgrep -f -- "--out $work/h2/${zram##*/}" || true); do
            # ssdfade itself, not the shell or Ansible's wrapper whose command lines name it too.
            [ "$(readlink "/proc/$p/exe" 2> /dev/null)" = "$bin" ] && pid=$p
        done
        if [ -n "$pid" ]; then
            sleep 8
            kill -KILL "$pid" 2> /dev/null && echo ">>> killed ssd-h2's ssdfade (pid $pid) mid-run"
            exit 0
        fi
        sleep 0.2
    done
) &
killer=$!

status=0
# No SSH connection outlives the play (Ansible's default keeps them open 60 s).
ANSIBLE_NOCOLOR=1 ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_SSH_ARGS="-o ControlMaster=no" \
    ansible-playbook -i "$work/inventory.yml" contrib/ansible/ssdfade.yml || status=$?
kill "$killer" 2> /dev/null || true
wait "$killer" 2> /dev/null || true
echo
echo "ansible-playbook exit status: $status (non-zero: a host was unreachable or failed)"
echo "ssd-h3's recorded start (an hour ahead):"
grep -h '"started_utc"' "$work"/fleet/ssd-h3/*/experiment.json 2> /dev/null | head -1 || true
date -u +"controller's clock now:                  %Y-%m-%dT%H:%M:%SZ"
[ -f "$work/fleet/report/fleet.md" ] || { echo "ansible-ssh-fleet.sh: no fleet report was built" >&2; exit 1; }
echo "fleet report built: $work/fleet/report/fleet.md (removed on exit unless KEEP=1)"
