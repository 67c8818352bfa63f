#!/usr/bin/env bash
# The default engine at QD 1 against the best engine named by hand, on a zram and a loop
# device (RAM devices whose I/O io_uring hands to its kernel workers), in alternating rounds:
# each round runs the default, then --engine threads, then --engine uring, 4 KiB random
# writes for SECONDS_EACH seconds each, and prints their mean latencies and the default's
# ratio to the faster named engine. The median ratio over rounds is the figure.
#
#   scripts/default-engine-qd1.sh     # as root; makes its devices and removes them
#
# Environment: ROUNDS (5), SECONDS_EACH (3), SSDFADE (default target/release/ssdfade).
set -euo pipefail
ROUNDS=${ROUNDS:-5}
SECONDS_EACH=${SECONDS_EACH:-3}
REPO=$(cd "$(dirname "$0")/.." && pwd)
SSDFADE=${SSDFADE:-$REPO/target/release/ssdfade}
die() { echo "default-engine-qd1: $*" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || die "run as root (it makes zram and loop devices)"
[ -x "$SSDFADE" ] || die "no binary at $SSDFADE: cargo build --release, or set SSDFADE"
command -v jq >/dev/null || die "jq is missing: apt-get install jq"

. "$REPO/scripts/lib/ram-devices.sh"
WORK=$(mktemp -d /tmp/default-engine-qd1.XXXXXX)
remove_on_exit "$WORK"

# Mean write latency in µs and the engine that ran, of one run.
mean_us() {
  local dev=$1 out=$2; shift 2
  "$SSDFADE" measure "$dev" --destroy-data "$dev" --qd 1 --duration "${SECONDS_EACH}s" \
    --json --out "$WORK/$out" "$@" 2>/dev/null | jq -r '"\(.lat_us.mean) \(.engine)"'
}

for kind in zram loop; do
  if [ "$kind" = zram ]; then new_zram 1G; else new_loop 1G; fi
  dev=$RAM_DEV
  ratios=()
  printf '%s (%s): round  default (engine)   threads     uring   default ÷ best\n' "$kind" "$dev"
  for r in $(seq "$ROUNDS"); do
    read -r d engine < <(mean_us "$dev" "$kind-d-$r")
    read -r t _ < <(mean_us "$dev" "$kind-t-$r" --engine threads)
    read -r u _ < <(mean_us "$dev" "$kind-u-$r" --engine uring)
    ratio=$(echo "$d $t $u" | awk '{b=($2<$3)?$2:$3; printf "%.2f", $1/b}')
    ratios+=("$ratio")
    printf '  %5d  %7.1f µs (%-7s) %7.1f µs %7.1f µs   %s\n' "$r" "$d" "$engine" "$t" "$u" "$ratio"
  done
  median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "  median default ÷ best: $median"
done
