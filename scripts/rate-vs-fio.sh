#!/usr/bin/env bash
# Latency under an issue rate: ssdfade --rate-iops against fio --rate_iops on the same zram
# device, so that "latency at a given load" means the same in both tools.
#
#   scripts/rate-vs-fio.sh          # makes a zram device, measures, removes it
#
# Each round runs, at every load of RATE_LOADS, ssdfade and then fio (the order alternates
# from round to round) on the same device: 4 KiB random writes, O_DIRECT, QD 1, for
# RATE_SECONDS each. Pairings: ssdfade --engine threads against fio psync (one thread, one
# I/O at a time), ssdfade --engine uring against fio io_uring (RATE_ENGINES). Both issue on an
# open-loop schedule (fio: rate_process=linear, its default) and time each I/O from its issue
# to its completion: ssdfade's latency, fio's lat (slat + clat). Both write fresh random data
# every time (fio: refill_buffers): zram's write takes longer on fio's default buffers (its
# pwrite64 took 34-38 µs against 28-30 µs under perf trace, 2000/s), which is the data's cost,
# not either tool's.
#
# Printed per engine and load: each tool's delivered IOPS, mean and p99 (medians over rounds),
# and the ssdfade / fio ratio of the mean and of the p99 per round as min / median / max. On a
# shared machine a ratio whose spread includes 1.0 is "the same within noise".
#
# With RATE_TRACE=1 every run goes under `perf trace -s`, and the kernel's own mean duration
# of the run's pwrite64 calls (entry to exit of the system call; psync and threads only) is
# printed beside each tool's mean: how much of a tool's latency is the write itself and how
# much its own work around the call. Tracing slows both tools' calls alike: read the
# differences, not the absolute figures.
#
# Environment: RATE_LOADS ("2000 10000 40000"), RATE_ROUNDS (5), RATE_SECONDS (5),
# RATE_ENGINES ("threads uring"), RATE_TRACE (0), ZRAM_SIZE (1G), SSDFADE (binary; default:
# cargo build --release and target/release/ssdfade).
set -euo pipefail

LOADS=${RATE_LOADS:-"2000 10000 40000"}
ROUNDS=${RATE_ROUNDS:-5}
SECS=${RATE_SECONDS:-5}
ENGINES=${RATE_ENGINES:-"threads uring"}
TRACE=${RATE_TRACE:-0}
ZRAM_SIZE=${ZRAM_SIZE:-1G}
REPO=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "rate-vs-fio: $*" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || die "run as root (it makes a zram device)"
if ! command -v fio >/dev/null || ! command -v jq >/dev/null; then
  apt-get install -y fio jq >/dev/null 2>&1 || die "fio and jq are missing: apt-get install fio jq"
fi
if [ -z "${SSDFADE:-}" ]; then
  (cd "$REPO" && cargo build --release --quiet) || die "cargo build --release failed"
  SSDFADE=$REPO/target/release/ssdfade
fi

. "$REPO/scripts/lib/ram-devices.sh"
WORK=$(mktemp -d /tmp/rate-vs-fio.XXXXXX)
remove_on_exit "$WORK"
new_zram "$ZRAM_SIZE"
DEV=$RAM_DEV
# Written once, so that no run meets unwritten (zero-cost) pages.
fio --name=fill --filename="$DEV" --direct=1 --rw=write --bs=1M --ioengine=psync \
  --output-format=terse >/dev/null || die "filling $DEV failed"

RAW=$WORK/raw
: > "$RAW"

# traced CMD…: runs CMD (under `perf trace -s` with RATE_TRACE=1), its standard output to
# $WORK/out; prints the mean µs of its pwrite64 calls over all its threads, or "-".
traced() {
  if [ "$TRACE" != 1 ]; then
    "$@" > "$WORK/out"
    echo -
    return
  fi
  perf trace -s -o "$WORK/trace" -- "$@" > "$WORK/out"
  # Summary rows: syscall calls errors total min avg max stddev (times in ms), a block a thread.
  awk '$1 == "pwrite64" { n += $2; t += $4 } END { if (n) printf "%.2f\n", t / n * 1000;
    else print "-" }' "$WORK/trace"
}

