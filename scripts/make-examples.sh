#!/usr/bin/env bash
# Regenerates results/examples/: the Vertex 2 protocol on the simulated Vertex 2, on the
# simulated enterprise drive and on a RAM device (zram, needs root), a queue-depth sweep, SNIA
# WSAT and HIR on a simulated drive, three tests of the SNIA PTS suite (latency, XSR, DIRTH) and
# CrystalDiskMark's set on the simulated NVMe drive; each with its charts and report.
# To keep the examples small enough to commit, the simulated drives' state files and the
# per-phase charts are removed (the experiment-level charts and report stay; `ssdfade plot`
# redraws any phase from its samples).   Usage: scripts/make-examples.sh   (~5 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/ssdfade
out=results/examples
rm -rf "$out"
mkdir -p "$out"

"$bin" experiment vertex2 --seed 910 --out "$out/vertex2-sim"
"$bin" experiment vertex2 'sim:dc-ssd-400g' --seed 910 --soak-duration 1h --out "$out/vertex2-dc-ssd-400g"
"$bin" sweep 'sim:vertex2-60g,aged=0s,scale=8' --qd 1,2,4,8,16,32 --bs 8k --read-pct 67 \
    --random-pct 70 --point-duration 20s --seed 910 --out "$out/sweep-qd-sim"
"$bin" experiment wsat 'sim:vertex2-60g,scale=16' --seed 910 --out "$out/wsat-sim"
"$bin" experiment hir 'sim:vertex2-60g,scale=16' --bursts 1 --seed 910 --out "$out/hir-sim"
"$bin" experiment slc-cache 'sim:sata-tlc-1t,capacity=250GB,scale=64' \
    --seed 910 --out "$out/slc-cache-sim" > "$out/slc-cache-sim.txt"
"$bin" experiment pts 'sim:dc-ssd-400g,capacity=8GB,scale=64' --tests lat,xsr,dirth --round 1s \
    --seed 910 --out "$out/pts-sim"
"$bin" measure 'sim:nvme-tlc-1t,scale=16' --preset cdm --seed 910 --out "$out/cdm-nvme-sim" \
    > "$out/cdm-nvme-sim.txt"

if [ "$(id -u)" = 0 ] && [ -e /sys/class/zram-control/hot_add ]; then
    . scripts/lib/ram-devices.sh
    new_zram 2G
    dev=$RAM_DEV
    "$bin" experiment vertex2 "$dev" --destroy-data "$dev" --measure-duration 10s \
        --soak-duration 2m --soak-interval 1s --seed 910 --out "$out/vertex2-zram"
else
    echo "make-examples: skipping the RAM-device example (needs root and zram)" >&2
fi

find "$out" -name drive.sim -delete
find "$out" -mindepth 3 \( -name '*.png' -o -name '*.chart.json' \) -delete
du -sh "$out"
