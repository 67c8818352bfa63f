#!/usr/bin/env bash
# Plants one-line bugs in derived figures and drawn series, one at a time, in a temporary copy
# of the source (this checkout's HEAD), and runs the oracle tests (tests/oracle.rs,
# tests/chart_records.rs) on each: prints a table "mutation | caught by" naming the tests that
# failed. A mutation no test catches is a hole in the oracle.
#
#   scripts/plant-bugs.sh             every mutation (a release build of the library each:
#                                     3-8 minutes on a busy 2-core machine)
#   scripts/plant-bugs.sh 1 4 7       only mutations 1, 4 and 7
#
# The build directory starts as a copy of target/release, so that only ssdfade itself is
# rebuilt, and ssdfade is built incrementally, so that after the first mutation only what a
# one-line change touches is; the copy is removed at the end. The label-layout test of
# chart_records (no figures, minutes of runs) is skipped.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/plant-bugs.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Each mutation: name, file, the one line as written, the line planted instead.
mutations=(
  "steady window off by one round (its start a round late)"
  src/stats/steady.rs
  "        start_s: rounds[0].start_s,"
  "        start_s: rounds[1].start_s,"

  "HIR baseline the mean of the returns, not their median"
  src/analysis/hir.rs
  "            baseline_iops: super::fade::median(wait_states.iter().filter_map(|w| w.baseline_iops)),"
  "            baseline_iops: { let v: Vec<f64> = wait_states.iter().filter_map(|w| w.baseline_iops).collect(); (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64) },"

  "downsample drops the last point"
  src/plot/downsample.rs
  "        out.push(points[n - 1]);"
  "        let _ = n;"

  "exceedance shifted one bucket (each top given the share above the bucket before)"
  src/analysis/latency.rs
  "            points.push((top, (self.count - seen) as f64 / total));"
  "            points.push((top, (self.count - seen + n) as f64 / total));"

  "percentile off by one bucket (rank passed, not reached)"
  src/analysis/latency.rs
  "            if seen >= rank {"
  "            if seen > rank {"

  "compare draws every run from the first run's samples"
  src/report/compare.rs
  "                points: crate::analysis::drawn_intervals(&run.samples, run.info.workload.interval)"
  "                points: crate::analysis::drawn_intervals(&runs[0].samples, run.info.workload.interval)"

  "sweep chart draws each QD at the next QD's level"
  src/plot/sweep.rs
  "            let points: Vec<(f64, f64)> = line.iter().map(|p| (p.qd as f64, pick(p))).collect();"
  "            let points: Vec<(f64, f64)> = line.iter().zip(line.iter().skip(1).chain(line.last())).map(|(p, q)| (p.qd as f64, pick(q))).collect();"

  "fade % inverted (fresh over faded)"
  src/analysis/fade.rs
  "            end_pct_of_start: FadeRatio::new(start, end).map_or(0.0, |r| r.pct_of_fresh),"
  "            end_pct_of_start: FadeRatio::new(end, start).map_or(0.0, |r| r.pct_of_fresh),"

  "steady state's drift sign flipped (did not hold: +66 % for -66 %)"
  src/stats/steady.rs
  "        let drift = 100.0 * (last.avg - steady.avg) / steady.avg;"
  "        let drift = 100.0 * (steady.avg - last.avg) / steady.avg;"

  "prediction interval halved (each end half as far from the level)"
  src/analysis/predict.rs
  "        let (low, high) = (low.min(iops), high.max(iops));"
  "        let (low, high) = ((low.min(iops) + iops) / 2.0, (high.max(iops) + iops) / 2.0);"

  "greedy-GC prediction's interval half as wide (its half-width halved)"
  src/analysis/predict.rs
  "    let half = (around_origin + spread) / y_inf;"
  "    let half = (around_origin + spread) / 2.0 / y_inf;"

  "thermal: throttled above the hottest throttled interval's temperature, not the coolest's"
  src/analysis/thermal.rs
  "                above = Some(above.map_or(t, |a: f64| a.min(t)));"
  "                above = Some(above.map_or(t, |a: f64| a.max(t)));"

  "thermal minutes leave out each throttled span's first interval"
  src/analysis/thermal.rs
  "            throttled_s += s.t_end_s - s.t_start_s;"
  "            throttled_s += if spans.last().is_some_and(|l: &(f64, f64)| (l.1 - s.t_start_s).abs() < 1e-6) { s.t_end_s - s.t_start_s } else { 0.0 };"

  "heat chart draws each temperature at its interval's start"
  src/plot/heat.rs
  "                .filter_map(|s| Some((s.t_end_s, s.health.as_ref()?.temperature_c?)))"
  "                .filter_map(|s| Some((s.t_start_s, s.health.as_ref()?.temperature_c?)))"

  "trim summary from the writes' counters (copied line)"
  src/results/summary.rs
  "            trim: (total.trim.ops > 0).then(|| DirSample::of(&total.trim, seconds)),"
  "            trim: (total.trim.ops > 0).then(|| DirSample::of(&total.write, seconds)),"

  "PTS five nines from the window's first round's histogram, not all its rounds merged"
  src/analysis/pts.rs
  "            .and_then(|h| Distribution::merged(&h))"
  "            .and_then(|h| Distribution::merged(&h[..1]))"

  "xsr.png marks each segment's recovery at its band's top, not its level"
  src/plot/xsr.rs
  "                let at = ((s.start_s + r) / unit.seconds, s.level_mb_per_s);"
  "                let at = ((s.start_s + r) / unit.seconds, s.band_high_mb_per_s);"
)
count=$((${#mutations[@]} / 4))
if [ $# -gt 0 ]; then chosen=("$@"); else chosen=($(seq 1 "$count")); fi

echo "plant-bugs: copying the source (HEAD $(git -C "$repo" rev-parse --short HEAD)) and target/release to $work" >&2
git -C "$repo" archive HEAD | tar -x -C "$work/"
mkdir -p "$work/target"
# A file a concurrent build replaces while it is copied is left out (and rebuilt).
cp -a "$repo/target/release" "$work/target/" 2>/dev/null ||
  echo "plant-bugs: some build files changed while copied; they are rebuilt" >&2

# Replaces the one line `old` of `file` (it must occur exactly once) by `new`.
plant() {
  OLD="$2" NEW="$3" python3 - "$work/$1" <<'EOF'
import os, sys
path = sys.argv[1]
text = open(path).read()
old, new = os.environ["OLD"], os.environ["NEW"]
if text.count(old + "\n") != 1:
    sys.exit(f"{path}: the line to mutate occurs {text.count(old + chr(10))} times: {old!r}")
open(path, "w").write(text.replace(old + "\n", new + "\n"))
EOF
}

table="| # | mutation | caught by |"$'\n'"|---|---|---|"
for i in "${chosen[@]}"; do
  base=$(((i - 1) * 4))
  name=${mutations[$base]} file=${mutations[$((base + 1))]}
  cp "$work/$file" "$work/$file.orig"
  plant "$file" "${mutations[$((base + 2))]}" "${mutations[$((base + 3))]}"
  echo "plant-bugs: [$i] $name ($file)" >&2
  log="$work/mutation-$i.log"
  start=$(date +%s)
  (cd "$work" && CARGO_PROFILE_RELEASE_INCREMENTAL=true cargo test --release \
    --test oracle --test chart_records -- --skip no_label_of_any_chart 2>&1) >"$log" || true
  caught=$( (grep -E '^test .* \.\.\. FAILED$' "$log" || true) | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' | paste -sd, - | sed 's/,/, /g')
  if grep -q 'could not compile' "$log"; then
    caught="(does not build)"
  elif [ -z "$caught" ]; then
    caught="NOT CAUGHT"
  fi
  echo "plant-bugs: [$i] $(($(date +%s) - start)) s: $caught" >&2
  table+=$'\n'"| $i | $name | $caught |"
  mv "$work/$file.orig" "$work/$file"
done
echo "$table"