# One ssdfade run: prints "iops mean_us p99_us pwrite_us" (the last "-" without RATE_TRACE).
run_ssdfade() { # engine rate
  local sys
  sys=$(traced "$SSDFADE" measure "$DEV" --destroy-data "$DEV" --engine "$1" --qd 1 \
    --rate-iops "$2" --duration "${SECS}s" --interval 1s --out "$WORK/s-$1-$2-$RANDOM" \
    --json 2>/dev/null)
  jq -r '"\(.iops) \(.write_lat_us.mean) \(.write_lat_us.p99) '"$sys"'"' "$WORK/out"
}

# One fio run: prints "iops mean_us p99_us pwrite_us" (lat = submission to completion).
run_fio() { # engine rate
  local ioengine=psync
  [ "$1" = uring ] && ioengine=io_uring
  local sys
  sys=$(traced fio --name=rate --filename="$DEV" --direct=1 --rw=randwrite --bs=4k \
    --iodepth=1 --ioengine="$ioengine" --rate_iops="$2" --runtime="$SECS" --time_based \
    --refill_buffers --lat_percentiles=1 --randrepeat=0 --output-format=json 2>/dev/null)
  jq -r '.jobs[0].write | "\(.iops) \(.lat_ns.mean / 1000) \(.lat_ns.percentile["99.000000"] / 1000) '"$sys"'"' \
    "$WORK/out"
}

for round in $(seq "$ROUNDS"); do
  for engine in $ENGINES; do
    for load in $LOADS; do
      if [ $((round % 2)) -eq 1 ]; then
        s=$(run_ssdfade "$engine" "$load"); f=$(run_fio "$engine" "$load")
      else
        f=$(run_fio "$engine" "$load"); s=$(run_ssdfade "$engine" "$load")
      fi
      echo "rate-vs-fio: round $round $engine $load/s: ssdfade $s · fio $f" >&2
      echo "$engine $load $round $s $f" >> "$RAW"
    done
  done
done

# Median of column $3 over the rows of engine $1 and load $2; min/median/max of a ratio.
stats() { # engine load awk-expression
  awk -v e="$1" -v l="$2" '$1 == e && $2 == l { print '"$3"' }' "$RAW" | sort -g \
    | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
            printf "%.6g %.6g %.6g", v[1], m, v[NR] }'
}
ratio() { stats "$@" | awk '{ printf "%.2f / %.2f / %.2f", $1, $2, $3 }'; }
med() { stats "$@" | awk '{ printf "%.1f", $2 }'; }

echo
echo "$(uname -r), $(nproc) CPUs, $("$SSDFADE" --version), $(fio --version); $ROUNDS rounds of ${SECS} s, QD 1, 4 KiB random writes on zram"
echo
echo "| engine (fio) | rate /s | ssdfade IOPS | fio IOPS | ssdfade mean µs | fio mean µs | mean ratio min / median / max | ssdfade p99 µs | fio p99 µs | p99 ratio min / median / max |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for engine in $ENGINES; do
  fioname=psync; [ "$engine" = uring ] && fioname=io_uring
  for load in $LOADS; do
    echo "| $engine ($fioname) | $load | $(med "$engine" "$load" '$4') | $(med "$engine" "$load" '$8') \
| $(med "$engine" "$load" '$5') | $(med "$engine" "$load" '$9') | $(ratio "$engine" "$load" '$5 / $9') \
| $(med "$engine" "$load" '$6') | $(med "$engine" "$load" '$10') | $(ratio "$engine" "$load" '$6 / $10') |"
  done
done
if [ "$TRACE" = 1 ] && [[ " $ENGINES " == *" threads "* ]]; then
  echo
  echo "Under perf trace: each tool's mean latency against the kernel's mean pwrite64 (µs, medians over rounds)"
  echo
  echo "| rate /s | ssdfade mean | its pwrite64 | ssdfade mean − pwrite64 | fio mean | its pwrite64 | fio mean − pwrite64 |"
  echo "|---|---|---|---|---|---|---|"
  for load in $LOADS; do
    echo "| $load | $(med threads "$load" '$5') | $(med threads "$load" '$7') \
| $(med threads "$load" '$5 - $7') | $(med threads "$load" '$9') | $(med threads "$load" '$11') \
| $(med threads "$load" '$9 - $11') |"
  done
fi
