#!/usr/bin/env bash
# ssdfade's own CPU per I/O, and how several RAM devices at once compare with each alone.
#
#   scripts/cpu-per-io.sh            # makes zram devices, measures, removes them
#
# Part 1, CPU per I/O: 4 KiB random writes of the default data (unique, incompressible) at
# QD 32 on a zram device for CPU_SECONDS per run, with each engine (threads, uring), CPU_ROUNDS
# rounds alternating the engines. Each run goes under `perf stat` (task-clock, user and system
# time of the whole process); the figure is user-space CPU ÷ I/Os completed, in µs. With
# CPU_RECORD=1 one more run of each engine is sampled with `perf record -e cpu-clock:u` and the
# top CPU_TOP (15) user-space symbols of `perf report` are printed (the profile). With
# SSDFADE_BEFORE every round runs that binary right before SSDFADE, and the summary prints
# the ratio now ÷ before of each round (both on the same load), its median and the rounds
# lower now: the issue's figure is the median user µs per I/O of each engine, and the ratio.
#
# Part 2, several devices at once: MULTI_DEVICES RAM devices (MULTI_KIND); each round measures
# every device alone (one after the other) and then all of them at once (one `ssdfade measure
# A B …`, the tool's own way of running several targets together), MULTI_ROUNDS rounds
# alternating. The ratio of a round is the sum of the IOPS together ÷ the sum of the IOPS
# alone; min / median / max over rounds are printed, and each run's CPUs kept busy (the
# process's task-clock, its io_uring workers included, ÷ wall time; a loop device's own
# kernel worker is not the process's and is not counted). With
# MULTI_FIO=1 every round also runs fio the same way (each device alone, then one fio process
# with a job per device; io_uring or psync×QD to match MULTI_ENGINE, direct, 4 KiB random
# writes), so the tool's ratio can be told from the machine's. With MULTI_THREADS=1, after the
# rounds, one more run of the first device alone and of all together (and of fio the same way
# with MULTI_FIO=1) prints the CPUs each kind of thread kept busy, user and system, from
# /proc/PID/task/*/stat: io_uring's kernel workers are threads of the process that made the ring.
# A RAM device spends most of its CPU in the kernel (compression, copies): one device alone can
# keep every CPU busy, and then no tool runs two at once at more than half the sum. With
# MULTI_SHARE=1 each device alone runs under `taskset` on its share of the CPUs this script may
# use (the first device on the first CPUs ÷ devices, and so on), which is what it gets at most
# when all run together (unpinned): the ratio then measures what running them in one process
# costs, not the machine's CPU count. fio's alone runs (MULTI_FIO=1) get the same shares.
#
# With CPU_SAMPLE_HZ=N (e.g. 10000) the user-space CPU of part 1 is not rusage's but the
# sum of `perf record -F N -e cpu-clock:u` samples of the run: rusage splits user from system
# time by the 250 Hz tick, which is about 40 ticks of user time in a 6 s run, so its figure
# moves by ±15 % from sampling alone; N samples a second cut that noise (sys and task columns
# are then not measured).
#
# Part 0, instructions per I/O (PARTS=instr; needs valgrind): user-space instructions are the
# one CPU figure that does not move with the machine's load, and this VM has no hardware
# counters for `perf stat -e instructions:u`. Each engine (and binary) runs twice under
# `valgrind --tool=cachegrind --cache-sim=no`, writing INSTR_SMALL (64M) and then INSTR_LARGE
# (320M) at QD CPU_QD with one interval for the whole run; the figure is the difference of the
# two runs' instructions ÷ the difference of their I/Os, so start-up, the charts and the
# record (the same in both) drop out. It is printed with the share of it that makes the write
# data (functions of ssdfade::pattern). Valgrind's CPU has no AVX-512 or VAES, so the data is
# made with AES-NI there (`fill_aesni`): the figure of a CPU without those, and an upper
# bound for one with them.
#
# CPU_EXTRA adds options to every measured run of part 1 (e.g. CPU_EXTRA=--verify for the cost
# of data verification).
#
# Environment: INSTR_SMALL (64M), INSTR_LARGE (320M), CPU_SECONDS (6), CPU_ROUNDS (3),
# CPU_ENGINES ("threads uring"), CPU_QD (32), CPU_RECORD (0), CPU_SAMPLE_HZ (0),
# MULTI_DEVICES (2), MULTI_ROUNDS (5), MULTI_SECONDS (5), MULTI_ENGINE (uring), MULTI_QD (32),
# MULTI_FIO (0), MULTI_THREADS (0), MULTI_SHARE (0), MULTI_KIND (zram, or loop: loop devices with direct I/O over files in
# /dev/shm), ZRAM_SIZE (1G, also the loop files' size), ZRAM_ALG (lzo-rle; lz4, lzo), PARTS
# ("cpu multi"; add instr for part 0), SSDFADE (binary; default: cargo build --release and
# target/release/ssdfade), SSDFADE_BEFORE (a second binary, e.g. of an earlier commit: each
# round then runs it right before SSDFADE with the same engine, for an A/B on the same load).
set -euo pipefail

