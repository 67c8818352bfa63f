#!/usr/bin/env bash
# Validates `experiment op-sweep` against plain soaks: for two simulated presets, an op-sweep at
# 100 %, 90 %, 80 % and 75 % spans, and for each span a plain soak of uniform random writes from
# a fresh (purged) drive, long enough to settle (REF_FILLS writes of the span; its steady IOPS =
# the mean over its last write of the span). Prints a markdown table: the op-sweep's steady
# IOPS per span against the plain soak's; and against a soak of the span from a purged drive run
# until SNIA's steady-state test passes (the slow way: no fast preconditioning), its steady IOPS
# and p99 pooled over SNIA's window as the op-sweep pools them. Then `sim fit` of each drive's
# 100 % plain soak and the op-sweep `--on-twin` that twin, against the drive's own op-sweep.
#
# usage: scripts/op-sweep-validate.sh [OUT_DIR]   (env: SSDFADE, REF_FILLS, JOBS, REPORT_ONLY=1)
set -euo pipefail
out=${1:-/tmp/ssdfade-op-sweep-validate}
bin=${SSDFADE:-target/release/ssdfade}
ref_fills=${REF_FILLS:-8}
jobs=${JOBS:-2}
mkdir -p "$out"

# A purged vertex2 with its lifetime throttling off (the plain soak's extra writes would be
# throttled), and dc-ssd-400g; scale= keeps each run to seconds.
# target | spans | transfer size
targets=(
  "sim:vertex2-60g,aged=0s,throttle=off,scale=16|100 90 80 75|4k"
  "sim:dc-ssd-400g,scale=32|100 90 80 75|4k"
  "sim:sata-tlc-1t,capacity=250G,scale=16|100 85 70 60|16k"
)

