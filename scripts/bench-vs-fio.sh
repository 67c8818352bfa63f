#!/usr/bin/env bash
# Compares ssdfade with fio on 4 KiB random writes at several queue depths, so that a soak
# measures the drive and not the tool.
#
#   scripts/bench-vs-fio.sh            # makes a zram RAM device, benchmarks it, removes it
#   scripts/bench-vs-fio.sh /dev/sdX   # a device you name (ITS DATA IS DESTROYED)
#   scripts/bench-vs-fio.sh /var/tmp/bench.img  # a file (made at BENCH_FILE_SIZE if absent,
#                                               # and then deleted at the end)
#
# Pairings: ssdfade --engine threads against fio psync with numjobs = QD (one thread per I/O),
# ssdfade --engine uring against fio io_uring with iodepth = QD. ssdfade writes its default
# unique incompressible data; fio keeps its default buffers. Runs alternate between the tools,
# BENCH_ROUNDS rounds each; the table shows medians, and the ssdfade / fio ratio of each round
# (the two runs next to each other) as min / median / max: on a shared machine the figures
# move with load, and one median hides how far. CPU per I/O is the CPU time (user + system,
# all threads, including io_uring's kernel workers) of each tool's process, measured the same
# way for both; fio's own JSON figure, which counts only its job threads, is shown too.
#
# With BENCH_JOBS=N (1), ssdfade runs --jobs N (N queues of QD each) against fio's numjobs=N
# (io_uring: numjobs=N iodepth=QD; psync: numjobs=N×QD), group_reporting.
#
# Environment: BENCH_SECONDS (5) per run, BENCH_ROUNDS (3), BENCH_QDS ("1 32 128"), BENCH_JOBS (1),
# BENCH_ZRAM_SIZE (2G), BENCH_FILE_SIZE (4G), BENCH_FILL (1: write the whole target once
# first, so that no round meets unwritten blocks; 0 skips it on a large device),
# BENCH_OUT (results/bench), SSDFADE (binary; default: cargo build --release and
# target/release/ssdfade).
set -euo pipefail

SECONDS_PER_RUN=${BENCH_SECONDS:-5}
ROUNDS=${BENCH_ROUNDS:-3}
QDS=${BENCH_QDS:-"1 32 128"}
JOBS=${BENCH_JOBS:-1}
ZRAM_SIZE=${BENCH_ZRAM_SIZE:-2G}
FILE_SIZE=${BENCH_FILE_SIZE:-4G}
FILL=${BENCH_FILL:-1}
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT_DIR=${BENCH_OUT:-$REPO/results/bench}

die() { echo "bench-vs-fio: $*" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || die "run as root (it makes zram devices and writes to block devices)"

if ! command -v fio >/dev/null || ! command -v jq >/dev/null; then
  echo "bench-vs-fio: installing fio and jq with apt-get" >&2
  apt-get install -y fio jq >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y fio jq >/dev/null; } \
    || die "could not install fio and jq: install them and run again"
fi

if [ -z "${SSDFADE:-}" ]; then
  (cd "$REPO" && cargo build --release --quiet) || die "cargo build --release failed"
  SSDFADE=$REPO/target/release/ssdfade
fi

. "$REPO/scripts/lib/ram-devices.sh"
WORK=$(mktemp -d /tmp/bench-vs-fio.XXXXXX)
remove_on_exit "$WORK"

TARGET=${1:-}
if [ -z "$TARGET" ]; then
  new_zram "$ZRAM_SIZE"
  TARGET=$RAM_DEV
  KIND="zram $ZRAM_SIZE"
elif [ -b "$TARGET" ]; then
  KIND="block device $(lsblk -dno SIZE "$TARGET" | tr -d ' ')"
else
  if [ ! -e "$TARGET" ]; then
    remove_on_exit "$TARGET"
    truncate -s "$FILE_SIZE" "$TARGET" || die "cannot create $TARGET"
  fi
  [ -f "$TARGET" ] || die "$TARGET is neither a block device nor a regular file"
  KIND="file of $(du -h --apparent-size "$TARGET" | cut -f1) on $(df --output=source "$TARGET" | tail -1)"
fi

if [ "$FILL" = 1 ]; then
  echo "bench-vs-fio: filling $TARGET once so that every round sees written blocks" >&2
  fio --name=fill --filename="$TARGET" --direct=1 --rw=write --bs=1M --ioengine=psync \
    --output-format=terse >/dev/null || die "filling $TARGET with fio failed"
fi

# Runs a command with its output in the file named first, and prints the CPU seconds (user +
# system, every thread) its process used. Call it inside $(...): the shell's `times` then counts
# that command alone among the subshell's children.
run_timed() {
  local out=$1
  shift
  "$@" >"$out" 2>"$out.err" || { cat "$out.err" >&2; return 1; }
  times >"$out.times"
  tail -1 "$out.times" | awk '{
    s = 0
    for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); s += p[1] * 60 + p[2] }
    printf "%.6f", s
  }'
}

