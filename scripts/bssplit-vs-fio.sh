#!/usr/bin/env bash
# Per-I/O block sizes: ssdfade --bssplit against fio --bssplit on the same zram device, so that
# a split means the same in both tools.
#
#   scripts/bssplit-vs-fio.sh          # makes a zram device, measures, removes it
#
# Each round runs ssdfade and then fio (the order alternates from round to round) on the same
# device: random writes of the split BSSPLIT, O_DIRECT, fresh random data (fio:
# refill_buffers), for BSSPLIT_SECONDS each. Pairings: ssdfade --engine threads --qd N against
# fio psync with numjobs=N (one thread per outstanding I/O in both), N = 1 and 4. The one known
# difference: ssdfade aligns each I/O's offset to its own size, fio to the smallest size
# (blockalign's default); on zram, a RAM device, that costs nothing either way.
#
# Printed per QD: each tool's IOPS, MB/s and mean transfer size (bytes / I/Os: the split's
# mean, whichever tool draws it), medians over rounds, and the ssdfade / fio ratio of the IOPS
# per round as min / median / max.
#
# Environment: BSSPLIT (4k/70:16k/20:64k/10; zram's logical block is 4 KiB, so no sizes below
# it), BSSPLIT_ROUNDS (3), BSSPLIT_SECONDS (10), ZRAM_SIZE (1G), SSDFADE (binary; default:
# cargo build --release and target/release/ssdfade).
set -euo pipefail

SPLIT=${BSSPLIT:-4k/70:16k/20:64k/10}
ROUNDS=${BSSPLIT_ROUNDS:-3}
SECS=${BSSPLIT_SECONDS:-10}
ZRAM_SIZE=${ZRAM_SIZE:-1G}
REPO=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "bssplit-vs-fio: $*" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || die "run as root (it makes a zram device)"
if ! command -v fio >/dev/null || ! command -v jq >/dev/null; then
  apt-get install -y fio jq >/dev/null 2>&1 || die "fio and jq are missing: apt-get install fio jq"
fi
if [ -z "${SSDFADE:-}" ]; then
  (cd "$REPO" && cargo build --release --quiet) || die "cargo build --release failed"
  SSDFADE=$REPO/target/release/ssdfade
fi

. "$REPO/scripts/lib/ram-devices.sh"
WORK=$(mktemp -d /tmp/bssplit-vs-fio.XXXXXX)
remove_on_exit "$WORK"
new_zram "$ZRAM_SIZE"
DEV=$RAM_DEV
# Written once, so that no run meets unwritten (zero-cost) pages.
fio --name=fill --filename="$DEV" --direct=1 --rw=write --bs=1M --ioengine=psync \
  --output-format=terse >/dev/null || die "filling $DEV failed"

RAW=$WORK/raw
: > "$RAW"

# One ssdfade run: prints "iops mb_per_s mean_size".
run_ssdfade() { # qd
  "$SSDFADE" measure "$DEV" --destroy-data "$DEV" --engine threads --qd "$1" --bssplit "$SPLIT" \
    --duration "${SECS}s" --out "$WORK/s-$1-$RANDOM" --json 2>/dev/null \
    | jq -r '"\(.iops) \(.mb_per_s) \(.bytes / .ops)"'
}

# One fio run: prints "iops mb_per_s mean_size".
run_fio() { # numjobs
  fio --name=split --filename="$DEV" --direct=1 --rw=randwrite --bssplit="$SPLIT" \
    --numjobs="$1" --group_reporting --ioengine=psync --runtime="$SECS" --time_based \
    --refill_buffers --norandommap --randrepeat=0 --output-format=json 2>/dev/null \
    | jq -r '.jobs[0].write | "\(.iops) \(.bw_bytes / 1e6) \(.io_bytes / .total_ios)"'
}

for round in $(seq "$ROUNDS"); do
  for qd in 1 4; do
    if [ $((round % 2)) -eq 1 ]; then
      s=$(run_ssdfade "$qd"); f=$(run_fio "$qd")
    else
      f=$(run_fio "$qd"); s=$(run_ssdfade "$qd")
    fi
    echo "bssplit-vs-fio: round $round QD$qd: ssdfade $s · fio $f" >&2
    echo "$qd $round $s $f" >> "$RAW"
  done
done

# Median of an awk expression over the rows of QD $1; min/median/max of a ratio.
stats() { # qd awk-expression
  awk -v e="$1" '$1 == e { print '"$2"' }' "$RAW" | sort -g \
    | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
            printf "%.6g %.6g %.6g", v[1], m, v[NR] }'
}
ratio() { stats "$@" | awk '{ printf "%.2f / %.2f / %.2f", $1, $2, $3 }'; }
med() { stats "$@" | awk '{ printf "%.0f", $2 }'; }

echo
echo "$(uname -r), $(nproc) CPUs, $("$SSDFADE" --version), $(fio --version); $ROUNDS rounds of ${SECS} s, random writes of bssplit $SPLIT on zram"
echo
echo "| ssdfade threads / fio psync | ssdfade IOPS | fio IOPS | IOPS ratio min / median / max | ssdfade MB/s | fio MB/s | ssdfade mean size B | fio mean size B |"
echo "|---|---|---|---|---|---|---|---|"
for qd in 1 4; do
  set -- "$qd"
  echo "| --qd $1 / numjobs=$1 | $(med "$1" '$3') | $(med "$1" '$6') | $(ratio "$1" '$3 / $6') \
| $(med "$1" '$4') | $(med "$1" '$7') | $(med "$1" '$5') | $(med "$1" '$8') |"
done
