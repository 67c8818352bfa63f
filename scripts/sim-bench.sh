#!/usr/bin/env bash
# Speed of the simulated SSD model (a benchmark that prints figures, not a test):
#  1. simulated 4 KiB random host writes per second on the full-size 60 GB vertex2-60g model
#     at QD128, over two drive-fills from new and over eight (into steady-state GC);
#  2. wall time and peak memory of an 8-hour soak of sim:vertex2-60g through the CLI.
# Usage: scripts/sim-bench.sh   (builds the release binary first)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/ssdfade
pages=14648437

echo "== model speed (one core) =="
$bin sim bench 'sim:vertex2-60g,aged=0s'
$bin sim bench 'sim:vertex2-60g,aged=0s' --writes $((8 * pages))
$bin sim bench 'sim:vertex2-60g,aged=0s' --align 512

echo
echo "== ssdfade soak 'sim:vertex2-60g' --duration 8h (seed protocol: 512-byte alignment) =="
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/time -f "wall %e s, CPU %U s user + %S s system, peak RSS %M KiB" \
    $bin soak 'sim:vertex2-60g' --duration 8h --align 512 --seed 910 --out "$out/run" --json >"$out/summary.json"
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
print("soak: %.0f IOPS average over 8 simulated hours, %d I/Os" % (s["iops"], s["ops"]))
last = [json.loads(l) for l in open(d + "/run/samples.jsonl")][-2]
print("last full interval (t = %.0f s): %.0f IOPS, p99 latency %.0f ms"
      % (last["t_end_s"], last["iops"], last["lat_us"]["p99"] / 1000))
PY
