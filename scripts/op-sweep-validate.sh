#!/usr/bin/env bash
# Validates `experiment op-sweep` against plain soaks: for two simulated presets, an op-sweep at
# 100 %, 90 %, 80 % and 75 % spans, and for each span a plain soak of uniform random writes from
# a fresh (purged) drive, long enough to settle (REF_FILLS writes of the span; its steady IOPS =
# the mean over its last write of the span). Prints a markdown table: the op-sweep's steady
# IOPS per span against the plain soak's.
#
# usage: scripts/op-sweep-validate.sh [OUT_DIR]   (env: SSDFADE, REF_FILLS, JOBS)
set -euo pipefail
out=${1:-/tmp/ssdfade-op-sweep-validate}
bin=${SSDFADE:-target/release/ssdfade}
ref_fills=${REF_FILLS:-8}
jobs=${JOBS:-2}
mkdir -p "$out"

# A purged vertex2 with its lifetime throttling off (the plain soak's extra writes would be
# throttled), and dc-ssd-400g; scale= keeps each run to seconds.
targets=(
  "sim:vertex2-60g,aged=0s,throttle=off,scale=16"
  "sim:dc-ssd-400g,scale=32"
)
spans=(100 90 80 75)

jobs_file="$out/jobs.txt"
: >"$jobs_file"
for target in "${targets[@]}"; do
  name=${target#sim:}; name=${name%%,*}
  list=$(IFS=,; echo "${spans[*]/%/%}")
  echo "$bin experiment op-sweep '$target' --span $list --seed 1 --max-duration 30d --out $out/$name-op-sweep --json >$out/$name-op-sweep.json 2>/dev/null" >>"$jobs_file"
  cap=$("$bin" info "$target" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size_bytes"])')
  for pct in "${spans[@]}"; do
    span=$((cap / 100 * pct / 4096 * 4096))
    echo "$bin soak '$target' --span $span --seed 1 --bytes $((span * ref_fills)) --out $out/$name-$pct-plain --json >/dev/null 2>&1" >>"$jobs_file"
  done
done
if [ -z "${REPORT_ONLY:-}" ]; then
  rm -rf "$out"/*-plain "$out"/*-op-sweep
  start=$(date +%s)
  xargs -P "$jobs" -I{} sh -c '{} || echo "failed: {}" >&2' <"$jobs_file"
  echo "ran $(wc -l <"$jobs_file") jobs in $(($(date +%s) - start)) s (wall)" >&2
fi

python3 - "$out" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
print("| drive | span | op-sweep steady IOPS | plain soak steady IOPS | diff | op-sweep p99 ms | plain soak: largest interval p99 ms in its last span write |")
print("|---|---|---|---|---|---|---|")
worst = 0.0
advice = []
for f in sorted(glob.glob(os.path.join(out, "*-op-sweep.json"))):
    name = os.path.basename(f)[: -len("-op-sweep.json")]
    v = json.load(open(f))
    for p in v["points"]:
        pct = p["name"][len("span"):-len("pct")]
        d = os.path.join(out, f"{name}-{pct}-plain")
        span = json.load(open(os.path.join(d, "run.json")))["workload"]["span"]
        ss = [json.loads(l) for l in open(os.path.join(d, "samples.jsonl"))]
        last = [x for x in ss if x["bytes_written_total"] > ss[-1]["bytes_written_total"] - span]
        ref = sum(x["ops"] for x in last) / sum(x["t_end_s"] - x["t_start_s"] for x in last)
        p99 = max(x["lat_us"]["p99"] for x in last if x.get("lat_us")) / 1000
        got = p["iops"]
        diff = (got / ref - 1) * 100 if got else float("nan")
        worst = max(worst, abs(diff))
        print(f"| {name} | {pct} % | {got:.0f} | {ref:.0f} | {diff:+.1f} % | {p['p99_ms']:.2f} | {p99:.2f} |")
    advice.append(f"{name} advice: {v['advice']['line'] if v.get('advice') else 'none'}")
print()
print("\n".join(advice))
print(f"worst difference of the steady IOPS: {worst:.1f} %")
PY
