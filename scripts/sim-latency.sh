#!/usr/bin/env bash
# Per-I/O latency of the full-size simulated OCZ Vertex 2 60 GB at QD1, QD32 and QD128, after a
# secure erase and after 8 further hours of random writes (the seed's access specification
# otherwise: 4 KiB, 100 % random writes, 512-byte alignment, incompressible data, seed 910).
# Each queue depth measures one simulated minute on its own copy of the drive, so the three
# see the same state. Prints a Markdown table (latencies in ms).
# Usage: scripts/sim-latency.sh [extra sim options, e.g. ,scale=8]   (~1 minute)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/ssdfade
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
drive=$work/vertex2.sim
target() { echo "sim:vertex2-60g${1:-},state=$2"; }
spec=(--align 512 --seed 910 --json)

row() { # state name, extra sim options
    for qd in 1 32 128; do
        cp "$drive" "$work/copy.sim"
        "$bin" measure "$(target "$2" "$work/copy.sim")" "${spec[@]}" --qd "$qd" --out "$work/m-$qd" |
            python3 -c '
import json, sys
s = json.load(sys.stdin); l = s["write_lat_us"]
print("| %s | %d | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (sys.argv[1], int(sys.argv[2]), s["iops"],
      l["mean"] / 1e3, l["p50"] / 1e3, l["p99"] / 1e3, l["p999"] / 1e3, l["max"] / 1e3))' "$1" "$qd"
        rm -rf "$work/m-$qd"
    done
}

echo "| state | QD | IOPS | mean | p50 | p99 | p99.9 | max |"
echo "|---|---|---|---|---|---|---|---|"
"$bin" erase "$(target "${1:-}" "$drive")" --method sim --out "$work/e1" >/dev/null
row "after a secure erase" "${1:-}"
"$bin" soak "$(target "${1:-}" "$drive")" "${spec[@]}" --qd 128 --duration 8h --interval 60s --out "$work/soak" >/dev/null
row "after 8 h of random writes" "${1:-}"
