#!/usr/bin/env bash
# The seed experiment on the full-size simulated OCZ Vertex 2 60 GB, through the CLI:
# as pulled from 4 months of ZIL service, secure erase, 8 hours of random writes, second secure
# erase, and repeating-bytes data; every step uses the seed's access specification (4 KiB,
# 100 % random writes, QD128, 512-byte alignment) and prints IOPS next to the seed's figure.
# Usage: scripts/sim-seed-protocol.sh [extra sim options, e.g. ,scale=8]   (~1 minute)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/ssdfade
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target="sim:vertex2-60g${1:-},state=$work/vertex2.sim"
spec=(--align 512 --qd 128 --seed 910 --json)

iops() { python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["iops"])'; }
step() { # name, seed figure, command...
    local name=$1 seed=$2
    shift 2
    printf '%-36s %8s IOPS   (seed %s)\n' "$name" "$("$@" | iops)" "$seed"
}

echo "target $target"
step "as pulled (4 months of ZIL service)" 4300 "$bin" measure "$target" "${spec[@]}" --out "$work/m1"
"$bin" erase "$target" --method sim --out "$work/e1" >/dev/null
step "after a secure erase" 6000 "$bin" measure "$target" "${spec[@]}" --out "$work/m2"
"$bin" soak "$target" "${spec[@]}" --duration 8h --interval 60s --out "$work/soak" >/dev/null
step "after 8 hours of random writes" 910 "$bin" measure "$target" "${spec[@]}" --out "$work/m3"
"$bin" erase "$target" --method sim --out "$work/e2" >/dev/null
step "after a second secure erase" 4000 "$bin" measure "$target" "${spec[@]}" --out "$work/m4"
"$bin" info "$target" | grep -iE "wear|P/E|throttl|written" || true
echo
fresh="sim:vertex2-60g${1:-}"
step "as pulled, 512 B random data" 4700 "$bin" measure "$fresh" "${spec[@]}" --bs 512 --out "$work/r1"
step "as pulled, 512 B repeating bytes" 7000 "$bin" measure "$fresh" "${spec[@]}" --bs 512 --pattern repeat --out "$work/r2"
