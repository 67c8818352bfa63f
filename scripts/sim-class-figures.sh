#!/usr/bin/env bash
# The simulated presets against the published figures of the drive classes they stand for,
# through the CLI, under the reviews' own protocols: fresh drive, 4 KiB random writes at QD32;
# sequential 128 KiB writes; steady state after hours of random writes, sampled each second.
# Prints each figure next to the published one. Usage: scripts/sim-class-figures.sh  (~1 minute)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=$PWD/target/release/ssdfade
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # ssdfade arguments...; prints the summary JSON and leaves the run in $work/last
    rm -rf "$work/last"
    "$bin" "$@" --json --out "$work/last" >"$work/s.json"
    cat "$work/s.json"
}
iops() { python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["iops"])'; }
mbs() { python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["mb_per_s"])'; }
spread() { # 1-second IOPS of the last run: mean, p5 and p95 over the mean
    python3 - "$work/last/samples.jsonl" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
v = sorted(x["iops"] for x in s if "iops" in x and x["t_end_s"] - x["t_start_s"] > 0.99)
m = sum(v) / len(v)
q = lambda p: v[round(p * (len(v) - 1))] / m
print("%.0f IOPS, 1-second p5 %.2f× p95 %.2f× the mean" % (m, q(0.05), q(0.95)))
PY
}
line() { printf '%-58s %s\n' "$1" "$2"; }

echo "== dc-ssd-400g (Intel DC S3700 400 GB class; spec: 36 k steady / 75 k / 460 MB/s) =="
line "fresh, 4 KiB random writes QD32 (IOPS)" "$(run measure 'sim:dc-ssd-400g' --qd 32 --duration 60s | iops)"
line "fresh, 128 KiB sequential writes QD32 (MB/s)" "$(run measure 'sim:dc-ssd-400g' --qd 32 --bs 128k --random-pct 0 --duration 60s | mbs)"
dc="sim:dc-ssd-400g,scale=16,state=$work/dc.sim"
run soak "$dc" --qd 32 --duration 4h --interval 600s >/dev/null
run measure "$dc" --qd 32 --duration 300s --interval 1s >/dev/null
line "after 4 h of 4 KiB random writes, QD32" "$(spread)"

echo "== nvme-tlc-1t (1 TB TLC NVMe with SLC cache; reviews: GB/s into the cache, 0.4-1.5 GB/s after) =="
run measure 'sim:nvme-tlc-1t' --qd 32 --bs 128k --random-pct 0 --duration 60s --interval 10s >/dev/null
python3 - "$work/last/samples.jsonl" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
s = [x for x in s if "mb_per_s" in x]
print("%-58s %.0f MB/s, then %.0f MB/s" % ("fresh, 128 KiB sequential writes: first / last 10 s", s[0]["mb_per_s"], s[-1]["mb_per_s"]))
PY
nv="sim:nvme-tlc-1t,scale=64,state=$work/nv.sim"
run soak "$nv" --qd 32 --duration 3h --interval 600s >/dev/null
run measure "$nv" --qd 32 --duration 300s --interval 1s >/dev/null
line "after 3 h of 4 KiB random writes, QD32" "$(spread)"

echo "== vertex2-60g, factory new (SF-1200 reviews: ~40 k compressible / ~30 k random data) =="
v2='sim:vertex2-60g,aged=0s,scale=8'
line "4 KiB random writes QD32, aligned, repeating bytes (IOPS)" "$(run measure "$v2" --qd 32 --pattern repeat | iops)"
line "4 KiB random writes QD32, aligned, random data (IOPS)" "$(run measure "$v2" --qd 32 | iops)"
line "4 KiB random writes QD32, 512-byte aligned, random data" "$(run measure "$v2" --qd 32 --align 512 | iops)"
v2s="sim:vertex2-60g,scale=2,state=$work/v2.sim"
run soak "$v2s" --align 512 --duration 8h --interval 600s >/dev/null
run measure "$v2s" --align 512 --duration 180s --interval 1s >/dev/null
line "as pulled + 8 h of the seed's writes, then 1-second samples" "$(spread)"
