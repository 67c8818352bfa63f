#!/usr/bin/env bash
# Validates the early steady-state prediction: soaks of uniform random writes on the simulated
# presets stopped after F drive writes (the same seed as scripts/fast-precondition-validate.sh,
# so each is a prefix of its slow run), their run.json prediction against the slow run's
# settled IOPS. Run scripts/fast-precondition-validate.sh OUT first.
#
# usage: scripts/predict-validate.sh OUT [F…]   (env: SSDFADE, JOBS)
set -euo pipefail
out=${1:?usage: scripts/predict-validate.sh OUT [F…]}
shift
fills=("${@:-1.25 1.5}")
read -r -a fills <<<"${fills[*]}"
bin=${SSDFADE:-target/release/ssdfade}
jobs=${JOBS:-2}
jobs_file="$out/predict-jobs.txt"
: >"$jobs_file"
for slow in "$out"/*-slow; do
  id=$(basename "$slow" -slow)
  # The slow run's command line, stopped earlier.
  cmd=$(python3 -c "import json,shlex,sys; d=json.load(open('$slow/run.json')); print(' '.join(shlex.quote(a) for a in d['command_line'][1:]))")
  cap=$(python3 -c "import json; print(json.load(open('$slow/run.json'))['target']['identity']['size_bytes'])")
  for f in "${fills[@]}"; do
    bytes=$(python3 -c "print(int($cap * $f))")
    dir="$out/$id-at-$f"
    rm -rf "$dir"
    c=$(echo "$cmd" | sed -E "s/--bytes [0-9]+/--bytes $bytes/; s#--out [^ ]+#--out $dir#")
    echo "$bin $c >/dev/null 2>&1" >>"$jobs_file"
  done
done
xargs -P "$jobs" -I{} sh -c '{} || echo "failed: {}" >&2' <"$jobs_file"
python3 - "$out" "${fills[@]}" <<'PY'
import json, sys, os
out, fills = sys.argv[1], sys.argv[2:]
print("| drive | span | bs | settled IOPS | " + " | ".join(f"predicted after {f} drive writes" for f in fills) + " |")
print("|---|---|---|---|" + "---|" * len(fills))
worst, dishonest = 0.0, 0
for slow in sorted(d for d in os.listdir(out) if d.endswith("-slow")):
    ss = [json.loads(l) for l in open(os.path.join(out, slow, "samples.jsonl"))]
    span = json.load(open(os.path.join(out, slow, "run.json")))["workload"]["span"]
    last = [x for x in ss if x["bytes_written_total"] > ss[-1]["bytes_written_total"] - span]
    ref = sum(x["ops"] for x in last) / sum(x["t_end_s"] - x["t_start_s"] for x in last)
    cells = []
    for f in fills:
        p = json.load(open(os.path.join(out, slow[:-5] + f"-at-{f}", "run.json"))).get("prediction")
        if not p:
            cells.append("none yet")
            continue
        err = (p["iops"] / ref - 1) * 100
        inside = p["low"] <= ref <= p["high"]
        dishonest += not inside
        if f == fills[-1]:
            worst = max(worst, abs(err))
        cells.append(f"{p['iops']:.0f} ± {p['half_width_pct']:.1f} % ({err:+.1f} %{'' if inside else ', outside'})")
    name = slow[:-5].rsplit("-", 2)
    print(f"| {name[0]} | {name[1]} % | {name[2]} | {ref:.0f} | " + " | ".join(cells) + " |")
print(f"\nworst error after {fills[-1]} drive writes: {worst:.1f} %; settled IOPS outside the interval: {dishonest}")
PY
