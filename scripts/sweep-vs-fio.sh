#!/usr/bin/env bash
# Compares `ssdfade sweep` with fio at the same points: the seed's IOPS-against-queue-depth
# table (8 KiB, 67 % reads, 70 % random, QD 1-32 by default), so that the sweep's figures can
# be trusted as fio's would be.
#
#   scripts/sweep-vs-fio.sh            # makes a zram RAM device, sweeps it, removes it
#   scripts/sweep-vs-fio.sh /dev/sdX   # a device you name (ITS DATA IS DESTROYED)
#
# Pairing: ssdfade's default engine (io_uring) against fio's io_uring engine with iodepth = QD,
# same transfer size, read share, random share, O_DIRECT. Rounds alternate between the tools
# (a whole ssdfade sweep, then fio at every point); the table gives per point the median IOPS
# and mean latency of each tool and the ssdfade / fio IOPS ratio of each round as
# min / median / max.
#
# Environment: SWEEP_QDS ("1 2 4 8 16 32"), SWEEP_BS (8k), SWEEP_READ_PCT (67),
# SWEEP_RANDOM_PCT (70), SWEEP_SECONDS (5) per point, SWEEP_ROUNDS (3), SWEEP_ZRAM_SIZE (2G),
# SWEEP_OUT (results/bench), SSDFADE (binary; default: cargo build --release).
set -euo pipefail

QDS=${SWEEP_QDS:-"1 2 4 8 16 32"}
BS=${SWEEP_BS:-8k}
READ_PCT=${SWEEP_READ_PCT:-67}
RANDOM_PCT=${SWEEP_RANDOM_PCT:-70}
SECONDS_PER_POINT=${SWEEP_SECONDS:-5}
ROUNDS=${SWEEP_ROUNDS:-3}
ZRAM_SIZE=${SWEEP_ZRAM_SIZE:-2G}
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT_DIR=${SWEEP_OUT:-$REPO/results/bench}

die() { echo "sweep-vs-fio: $*" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || die "run as root (it makes a zram device and writes to block devices)"
if ! command -v fio >/dev/null || ! command -v jq >/dev/null; then
  echo "sweep-vs-fio: installing fio and jq with apt-get" >&2
  apt-get install -y fio jq >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y fio jq >/dev/null; } \
    || die "could not install fio and jq: install them and run again"
fi
if [ -z "${SSDFADE:-}" ]; then
  (cd "$REPO" && cargo build --release --quiet) || die "cargo build --release failed"
  SSDFADE=$REPO/target/release/ssdfade
fi

. "$REPO/scripts/lib/ram-devices.sh"
WORK=$(mktemp -d /tmp/sweep-vs-fio.XXXXXX)
remove_on_exit "$WORK"

TARGET=${1:-}
if [ -z "$TARGET" ]; then
  new_zram "$ZRAM_SIZE"
  TARGET=$RAM_DEV
  KIND="zram $ZRAM_SIZE"
else
  [ -b "$TARGET" ] || die "$TARGET is not a block device"
  KIND="block device $(lsblk -dno SIZE "$TARGET" | tr -d ' ')"
fi

echo "sweep-vs-fio: filling $TARGET once so that reads meet written blocks" >&2
fio --name=fill --filename="$TARGET" --direct=1 --rw=write --bs=1M --ioengine=psync \
  --output-format=terse >/dev/null || die "filling $TARGET with fio failed"

QD_LIST=$(echo "$QDS" | tr ' ' ',')
RESULTS=$WORK/results.tsv   # tool round qd iops avg_ms
: >"$RESULTS"

sweep_ssdfade() {
  local round=$1 try
  for try in 1 2 3 4 5; do
    rm -rf "$WORK/sweep"
    if "$SSDFADE" sweep "$TARGET" --destroy-data "$TARGET" --qd "$QD_LIST" --bs "$BS" \
      --read-pct "$READ_PCT" --random-pct "$RANDOM_PCT" --point-duration "${SECONDS_PER_POINT}s" \
      --json --out "$WORK/sweep" >"$WORK/sweep.json" 2>"$WORK/sweep.err"; then
      jq -r --arg r "$round" '.points[] | "ssdfade\t\($r)\t\(.qd)\t\(.iops)\t\(.avg_ms)"' \
        "$WORK/sweep.json" >>"$RESULTS"
      return 0
    fi
    # A device can stay claimed for a moment after the previous process exits.
    grep -q "busy" "$WORK/sweep.err" || { cat "$WORK/sweep.err" >&2; return 1; }
    sleep 0.5
  done
  return 1
}

sweep_fio() {
  local round=$1 qd
  for qd in $QDS; do
    fio --name=point --filename="$TARGET" --direct=1 --ioengine=io_uring --iodepth="$qd" \
      --rw=randrw --rwmixread="$READ_PCT" --percentage_random="$RANDOM_PCT" --bs="$BS" \
      --time_based --runtime="$SECONDS_PER_POINT" --output-format=json >"$WORK/fio.json" \
      || die "fio failed at QD $qd"
    jq -r --arg r "$round" --arg qd "$qd" '.jobs[0] as $j
      | ($j.read.total_ios + $j.write.total_ios) as $n
      | "fio\t\($r)\t\($qd)\t\($j.read.iops + $j.write.iops)\t\(if $n > 0 then
          ($j.read.lat_ns.mean * $j.read.total_ios + $j.write.lat_ns.mean * $j.write.total_ios) / $n / 1e6
          else 0 end)"' "$WORK/fio.json" >>"$RESULTS"
  done
}

for round in $(seq "$ROUNDS"); do
  echo "sweep-vs-fio: round $round of $ROUNDS" >&2
  if [ $((round % 2)) = 1 ]; then sweep_ssdfade "$round"; sweep_fio "$round"
  else sweep_fio "$round"; sweep_ssdfade "$round"; fi
done

mkdir -p "$OUT_DIR"
REPORT=$OUT_DIR/sweep-vs-fio-$(date -u +%Y%m%dT%H%M%SZ).txt
{
  echo "ssdfade sweep vs fio io_uring on $TARGET ($KIND): $BS, $READ_PCT % read, $RANDOM_PCT % random,"
  echo "${SECONDS_PER_POINT} s per point, $ROUNDS alternating rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%4s %12s %12s %22s %10s %10s\n' QD "ssdfade IOPS" "fio IOPS" "ratio min/med/max" "ssdfade ms" "fio ms"
  for qd in $QDS; do
    awk -F'\t' -v qd="$qd" -v rounds="$ROUNDS" '
      function median(a, n,   i, j, t) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      $3 == qd && $1 == "ssdfade" { s[$2] = $4; sl[++ns] = $5; si[ns] = $4 }
      $3 == qd && $1 == "fio" { f[$2] = $4; fl[++nf] = $5; fi[nf] = $4 }
      END {
        for (r = 1; r <= rounds; r++) if (f[r] > 0) ratio[++nr] = s[r] / f[r]
        mid = median(ratio, nr)   # sorts ratio: its ends are the extremes
        printf "%4d %12.0f %12.0f %8.2f/%5.2f/%5.2f %10.3f %10.3f\n", qd, median(si, ns), median(fi, nf),
          ratio[1], mid, ratio[nr], median(sl, ns), median(fl, nf)
      }' "$RESULTS"
  done
} | tee "$REPORT"
echo "sweep-vs-fio: saved $REPORT" >&2
