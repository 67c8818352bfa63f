#!/usr/bin/env bash
# Runs contrib/ansible/ssdfade.yml with `ansible-playbook -c local` against two zram devices it
# makes (two inventory hosts on this machine: host1 soaks one zram device, host2 another plus a
# simulated drive), with a short vertex2 experiment, then shows the gathered tree. Needs root and
# ansible (apt-get install ansible). Everything it made is removed when it ends, pass or fail:
# the zram devices (reset and hot-removed) and its temporary folder (KEEP=1 keeps the folder).
#
#   scripts/ansible-zram.sh            # ssdfade from target/release (cargo build --release)
#   SSDFADE=/usr/bin/ssdfade scripts/ansible-zram.sh
#   ONE=1 scripts/ansible-zram.sh      # a fleet of one host and one experiment (nothing to compare)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
    echo "ansible-zram.sh: needs root (it makes zram devices): run it with sudo" >&2
    exit 2
fi
command -v ansible-playbook > /dev/null || {
    echo "ansible-zram.sh: ansible-playbook not found: apt-get install ansible" >&2
    exit 2
}
bin=$(realpath "${SSDFADE:-target/release/ssdfade}")
[ -x "$bin" ] || { echo "ansible-zram.sh: no ssdfade at $bin: cargo build --release" >&2; exit 2; }

. scripts/lib/ram-devices.sh
work=$(mktemp -d /tmp/ssdfade-ansible.XXXXXX)
if [ "${KEEP:-0}" = 1 ]; then echo "keeping $work"; else remove_on_exit "$work"; fi
new_zram 256M
a=$RAM_DEV
new_zram 256M
b=$RAM_DEV
echo "zram devices: $a $b"

cat > "$work/inventory.yml" <<YAML
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: /usr/bin/python3
    ssdfade_become: false
    ssdfade_bin: $bin
    ssdfade_controller_bin: $bin
    ssdfade_fleet: $work/fleet
    ssdfade_wait_hours: 0.25
    ssdfade_options: [--measure-duration, 3s, --soak-duration, 20s, --qd, "16"]
  hosts:
    host1:
      ssdfade_dir: $work/host1
      ssdfade_targets: [$a]
      ssdfade_destroy_data: [$a]
YAML
if [ "${ONE:-0}" != 1 ]; then
    cat >> "$work/inventory.yml" <<YAML
    host2:
      ssdfade_dir: $work/host2
      ssdfade_targets: [$b, "sim:vertex2-60g,scale=64"]
      ssdfade_destroy_data: [$b]
YAML
fi

ANSIBLE_NOCOLOR=1 ansible-playbook -i "$work/inventory.yml" contrib/ansible/ssdfade.yml
echo
echo "the gathered tree:"
(cd "$work/fleet" && find . -maxdepth 3 -name '*.json' | sort)
