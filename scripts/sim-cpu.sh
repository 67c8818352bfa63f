#!/usr/bin/env bash
# CPU time of the simulator's two speed checks (issue 49 item 7: each under 15 s of CPU):
#  - soak: `ssdfade soak 'sim:vertex2-60g' --duration 8h --align 512 --seed 910`, the 8-hour
#    Vertex 2 soak of the seed protocol, charts and report included;
#  - bench: `ssdfade sim bench 'sim:vertex2-60g,aged=0s'`, two drive-fills of the full-size model.
# CPU is the process's user + system time (/usr/bin/time), printed with the 1-minute load
# average beside it: on a shared machine the same work takes more CPU under load (caches and
# memory bandwidth are shared). Given several binaries, the rounds alternate between them
# (A B, A B, ...) so that a change of load hits them alike. A benchmark that prints figures;
# it exits 1 when the first binary's median soak takes 15 s of CPU or more.
# Usage: scripts/sim-cpu.sh [ROUNDS] [BINARY...]
#   ROUNDS defaults to 3; BINARY to target/release/ssdfade (then built first).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3
if [[ ${1:-} =~ ^[0-9]+$ ]]; then
    rounds=$1
    shift
fi
bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
    cargo build --release --quiet
    bins=(target/release/ssdfade)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs "$@" and prints its CPU seconds as "total user system".
cpu() {
    /usr/bin/time -f "%U %S" -o "$work/time" "$@" >/dev/null
    awk '{ printf "%.2f %.2f %.2f\n", $1 + $2, $1, $2 }' "$work/time"
}

for ((r = 1; r <= rounds; r++)); do
    for i in "${!bins[@]}"; do
        bin=${bins[$i]}
        load=$(cut -d' ' -f1 /proc/loadavg)
        rm -rf "$work/run"
        read -r soak su ss < <(cpu "$bin" soak 'sim:vertex2-60g' --duration 8h --align 512 \
            --seed 910 --out "$work/run")
        read -r bench bu bs < <(cpu "$bin" sim bench 'sim:vertex2-60g,aged=0s')
        printf 'round %d  %-40s load %5s  soak %6.2f s (%.2f + %.2f)  bench %6.2f s (%.2f + %.2f)\n' \
            "$r" "$bin" "$load" "$soak" "$su" "$ss" "$bench" "$bu" "$bs"
        echo "$soak" >>"$work/soak.$i"
        echo "$bench" >>"$work/bench.$i"
    done
done

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for i in "${!bins[@]}"; do
    printf 'median of %d  %-37s soak %6.2f s  bench %6.2f s\n' \
        "$rounds" "${bins[$i]}" "$(median "$work/soak.$i")" "$(median "$work/bench.$i")"
done
first=$(median "$work/soak.0")
if awk -v s="$first" 'BEGIN { exit !(s >= 15) }'; then
    echo "the 8 h soak took $first s of CPU (median): over the 15 s budget"
    exit 1
fi
echo "the 8 h soak took $first s of CPU (median): under the 15 s budget"