CPU_SECONDS=${CPU_SECONDS:-6}
CPU_ROUNDS=${CPU_ROUNDS:-3}
CPU_ENGINES=${CPU_ENGINES:-"threads uring"}
CPU_QD=${CPU_QD:-32}
CPU_RECORD=${CPU_RECORD:-0}
CPU_SAMPLE_HZ=${CPU_SAMPLE_HZ:-0}
read -r -a CPU_EXTRA <<< "${CPU_EXTRA:-}"
MULTI_DEVICES=${MULTI_DEVICES:-2}
MULTI_ROUNDS=${MULTI_ROUNDS:-5}
MULTI_SECONDS=${MULTI_SECONDS:-5}
MULTI_ENGINE=${MULTI_ENGINE:-uring}
MULTI_QD=${MULTI_QD:-32}
MULTI_FIO=${MULTI_FIO:-0}
MULTI_THREADS=${MULTI_THREADS:-0}
MULTI_SHARE=${MULTI_SHARE:-0}
ZRAM_SIZE=${ZRAM_SIZE:-1G}
ZRAM_ALG=${ZRAM_ALG:-lzo-rle}
MULTI_KIND=${MULTI_KIND:-zram}
PARTS=${PARTS:-"cpu multi"}
INSTR_SMALL=${INSTR_SMALL:-64M}
INSTR_LARGE=${INSTR_LARGE:-320M}
REPO=$(cd "$(dirname "$0")/.." && pwd)
ON_CPUS=() # a `taskset -c LIST` prefix for the runs that follow (MULTI_SHARE), else empty

