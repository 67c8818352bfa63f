#!/usr/bin/env bash
# The per-second scatter of each simulated preset in steady state, against the shape of the
# published 4 KiB random write consistency charts of its class (AnandTech's "Performance
# Consistency" pages). Each preset is brought to steady state with 4 KiB random writes at QD32,
# then 1000 s more are sampled each second; the script prints the 1-second IOPS coefficient of
# variation (standard deviation / mean), percentiles p0.1, p1, p5, p50, p95 and p99 as
# fractions of the mean, the share of seconds under 10 % of the mean and within 0.8-1.2 x of it
# (a band holds most seconds there, a bimodal pattern few), p5 / p95 as fractions of the median
# and the seconds under half the median per 100 s (the reviews' dips), and the published shape
# beside them.
# Usage: scripts/sim-scatter-shape.sh [NAME]  (a few minutes; one preset: NAME; another build:
# SSDFADE_BIN=path/to/ssdfade scripts/sim-scatter-shape.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SSDFADE_BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${SSDFADE_BIN:-$PWD/target/release/ssdfade}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# preset | target options | preconditioning soak | published shape
presets=(
  "dc-ssd-400g|scale=16|4h|enterprise (Intel DC S3700): a tight band, 99.9 % of seconds >= 90 % of the mean"
  "nvme-tlc-1t|scale=64|3h|client TLC NVMe (AnandTech, Tom's Hardware): swings ± 30-50 % second to second, dips below"
  "sata-tlc-1t|scale=64|3h|Samsung client SATA (850 EVO): a band (5 000-8 000 IOPS at 250 GB), no stalls"
  "sata-tlc-250g|scale=16|3h|Samsung client SATA (850 EVO 250 GB): 5 000-8 000 IOPS, no stalls"
  "vertex2-60g|scale=2|1h|SandForce: bimodal, seconds at two levels"
  "optane-375g|scale=64|1h|3D XPoint (P4800X): flat"
  "ram-8g|scale=16|10m|RAM log device: flat (no published chart)"
)

shape() { # samples.jsonl: the 1-second figures of the run
  python3 - "$1" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
v = sorted(x["iops"] for x in s if "iops" in x and x["t_end_s"] - x["t_start_s"] > 0.99)
m = sum(v) / len(v)
q = lambda p: v[min(len(v) - 1, int(p * len(v)))] / m
share = lambda lo, hi: 100 * sum(1 for x in v if lo * m <= x < hi * m) / len(v)
cv = (sum((x - m) ** 2 for x in v) / len(v)) ** 0.5 / m
med = v[len(v) // 2]
dips = 100 * sum(1 for x in v if x < 0.5 * med) / len(v)
print("mean %8.0f IOPS  CV %.3f  p0.1 %.2f  p1 %.2f  p5 %.2f  p50 %.2f  p95 %.2f  p99 %.2f  under 0.1x %.1f %%  0.8-1.2x %.0f %%  (%d s)"
      % (m, cv, q(0.001), q(0.01), q(0.05), q(0.5), q(0.95), q(0.99), share(0, 0.1), share(0.8, 1.2), len(v)))
print("             of the median: p5 %.2f  p95 %.2f  dips under 0.5x %.1f per 100 s"
      % (q(0.05) * m / med, q(0.95) * m / med, dips))
PY
}

for row in "${presets[@]}"; do
  IFS='|' read -r name opts soak published <<<"$row"
  [ $# -gt 0 ] && [ "$1" != "$name" ] && continue
  target="sim:$name,$opts,state=$work/$name.sim"
  "$bin" soak "$target" --qd 32 --duration "$soak" --interval 600s --seed 3 --json --out "$work/$name-soak" >/dev/null
  "$bin" measure "$target" --qd 32 --duration 1000s --interval 1s --seed 2 --json --out "$work/$name" >/dev/null
  printf '%-12s %s\n%-12s published: %s\n' "$name" "$(shape "$work/$name/samples.jsonl")" "" "$published"
done
