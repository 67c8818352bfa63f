#!/usr/bin/env bash
# The whole machine's CPU per 4 KiB write on each kind of RAM block device, alternating:
# zram (compresses every page) and a loop device with direct I/O over a file on tmpfs
# (/dev/shm; Linux 6.6 and later take O_DIRECT on tmpfs). A loop device's copy runs in kernel
# workers that are not the measuring process's, so the figure is the process's CPU (perf stat
# task-clock: its threads and io_uring workers) plus the CPU every kernel worker thread of the
# machine (kworker*, loop*) used over the run, ÷ the I/Os. Other work's kernel workers count
# too, so read the min over rounds beside the load; the machine-wide busy CPUs are printed
# as well.
#
#   scripts/ram-device-cpu.sh        # as root; makes its devices and removes them
#
# Environment: ROUNDS (3), SECONDS_EACH (5), ENGINE (uring), QD (32), SIZE (1G),
# SSDFADE (binary; default target/release/ssdfade).
set -euo pipefail
ROUNDS=${ROUNDS:-3}
SECONDS_EACH=${SECONDS_EACH:-5}
ENGINE=${ENGINE:-uring}
QD=${QD:-32}
SIZE=${SIZE:-1G}
REPO=$(cd "$(dirname "$0")/.." && pwd)
SSDFADE=${SSDFADE:-$REPO/target/release/ssdfade}
die() { echo "ram-device-cpu: $*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "run as root (it makes zram and loop devices)"
[ -x "$SSDFADE" ] || die "no binary at $SSDFADE: cargo build --release, or set SSDFADE"
command -v jq >/dev/null || die "jq is missing: apt-get install jq"
command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"

. "$REPO/scripts/lib/ram-devices.sh"
WORK=$(mktemp -d /tmp/ram-device-cpu.XXXXXX)
remove_on_exit "$WORK"
new_zram "$SIZE"
ZRAM_DEV=$RAM_DEV
new_loop "$SIZE"
LOOP=$RAM_DEV
for dev in "$ZRAM_DEV" "$LOOP"; do
  "$SSDFADE" measure "$dev" --destroy-data "$dev" --random-pct 0 --bytes "$SIZE" --qd 8 \
    --json --out "$WORK/fill-${dev##*/}" >/dev/null 2>&1
done

busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
# Clock ticks (user + system) of every kernel worker thread (kworker*, loop*) now.
kworkers() {
  local t s comm rest f sum=0
  for t in /proc/[0-9]*/task/[0-9]*; do
    s=$(cat "$t/stat" 2>/dev/null) || continue
    comm=${s#*(}
    comm=${comm%%)*}
    case $comm in kworker*|loop*) ;; *) continue ;; esac
    rest=${s##*) }
    read -r -a f <<< "$rest"
    sum=$((sum + f[11] + f[12]))
  done
  echo "$sum"
}
hz=$(getconf CLK_TCK)
echo "Machine CPU per 4 KiB random write, --engine $ENGINE --qd $QD, $SECONDS_EACH s, $ROUNDS rounds"
printf '  %5s %-8s %9s %11s %11s %14s %10s %6s\n' round device IOPS "process ms" "kworker ms" \
  "CPU µs/IO" "CPUs busy" load
for round in $(seq "$ROUNDS"); do
  for dev in "$ZRAM_DEV" "$LOOP"; do
    k0=$(kworkers)
    b0=$(busy)
    t0=$(date +%s.%N)
    iops=$(perf stat -x, -e task-clock -o "$WORK/perf" -- "$SSDFADE" measure "$dev" \
      --destroy-data "$dev" --engine "$ENGINE" --qd "$QD" --bs 4k --duration "${SECONDS_EACH}s" \
      --interval 1s --json --out "$WORK/r$round-${dev##*/}" 2>/dev/null | jq -r '.iops')
    t1=$(date +%s.%N)
    b1=$(busy)
    k1=$(kworkers)
    proc_ms=$(awk -F, '$3=="task-clock" {print $1}' "$WORK/perf")
    kw_ms=$(echo "($k1 - $k0) * 1000 / $hz" | bc -l)
    secs=$(echo "$t1 - $t0" | bc -l)
    ios=$(echo "$iops * $SECONDS_EACH" | bc -l)
    printf '  %5d %-8s %9.0f %11.0f %11.0f %14.2f %10.2f %6s\n' "$round" "${dev##*/}" "$iops" \
      "$proc_ms" "$kw_ms" "$(echo "($proc_ms + $kw_ms) * 1000 / $ios" | bc -l)" \
      "$(echo "($b1 - $b0) / $hz / $secs" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
  done
done
