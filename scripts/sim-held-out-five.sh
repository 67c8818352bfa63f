#!/usr/bin/env bash
# Held-out round five: the simulated presets against published figures of drives of their
# classes that docs/simulator-presets.md did not use before (sources in its "Held-out round
# five" table), each through the command a user would run. Prints the simulated figure; the
# table puts the published one beside it.
# Usage: scripts/sim-held-out-five.sh  (a few minutes; another build: SSDFADE_BIN=path/to/ssdfade)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${SSDFADE_BIN:-}" ]; then
  cargo build --release --quiet
fi
bin=${SSDFADE_BIN:-$PWD/target/release/ssdfade}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { # ssdfade arguments...; prints the summary JSON, the run left in $work/last
    rm -rf "$work/last"
    "$bin" "$@" --json --out "$work/last"
}
pick() { # fields of the summary JSON on stdin: iops, mb_per_s, lat (mean/p50/p99/p99.9 µs)
    python3 -c '
import json, sys
s = json.load(sys.stdin)
out = []
for f in sys.argv[1:]:
    if f in ("lat", "read_lat", "write_lat"):
        l = s[f + "_us"]
        out.append("mean %.1f / p50 %.1f / p99 %.1f / p99.9 %.1f µs" % (l["mean"], l["p50"], l["p99"], l["p999"]))
    else:
        out.append("%s %.0f" % (f, s[f]))
print(", ".join(out))' "$@"
}
line() { printf '%-62s %s\n' "$1" "$2"; }

echo "== read latency at several loads, Optane-class writes, 70/30 =="
op="sim:optane-375g,scale=64,state=$work/op.sim"
run measure "$op" --bs 128k --random-pct 0 --qd 32 --bytes 375GB >/dev/null
line "optane-375g filled, 4 KiB random read QD16" "$(run measure "$op" --read-pct 100 --qd 16 --duration 10s --seed 1 | pick iops lat)"
line "optane-375g filled, 4 KiB random write QD1" "$(run measure "$op" --qd 1 --duration 10s --seed 1 | pick iops lat)"
line "optane-375g filled, 4 KiB random write QD16" "$(run measure "$op" --qd 16 --duration 10s --seed 1 | pick iops lat)"
line "optane-375g filled, 64 KiB sequential write QD16" "$(run measure "$op" --bs 64k --random-pct 0 --qd 16 --duration 10s --seed 1 | pick mb_per_s)"
o480="sim:optane-375g,capacity=480GB,scale=64,state=$work/o480.sim"
run measure "$o480" --bs 128k --random-pct 0 --qd 32 --bytes 480GB >/dev/null
line "optane-375g,capacity=480GB filled, 4 KiB random write QD32" "$(run measure "$o480" --qd 32 --duration 10s --seed 1 | pick iops)"
o750="sim:optane-375g,capacity=750GB,scale=64,state=$work/o750.sim"
run measure "$o750" --bs 128k --random-pct 0 --qd 32 --bytes 750GB >/dev/null
line "optane-375g,capacity=750GB filled, 70/30 QD16" "$(run measure "$o750" --read-pct 70 --qd 16 --duration 10s --seed 1 | pick iops)"

dc="sim:dc-ssd-400g,scale=64,state=$work/dc.sim"
run measure "$dc" --bs 128k --random-pct 0 --qd 32 --bytes 400GB >/dev/null
line "dc-ssd-400g filled, 4 KiB random read QD1" "$(run measure "$dc" --read-pct 100 --qd 1 --duration 10s --seed 1 | pick iops lat)"
line "dc-ssd-400g filled, 4 KiB random read QD32" "$(run measure "$dc" --read-pct 100 --qd 32 --duration 10s --seed 1 | pick iops lat)"
line "dc-ssd-400g filled, 4 KiB random write QD1" "$(run measure "$dc" --qd 1 --duration 10s --seed 1 | pick iops lat)"

echo "== post-cache sequential writes (128 KiB QD32 from empty, 10 s samples: first / last) =="
fill() { # target, bytes: the first and last 10-second sample of a sequential fill
    run measure "$1" --bs 128k --random-pct 0 --qd 32 --bytes "$2" --interval 10s >/dev/null
    python3 - "$work/last/samples.jsonl" <<'PY'
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
s = [x for x in s if "mb_per_s" in x and x["t_end_s"] - x["t_start_s"] > 9.9]
print("%.0f MB/s, then %.0f MB/s" % (s[0]["mb_per_s"], s[-1]["mb_per_s"]))
PY
}
line "nvme-tlc-500g: the first 100 GB" "$(fill 'sim:nvme-tlc-500g,scale=64' 100GB)"
line "nvme-tlc-1t: the first 150 GB" "$(fill 'sim:nvme-tlc-1t,scale=64' 150GB)"
line "sata-tlc-1t: the first 100 GB" "$(fill 'sim:sata-tlc-1t,scale=64' 100GB)"

echo "== WA with compressible data (vertex2-60g new, one 128 KiB sequential fill, then info) =="
for p in zero compressible:50; do
    v="sim:vertex2-60g,scale=64,aged=0s,throttle=off,state=$work/v-${p%%:*}.sim"
    run measure "$v" --pattern "$p" --random-pct 0 --bs 128k --bytes 60GB >/dev/null
    line "vertex2-60g, --pattern $p" "$("$bin" info "$v" | grep -o 'lifetime write amplification [0-9.]*')"
done