jobs_file="$out/jobs.txt"
: >"$jobs_file"
twin_jobs=()
for t in "${targets[@]}"; do
  IFS='|' read -r target span_list bs <<<"$t"
  read -ra spans <<<"$span_list"
  name=${target#sim:}; name=${name%%,*}
  list=$(IFS=,; echo "${spans[*]/%/%}")
  echo "$bin experiment op-sweep '$target' --span $list --bs $bs --seed 1 --max-duration 30d --out $out/$name-op-sweep --json >$out/$name-op-sweep.json 2>/dev/null" >>"$jobs_file"
  cap=$("$bin" info "$target" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size_bytes"])')
  for pct in "${spans[@]}"; do
    span=$((cap / 100 * pct / 65536 * 65536))
    echo "$bin soak '$target' --span $span --bs $bs --align $bs --seed 1 --bytes $((span * ref_fills)) --out $out/$name-$pct-plain --json >/dev/null 2>&1" >>"$jobs_file"
    echo "$bin soak '$target' --span $span --bs $bs --align $bs --seed 1 --until-steady --duration 30d --out $out/$name-$pct-snia --json >/dev/null 2>&1" >>"$jobs_file"
  done
  twin_jobs+=("$bin sim fit $out/$name-100-plain -o $out/$name-twin.toml >$out/$name-fit.txt 2>&1 && $bin experiment op-sweep '$target' --on-twin $out/$name-twin.toml --span $list --bs $bs --seed 1 --max-duration 30d --out $out/$name-on-twin --json >$out/$name-on-twin.json 2>/dev/null")
done
if [ -z "${REPORT_ONLY:-}" ]; then
  rm -rf "$out"/*-plain "$out"/*-snia "$out"/*-op-sweep "$out"/*-on-twin
  start=$(date +%s)
  xargs -P "$jobs" -I{} sh -c '{} || echo "failed: {}" >&2' <"$jobs_file"
  printf '%s\n' "${twin_jobs[@]}" | xargs -P "$jobs" -I{} sh -c '{} || echo "failed: {}" >&2'
  echo "ran $(($(wc -l <"$jobs_file") + ${#twin_jobs[@]})) jobs in $(($(date +%s) - start)) s (wall)" >&2
fi

python3 - "$out" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
def interval_cdf(l, x):
    knots = [(0.0, 0.0), (l["p50"], 0.5), (l["p99"], 0.99), (l["p999"], 0.999), (max(l["max"], l["p999"]), 1.0)]
    if x >= knots[4][0]:
        return 1.0
    for i in range(4):
        (x0, f0), (x1, f1) = knots[i], knots[i + 1]
        if x < x1:
            if x1 <= x0:
                return f1
            share = max(x - x0, 0.0) / (x1 - x0)
            if i in (1, 2):
                return 1.0 - (1.0 - f0) * ((1.0 - f1) / (1.0 - f0)) ** share
            return f0 + (f1 - f0) * share
    return 1.0
def pooled(samples, q):
    # The same pooling as src/analysis/run.rs pooled_quantile.
    s = [x for x in samples if x.get("lat_us")]
    total = sum(x["ops"] for x in s)
    lo, hi = 0.0, max(x["lat_us"]["max"] for x in s)
    for _ in range(100):
        mid = (lo + hi) / 2
        if sum(x["ops"] * interval_cdf(x["lat_us"], mid) for x in s) / total < q:
            lo = mid
        else:
            hi = mid
    return hi
def snia(d):
    r = json.load(open(os.path.join(d, "run.json")))
    st = r.get("steady_state") or {}
    if not st.get("reached"):
        return None, None, None
    w = st["window"]
    ss = [json.loads(l) for l in open(os.path.join(d, "samples.jsonl"))]
    inw = [x for x in ss if x["t_start_s"] >= w["start_s"] - 1e-6 and x["t_end_s"] <= w["end_s"] + 1e-6]
    return st["iops"], pooled(inw, 0.99) / 1000, st.get("drive_fills")
fmt = lambda x, f: "-" if x is None else format(x, f)
rel = lambda a, b: (a / b - 1) * 100 if a and b else float("nan")
print("| drive | bs | span | op-sweep steady IOPS | plain soak steady IOPS | diff | SNIA soak steady IOPS (drive writes) | diff | op-sweep p99 ms | SNIA soak p99 ms | diff |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
worst = 0.0
worst_snia = 0.0
worst_p99 = 0.0
advice = []
twin_rows = []
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
        s_iops, s_p99, s_dw = snia(os.path.join(out, f"{name}-{pct}-snia"))
        d_iops, d_p99 = rel(got, s_iops), rel(p["p99_ms"], s_p99)
        if s_iops:
            worst_snia = max(worst_snia, abs(d_iops))
            worst_p99 = max(worst_p99, abs(d_p99))
        bs = json.load(open(os.path.join(d, "run.json")))["workload"]["bs"] // 1024
        print(f"| {name} | {bs}k | {pct} % | {got:.0f} | {ref:.0f} | {diff:+.1f} % | {fmt(s_iops, '.0f')} ({fmt(s_dw, '.2f')}) | {d_iops:+.1f} % | {p['p99_ms']:.2f} | {fmt(s_p99, '.2f')} | {d_p99:+.1f} % |")
    advice.append(f"{name} advice: {v['advice']['line'] if v.get('advice') else 'none'}")
    t = os.path.join(out, f"{name}-on-twin.json")
    if os.path.exists(t) and os.path.getsize(t):
        tw = {q["name"]: q for q in json.load(open(t))["points"]}
        for p in v["points"]:
            q = tw.get(p["name"], {})
            twin_rows.append(f"| {name} | {p['name'][4:-3]} % | {fmt(p['iops'], '.0f')} | {fmt(q.get('iops'), '.0f')} | {rel(q.get('iops'), p['iops']):+.1f} % | {fmt(p['p99_ms'], '.2f')} | {fmt(q.get('p99_ms'), '.2f')} | {rel(q.get('p99_ms'), p['p99_ms']):+.1f} % |")
        tv = json.load(open(t))
        advice.append(f"{name} on its twin: {tv['advice']['line'] if tv.get('advice') else 'none'}")
print()
print("\n".join(advice))
print(f"worst difference of the steady IOPS: {worst:.1f} % (plain soak), {worst_snia:.1f} % (SNIA soak); of the p99: {worst_p99:.1f} %")
if twin_rows:
    print()
    print("| drive | span | op-sweep steady IOPS | on its twin | diff | op-sweep p99 ms | on its twin | diff |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(twin_rows))
PY
