#!/bin/sh
# fleet at scale: 500 run directories of simulated drives of 4 models, one model with planted
# outliers and one drive duplicated on a second host, then `ssdfade fleet` over them under
# /usr/bin/time -v (wall time and max RSS). Three real soaks per model (and two outliers) are
# run once; the rest are copies with their serial rewritten, so the 500 take about a minute.
#   scripts/fleet-scale.sh [WORKDIR]     (default: a new folder under /tmp)
set -eu
bin=${SSDFADE:-target/release/ssdfade}
work=${1:-$(mktemp -d /tmp/fleet-scale.XXXXXX)}
base=$work/base
mkdir -p "$base"
soak() { # NAME SPEC
    "$bin" soak "$2" --duration 10m --interval 1m --seed 1 --out "$base/$1" >/dev/null 2>&1
}
for m in vertex2-60g,scale=16 dc-ssd-400g sata-tlc-1t,scale=16 nvme-tlc-1t,scale=16; do
    name=${m%%,*}
    for s in 1 2 3; do soak "$name-$s" "sim:$m,seed=$s"; done
done
soak vertex2-60g-bad1 "sim:vertex2-60g,scale=16,seed=7,alpha=1.03"
soak vertex2-60g-bad2 "sim:vertex2-60g,scale=16,seed=8,alpha=1.05"
n=0
bases=$(ls "$base" | grep -v bad)
while [ $n -lt 497 ]; do
    for b in $bases; do
        [ $n -lt 497 ] || break
        n=$((n + 1))
        host=host-$((n % 8))
        dst=$work/fleet/$host/$b-$n
        mkdir -p "$work/fleet/$host"
        cp -r "$base/$b" "$dst"
        sed -i "s/\"serial\": \"SIM-[^\"]*\"/\"serial\": \"S$n-$b\"/g" "$dst/run.json"
    done
done
for b in bad1 bad2; do
    cp -r "$base/vertex2-60g-$b" "$work/fleet/host-0/vertex2-60g-$b"
done
mkdir -p "$work/fleet/host-9"
cp -r "$work/fleet/host-1/dc-ssd-400g-1-1" "$work/fleet/host-9/"
echo "$(find "$work/fleet" -name run.json | wc -l) run directories under $work/fleet"
/usr/bin/time -v "$bin" fleet "$work/fleet" --out "$work" 2>"$work/time.txt" | head -12
grep -E "Elapsed|Maximum resident" "$work/time.txt"