# One ssdfade run: prints "iops cpu_us_per_io(process) cpu_us_per_io(self-reported)".
run_ssdfade() {
  local engine=$1 qd=$2 json=$WORK/ssdfade.json cpu try
  for try in 1 2 3 4 5; do
    rm -rf "$WORK/run"
    if cpu=$(run_timed "$json" "$SSDFADE" measure "$TARGET" --destroy-data "$TARGET" \
      --engine "$engine" --jobs "$JOBS" --qd "$qd" --bs 4k --read-pct 0 --random-pct 100 \
      --duration "${SECONDS_PER_RUN}s" --json --out "$WORK/run"); then
      jq -r --arg cpu "$cpu" '"\(.iops) \(($cpu|tonumber) * 1e6 / .ops) \(.cpu_us_per_io)"' "$json"
      return 0
    fi
    # A device can stay claimed for a moment after the previous process exits.
    grep -q "busy" "$json.err" || return 1
    sleep 0.5
  done
  return 1
}

# One fio run: prints "iops cpu_us_per_io(process) cpu_us_per_io(fio's JSON)".
run_fio() {
  local engine=$1 qd=$2 json=$WORK/fio.json cpu
  local depth=(--ioengine=psync --numjobs="$((qd * JOBS))" --thread)
  [ "$engine" = io_uring ] && depth=(--ioengine=io_uring --numjobs="$JOBS" --iodepth="$qd" --group_reporting)
  cpu=$(run_timed "$json" fio --name=bench --filename="$TARGET" --direct=1 --rw=randwrite \
    --bs=4k --norandommap --randrepeat=0 "${depth[@]}" --time_based \
    --runtime="${SECONDS_PER_RUN}s" --output-format=json)
  jq -r --arg cpu "$cpu" '
    ([.jobs[].write.iops] | add) as $iops
    | ([.jobs[].write.total_ios] | add) as $ios
    | ([.jobs[] | (.usr_cpu + .sys_cpu) / 100 * .write.runtime / 1000] | add) as $self
    | "\($iops) \(($cpu|tonumber) * 1e6 / $ios) \($self * 1e6 / $ios)"' "$json"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

RAW=$WORK/raw.tsv
: >"$RAW"
for qd in $QDS; do
  for round in $(seq "$ROUNDS"); do
    for pair in "threads psync" "uring io_uring"; do
      set -- $pair
      echo "bench-vs-fio: QD $qd round $round: ssdfade $1, fio $2" >&2
      echo "$1 $qd ssdfade $(run_ssdfade "$1" "$qd") $round" >>"$RAW"
      echo "$1 $qd fio $(run_fio "$2" "$qd") $round" >>"$RAW"
    done
  done
done

col() { awk -v e="$1" -v q="$2" -v t="$3" -v c="$4" '$1 == e && $2 == q && $3 == t { print $c }' "$RAW" | median; }
# The ssdfade / fio IOPS ratio of each round of one engine and QD, as "min median max".
ratios() {
  awk -v e="$1" -v q="$2" '$1 == e && $2 == q { iops[$3, $7] = $4 }
    END { for (k in iops) { split(k, p, SUBSEP); if (p[1] == "ssdfade" && (("fio", p[2]) in iops)) print iops[k] / iops["fio", p[2]] } }' "$RAW" \
    | sort -g | awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f", v[1], (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR] }'
}
TABLE=$WORK/table.md
{
  echo "4 KiB random writes on $TARGET ($KIND), ${SECONDS_PER_RUN} s per run, median of $ROUNDS alternating rounds, $JOBS job(s) per tool"
  echo "$(uname -r), $(nproc) CPUs, $("$SSDFADE" --version), $(fio --version)"
  echo
  echo "| ssdfade engine vs fio | QD | ssdfade IOPS | fio IOPS | ssdfade / fio per round: min / median / max | ssdfade CPU µs/I/O | fio CPU µs/I/O | fio µs/I/O (its JSON) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for pair in "threads psync numjobs=$([ "$JOBS" = 1 ] || echo "$JOBS×")QD" "uring io_uring $([ "$JOBS" = 1 ] || echo "numjobs=$JOBS,")iodepth=QD"; do
    set -- $pair
    for qd in $QDS; do
      s=$(col "$1" "$qd" ssdfade 4); f=$(col "$1" "$qd" fio 4)
      sc=$(col "$1" "$qd" ssdfade 5); fc=$(col "$1" "$qd" fio 5); fj=$(col "$1" "$qd" fio 6)
      r=$(ratios "$1" "$qd")
      awk -v p="$1 vs fio $2 $3" -v q="$qd" -v s="$s" -v f="$f" -v r="$r" -v sc="$sc" -v fc="$fc" -v fj="$fj" \
        'BEGIN { split(r, x, " "); printf "| %s | %d | %.0f | %.0f | %.2f / **%.2f** / %.2f | %.2f | %.2f | %.2f |\n", p, q, s, f, x[1], x[2], x[3], sc, fc, fj }'
    done
  done
  echo
  echo "IOPS and CPU columns are medians over the rounds; the ratio column pairs each round's two runs."
  echo "CPU µs/I/O: user + system CPU of the whole process (every thread, io_uring workers included) per I/O,"
  echo "measured alike for both tools; fio's JSON figure counts only its job threads."
} >"$TABLE"

mkdir -p "$OUT_DIR"
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
NAME=$(basename "$TARGET")
cp "$TABLE" "$OUT_DIR/$STAMP-$NAME.md"
{ echo "# engine qd tool iops cpu_us_per_io_process cpu_us_per_io_self_reported round"; cat "$RAW"; } \
  >"$OUT_DIR/$STAMP-$NAME.rounds.tsv"
cat "$TABLE"
echo
echo "Saved to $OUT_DIR/$STAMP-$NAME.md (every round in $STAMP-$NAME.rounds.tsv)"