die() { echo "cpu-per-io: $*" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || die "run as root (it makes zram devices)"
command -v perf >/dev/null || apt-get install -y linux-perf >/dev/null 2>&1 \
  || die "perf is missing: apt-get install linux-perf"
command -v jq >/dev/null || apt-get install -y jq >/dev/null 2>&1 || die "jq is missing"

if [ -z "${SSDFADE:-}" ]; then
  (cd "$REPO" && cargo build --release --quiet) || die "cargo build --release failed"
  SSDFADE=$REPO/target/release/ssdfade
fi

. "$REPO/scripts/lib/ram-devices.sh"
WORK=$(mktemp -d /tmp/cpu-per-io.XXXXXX)
remove_on_exit "$WORK"

# run DEV ENGINE QD SECONDS OUT: one measure run; prints its IOPS and the CPUs it kept busy
# (the process's task-clock, its io_uring workers included, ÷ the run's length).
run() {
  local iops ms
  iops=$(perf stat -x, -e task-clock -o "$5.perf" -- "${ON_CPUS[@]}" "$SSDFADE" measure "$1" \
    --destroy-data "$1" --engine "$2" --qd "$3" --bs 4k --duration "$4s" --interval 1s --json --out "$5" \
    2>/dev/null | jq -r '.iops')
  ms=$(awk -F, '$3=="task-clock" {print $1}' "$5.perf")
  echo "$iops $(echo "$ms / 1000 / $4" | bc -l)"
}

# fio_cmd SECONDS DEV…: the fio command of one job per device, all at once (JSON on stdout).
fio_cmd() {
  local secs=$1 args=() d
  shift
  if [ "$MULTI_ENGINE" = uring ]; then
    args=(--ioengine=io_uring --iodepth="$MULTI_QD" --numjobs=1)
  else
    args=(--ioengine=psync --iodepth=1 --numjobs="$MULTI_QD")
  fi
  local jobs=()
  for d in "$@"; do jobs+=(--name="${d##*/}" --filename="$d"); done
  echo fio --output-format=json --direct=1 --rw=randwrite --bs=4k --time_based \
    --runtime="$secs" --group_reporting=0 "${args[@]}" "${jobs[@]}"
}

# fio_iops SECONDS DEV…: fio's total write IOPS over one job per device, all at once.
fio_iops() {
  local cmd
  read -r -a cmd < <(fio_cmd "$@")
  "${ON_CPUS[@]}" "${cmd[@]}" | jq '[.jobs[].write.iops] | add'
}

# tree PID: PID and every process descending from it.
tree() {
  local c
  echo "$1"
  for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do tree "$c"; done
}

# tasks PID: every thread of PID's process tree, one "tid name utime stime" (clock ticks) a line.
tasks() {
  local p t s comm rest f
  for p in $(tree "$1"); do
    for t in /proc/"$p"/task/*; do
      s=$(cat "$t/stat" 2>/dev/null) || continue
      comm=${s#*(}
      comm=${comm%)*}
      rest=${s##*) }
      read -r -a f <<< "$rest"
      echo "${t##*/} ${comm// /_} ${f[11]} ${f[12]}"
    done
  done
}

# thread_cpu SECONDS CMD…: runs CMD and prints the CPUs each kind of thread of its process tree
# kept busy (user and system, from /proc/PID/task/*/stat) between 1 s after its start and 1 s
# before its end; threads whose names differ only in a number (io_uring workers, fio jobs) are
# summed under one name with their count.
thread_cpu() {
  local secs=$1 pid t0 t1
  shift
  "$@" > /dev/null 2>&1 &
  pid=$!
  sleep 1
  t0=$(date +%s.%N)
  tasks "$pid" > "$WORK/tasks-a"
  sleep "$(echo "$secs - 2" | bc -l)"
  t1=$(date +%s.%N)
  tasks "$pid" > "$WORK/tasks-b"
  wait "$pid" || true
  awk -v hz="$(getconf CLK_TCK)" -v dt="$(echo "$t1 - $t0" | bc -l)" '
    NR == FNR {u[$1] = $3; s[$1] = $4; next}
    {name = $2; sub(/[-0-9]+$/, "", name); n[name]++
     cu[name] += ($3 - u[$1]) / hz / dt; cs[name] += ($4 - s[$1]) / hz / dt
     tu += ($3 - u[$1]) / hz / dt; ts += ($4 - s[$1]) / hz / dt}
    END {for (k in n) printf "      %-20s %3d %9.2f %9.2f\n", k, n[k], cu[k], cs[k]
         printf "      %-20s %3s %9.2f %9.2f\n", "(all)", "", tu, ts}' \
    "$WORK/tasks-a" "$WORK/tasks-b" | sort -k3,3 -gr
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# instr_count BIN ENGINE BYTES OUT: one run under cachegrind; prints its I/Os, its
# instructions and those of ssdfade::pattern (the write data).
instr_count() {
  local ops
  ops=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$4.cg" -- "$1" measure \
    "$DEV" --destroy-data "$DEV" --engine "$2" --qd "$CPU_QD" --bs 4k --bytes "$3" \
    --interval 1h --json --out "$4" 2>/dev/null | jq -r '.ops')
  awk -v ops="$ops" '/^fn=/ {data = index($0, "ssdfade::pattern::") > 0; next}
    /^[0-9]/ {all += $2; if (data) pat += $2}
    END {printf "%d %d %d\n", ops, all, pat}' "$4.cg"
  rm -f "$4.cg"
}

if [[ " $PARTS " == *" cpu "* || " $PARTS " == *" instr "* ]]; then
  new_zram "$ZRAM_SIZE" "$ZRAM_ALG"; DEV=$RAM_DEV
  # Written once, so that no run meets unwritten blocks.
  "$SSDFADE" measure "$DEV" --destroy-data "$DEV" --random-pct 0 --bytes "$ZRAM_SIZE" \
    --qd 8 --json --out "$WORK/fill" >/dev/null 2>&1
fi

if [[ " $PARTS " == *" instr "* ]]; then
  command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null 2>&1 \
    || die "valgrind is missing: apt-get install valgrind"
  echo "User-space instructions per 4 KiB I/O (valgrind), random writes, QD $CPU_QD, zram:" \
    "$INSTR_LARGE run less $INSTR_SMALL run"
  BINS=("$SSDFADE")
  [ -n "${SSDFADE_BEFORE:-}" ] && BINS=("$SSDFADE_BEFORE" "$SSDFADE")
  printf '  %-18s %14s %14s %14s\n' engine "instr/IO" "write data" "the rest"
  for engine in $CPU_ENGINES; do
    for bin in "${BINS[@]}"; do
      tag=$engine
      [ "$bin" = "${SSDFADE_BEFORE:-}" ] && tag="$engine (before)"
      read -r o1 i1 p1 < <(instr_count "$bin" "$engine" "$INSTR_SMALL" "$WORK/i-${tag// /-}-s")
      read -r o2 i2 p2 < <(instr_count "$bin" "$engine" "$INSTR_LARGE" "$WORK/i-${tag// /-}-l")
      n=$((o2 - o1))
      [ "$n" -gt 0 ] || die "the $INSTR_LARGE run did no more I/O than the $INSTR_SMALL run"
      printf '  %-18s %14.0f %14.0f %14.0f\n' "$tag" "$(echo "($i2 - $i1) / $n" | bc -l)" \
        "$(echo "($p2 - $p1) / $n" | bc -l)" "$(echo "($i2 - $i1 - $p2 + $p1) / $n" | bc -l)"
    done
  done
fi

if [[ " $PARTS " == *" cpu "* ]]; then
  echo "CPU per 4 KiB I/O, random writes, QD $CPU_QD, $CPU_SECONDS s per run, zram $ZRAM_SIZE"
  BINS=("$SSDFADE")
  [ -n "${SSDFADE_BEFORE:-}" ] && BINS=("$SSDFADE_BEFORE" "$SSDFADE")
  printf '  %-16s %5s %10s %12s %12s %12s\n' engine round IOPS "user µs/IO" "sys µs/IO" "task ms/s"
  for round in $(seq "$CPU_ROUNDS"); do
    for engine in $CPU_ENGINES; do
     for bin in "${BINS[@]}"; do
      tag=$engine
      [ "$bin" = "${SSDFADE_BEFORE:-}" ] && tag="$engine (before)"
      out=$WORK/${tag// /-}-$round
      cmd=("$bin" measure "$DEV" --destroy-data "$DEV" --engine "$engine" --qd "$CPU_QD" \
        --bs 4k --duration "${CPU_SECONDS}s" --interval 1s --json --out "$out" "${CPU_EXTRA[@]}")
      if [ "$CPU_SAMPLE_HZ" -gt 0 ]; then
        perf record -q -F "$CPU_SAMPLE_HZ" -e cpu-clock:u -o "$out.data" -- "${cmd[@]}" \
          > "$out.json" 2>/dev/null
        # The sum of the samples' periods: user-space CPU time in ns.
        user_ns=$(perf report -i "$out.data" --stdio 2>/dev/null \
          | awk '/Event count \(approx.\)/ {n = $NF} END {print n}')
        rm -f "$out.data"
      else
        perf stat -x, -e task-clock,user_time,system_time -o "$out.perf" -- "${cmd[@]}" \
          > "$out.json" 2>/dev/null
        user_ns=$(awk -F, '$3=="user_time" {print $1}' "$out.perf")
      fi
      ops=$(jq -r '.ops // (.iops * .seconds)' "$out.json")
      iops=$(jq -r '.iops' "$out.json")
      user=$(echo "$user_ns / 1000 / $ops" | bc -l)
      if [ "$CPU_SAMPLE_HZ" -gt 0 ]; then
        printf '  %-16s %5d %10.0f %12.3f %12s %12s\n' "$tag" "$round" "$iops" "$user" - -
      else
        sys_ns=$(awk -F, '$3=="system_time" {print $1}' "$out.perf")
        task_ms=$(awk -F, '$3=="task-clock" {print $1}' "$out.perf")
        sys=$(echo "$sys_ns / 1000 / $ops" | bc -l)
        printf '  %-16s %5d %10.0f %12.3f %12.3f %12.0f\n' "$tag" "$round" "$iops" "$user" \
          "$sys" "$(echo "$task_ms / $CPU_SECONDS" | bc -l)"
      fi
      echo "$user" >> "$WORK/user-${tag// /-}"
      echo "$iops" >> "$WORK/iops-${tag// /-}"
     done
      if [ "$CPU_RECORD" = 1 ] && [ "$round" = 1 ]; then
        perf record -q -e cpu-clock:u -o "$WORK/$engine.data" -- \
          "$SSDFADE" measure "$DEV" --destroy-data "$DEV" --engine "$engine" --qd "$CPU_QD" \
          --bs 4k --duration "${CPU_SECONDS}s" --json --out "$out-rec" "${CPU_EXTRA[@]}" \
          >/dev/null 2>&1
        perf report -i "$WORK/$engine.data" --sort dso,sym --stdio 2>/dev/null \
          | grep -E '^ +[0-9.]+%' | head -"${CPU_TOP:-15}" > "$WORK/$engine.top" || true
      fi
    done
  done
  for engine in $CPU_ENGINES; do
   for tag in "$engine-(before)" "$engine"; do
    [ -f "$WORK/user-$tag" ] || continue
    printf '  %-16s user µs per I/O: min %.3f median %.3f max %.3f; IOPS median %.0f\n' "$tag" \
      "$(sort -g "$WORK/user-$tag" | head -1)" "$(median < "$WORK/user-$tag")" \
      "$(sort -g "$WORK/user-$tag" | tail -1)" "$(median < "$WORK/iops-$tag")"
   done
    if [ -f "$WORK/user-$engine-(before)" ]; then
      # Each round ran both binaries seconds apart: the ratio of a round is on one load.
      paste "$WORK/user-$engine" "$WORK/user-$engine-(before)" \
        | awk '{printf "%.3f\n", $1 / $2}' > "$WORK/ratio-$engine"
      printf '  %-16s now ÷ before: median %.3f, rounds lower now %d of %d (per round: %s)\n' \
        "$engine" "$(median < "$WORK/ratio-$engine")" "$(awk '$1 < 1' "$WORK/ratio-$engine" | wc -l)" \
        "$(wc -l < "$WORK/ratio-$engine")" "$(paste -sd' ' "$WORK/ratio-$engine")"
    fi
    if [ -f "$WORK/$engine.top" ]; then
      echo "  profile of $engine (perf record -e cpu-clock:u: where the user-space CPU goes):"
      sed 's/^/    /' "$WORK/$engine.top"
    fi
  done
fi

if [[ " $PARTS " == *" multi "* ]]; then
  DEVS=()
  for _ in $(seq "$MULTI_DEVICES"); do
    case $MULTI_KIND in
      zram) new_zram "$ZRAM_SIZE" "$ZRAM_ALG" ;;
      loop) new_loop "$ZRAM_SIZE" ;;
      *) die "MULTI_KIND=$MULTI_KIND: use zram or loop" ;;
    esac
    DEVS+=("$RAM_DEV")
  done
  for d in "${DEVS[@]}"; do
    "$SSDFADE" measure "$d" --destroy-data "$d" --random-pct 0 --bytes "$ZRAM_SIZE" --qd 8 \
      --json --out "$WORK/fill-${d##*/}" >/dev/null 2>&1
  done
  kind=$MULTI_KIND
  [ "$kind" = zram ] && kind="zram ($ZRAM_ALG)"
  echo "Several RAM devices at once: $MULTI_DEVICES $kind, --engine $MULTI_ENGINE" \
    "--qd $MULTI_QD, $MULTI_SECONDS s per run, $MULTI_ROUNDS rounds"
  # share_of I: the taskset prefix of device I's alone runs (none without MULTI_SHARE=1).
  read -r -a CPUS < <(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' \
    | awk -F- '{for (c = $1; c <= ($2 == "" ? $1 : $2); c++) printf "%d ", c} END {print ""}')
  share=$(( ${#CPUS[@]} / MULTI_DEVICES ))
  if [ "$MULTI_SHARE" = 1 ]; then
    [ "$share" -ge 1 ] || die "MULTI_SHARE=1 needs a CPU per device: ${#CPUS[@]} CPUs," \
      "$MULTI_DEVICES devices; lower MULTI_DEVICES"
    echo "  each device alone on ${share} of the ${#CPUS[@]} CPUs (MULTI_SHARE=1); together unpinned"
  fi
  share_of() {
    ON_CPUS=()
    [ "$MULTI_SHARE" = 1 ] || return 0
    local list
    list=$(IFS=,; echo "${CPUS[*]:$(( $1 * share )):$share}")
    ON_CPUS=(taskset -c "$list")
  }
  [ "$MULTI_FIO" = 1 ] && { command -v fio >/dev/null || apt-get install -y fio >/dev/null 2>&1 \
    || die "fio is missing: apt-get install fio"; }
  printf '  %5s %14s %14s %7s %12s %12s\n' round "sum alone" together ratio "CPUs alone" \
    "CPUs togeth."
  for round in $(seq "$MULTI_ROUNDS"); do
    alone=0
    cpus=""
    for n in "${!DEVS[@]}"; do
      d=${DEVS[$n]}
      share_of "$n"
      read -r i c < <(run "$d" "$MULTI_ENGINE" "$MULTI_QD" "$MULTI_SECONDS" \
        "$WORK/a-$round-${d##*/}")
      alone=$(echo "$alone + $i" | bc -l)
      cpus="$cpus${cpus:+ + }$(printf '%.2f' "$c")"
    done
    ON_CPUS=()
    list=$(IFS=,; echo "${DEVS[*]}")
    together=$(perf stat -x, -e task-clock -o "$WORK/t-$round.perf" -- "$SSDFADE" measure \
      "${DEVS[@]}" --destroy-data "$list" --engine "$MULTI_ENGINE" --qd "$MULTI_QD" --bs 4k \
      --duration "${MULTI_SECONDS}s" --interval 1s --json --out "$WORK/t-$round" 2>/dev/null \
      | jq -r '[.members[].iops] | add')
    ctog=$(awk -F, '$3=="task-clock" {print $1 / 1000 / '"$MULTI_SECONDS"'}' "$WORK/t-$round.perf")
    ratio=$(echo "$together / $alone" | bc -l)
    printf '  %5d %14.0f %14.0f %7.3f %12s %12.2f\n' "$round" "$alone" "$together" "$ratio" \
      "$cpus" "$ctog"
    echo "$ratio" >> "$WORK/ratios"
    if [ "$MULTI_FIO" = 1 ]; then
      alone=0
      for n in "${!DEVS[@]}"; do
        share_of "$n"
        alone=$(echo "$alone + $(fio_iops "$MULTI_SECONDS" "${DEVS[$n]}")" | bc -l)
      done
      ON_CPUS=()
      together=$(fio_iops "$MULTI_SECONDS" "${DEVS[@]}")
      ratio=$(echo "$together / $alone" | bc -l)
      printf '  %5s %14.0f %14.0f %7.3f\n' "fio" "$alone" "$together" "$ratio"
      echo "$ratio" >> "$WORK/fio-ratios"
    fi
  done
  if [ "$MULTI_FIO" = 1 ]; then
    printf '  fio together ÷ alone: min %.3f median %.3f max %.3f\n' \
      "$(sort -g "$WORK/fio-ratios" | head -1)" "$(median < "$WORK/fio-ratios")" \
      "$(sort -g "$WORK/fio-ratios" | tail -1)"
  fi
  printf '  together ÷ alone: min %.3f median %.3f max %.3f\n' \
    "$(sort -g "$WORK/ratios" | head -1)" "$(median < "$WORK/ratios")" \
    "$(sort -g "$WORK/ratios" | tail -1)"
  if [ "$MULTI_THREADS" = 1 ]; then
    echo "  CPUs kept busy per kind of thread (user, system), ${DEVS[0]} alone and all together:"
    for set in alone together; do
      devs=("${DEVS[@]}")
      [ "$set" = alone ] && devs=("${DEVS[0]}")
      list=$(IFS=,; echo "${devs[*]}")
      echo "    ssdfade, $set:"
      thread_cpu "$MULTI_SECONDS" "$SSDFADE" measure "${devs[@]}" --destroy-data "$list" \
        --engine "$MULTI_ENGINE" --qd "$MULTI_QD" --bs 4k --duration "${MULTI_SECONDS}s" \
        --interval 1s --json --out "$WORK/threads-$set"
      if [ "$MULTI_FIO" = 1 ]; then
        echo "    fio, $set:"
        read -r -a cmd < <(fio_cmd "$MULTI_SECONDS" "${devs[@]}")
        thread_cpu "$MULTI_SECONDS" "${cmd[@]}"
      fi
    done
  fi
fi
