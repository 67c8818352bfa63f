#!/usr/bin/env bash
# Validates `sim fit` on simulated drives, where the truth is known: each case soaks a drive of
# known parameters, fits a twin to that run and prints the fitted parameters beside the true
# ones and the twin's largest difference in mean IOPS per period (an hour, or a third of a
# shorter run) from the measured soak. Prints a markdown table.
#
# usage: scripts/twin-validate.sh [OUT_DIR]   (env: SSDFADE; FROM=N, TO=N: run cases N..M only)
set -euo pipefail
out=${1:-/tmp/ssdfade-twin-validate}
bin=$(realpath "${SSDFADE:-target/release/ssdfade}")
mkdir -p "$out"
cd "$out"

# A drive 1.5 times faster than dc-ssd-400g at α 1.2 exists only as a twin file.
cat >known.toml <<'TOML'
base = "dc-ssd-400g"
model = "known"
capacity = 400000000000
alpha = 1.2
speed = 1.5
options = "scale=64"
TOML
# The same for a Vertex 2 (lifetime throttle) 1.2 times faster at α 1.3, fitted from an experiment.
cat >known-v2.toml <<'TOML'
base = "vertex2-60g"
model = "known"
capacity = 60000000000
alpha = 1.3
speed = 1.2
options = "scale=16"
TOML

# case | target | soak options | true α | true speed | fit options
cases=(
  "vertex2|sim:vertex2-60g,aged=0s,throttle=off,scale=4|--duration 2h|1.145|1|"
  "vertex2 span 80 %|sim:vertex2-60g,aged=0s,throttle=off,scale=4|--duration 2h --span 48G|1.145|1|"
  "vertex2 α 1.3|sim:vertex2-60g,alpha=1.3,aged=0s,throttle=off,scale=4|--duration 2h|1.3|1|"
  "nvme-tlc-1t|sim:nvme-tlc-1t,scale=128|--bytes 3000G|1.0995|1|"
  "dc-ssd-400g|sim:dc-ssd-400g,scale=64|--bytes 1200G|1.28|1|"
  "sata-tlc-1t|sim:sata-tlc-1t,scale=128|--bytes 3000G|1.0995|1|"
  "known twin|sim:@known.toml|--bytes 1200G|1.2|1.5|--base dc-ssd-400g"
  "dc-ssd α 1.2, flash unreported, nvme shape|sim:dc-ssd-400g,alpha=1.2,scale=64|--bytes 1200G|1.2|-|--base nvme-tlc-1t"
  # `experiment vertex2` (in service, erase, fresh, soak, faded, erase, recovered): the fit
  # takes the soak from the state the phases before it left.
  "experiment vertex2|sim:vertex2-60g,scale=8|experiment --soak-duration 3h|1.145|1|"
  "experiment, known Vertex 2 twin|sim:@known-v2.toml|experiment --soak-duration 2h|1.3|1.2|--base vertex2-60g"
  "experiment, dc-ssd-400g|sim:dc-ssd-400g,scale=64|experiment --soak-duration 2h|1.28|1|"
  "experiment, nvme-tlc-1t capacity=500G span 80 %|sim:nvme-tlc-1t,capacity=500G,scale=64|experiment --soak-duration 1h --span 400G|1.0995|1|"
  # Variants the issue does not list: other capacities, α, an aged drive, 60 % and 85 % spans,
  # 16 KiB and 64 KiB transfers, a file (no flash reported, no fade), and an experiment (with
  # its secure erases) on every other preset.
  "dc-ssd-400g capacity=200G|sim:dc-ssd-400g,capacity=200G,scale=32|--bytes 600G|1.28|1|"
  "nvme-tlc-1t α 1.2 16k|sim:nvme-tlc-1t,alpha=1.2,scale=128|--bytes 3000G --bs 16k --align 16k|1.2|1|"
  "vertex2 aged=4months span 60 %|sim:vertex2-60g,aged=4months,throttle=off,scale=4|--duration 2h --span 36G|1.145|1|"
  "dc-ssd-400g span 85 % 64k|sim:dc-ssd-400g,scale=64|--bytes 1200G --span 340G --bs 64k --align 64k|1.28|1|"
  "known twin span 60 % 16k|sim:@known.toml|--bytes 1200G --span 240G --bs 16k --align 16k|1.2|1.5|--base dc-ssd-400g"
  "optane-375g, flash unreported, dc-ssd shape (no cliff)|sim:optane-375g,scale=64|--bytes 1200G|4|1|--base dc-ssd-400g"
  "file 1 GiB (no flash reported)|file:file.img|--duration 2m --destroy-data file.img|-|-|"
  "experiment, sata-tlc-1t|sim:sata-tlc-1t,scale=128|experiment --soak-duration 2h|1.0995|1|"
  "experiment, optane-375g|sim:optane-375g,scale=64|experiment --soak-duration 1h|4|1|"
  "experiment, ram-8g|sim:ram-8g,scale=4|experiment --soak-duration 1h|2|1|"
  # More variants (branch predict7): a 500 GB sata at 64 KiB, an nvme at a 75 % span with
  # 16 KiB, a vertex2 at 120 GB and a 90 % span.
  "sata-tlc-1t capacity=500G 64k|sim:sata-tlc-1t,capacity=500G,scale=64|--bytes 1500G --bs 64k --align 64k|1.0995|1|"
  "nvme-tlc-1t span 75 % 16k|sim:nvme-tlc-1t,scale=128|--bytes 3000G --span 750G --bs 16k --align 16k|1.0995|1|"
  "vertex2 capacity=120G span 90 %|sim:vertex2-60g,capacity=120G,aged=0s,throttle=off,scale=8|--duration 2h --span 108G|1.145|1|"
)
echo "| case | true α | fitted α | true speed | fitted speed | fresh IOPS measured / twin | steady IOPS measured / twin | worst period |"
echo "|---|---|---|---|---|---|---|---|"
n=0
for c in "${cases[@]}"; do
  IFS='|' read -r name target opts alpha speed fitopts <<<"$c"
  n=$((n + 1))
  [ "$n" -ge "${FROM:-1}" ] && [ "$n" -le "${TO:-99}" ] || continue
  case $target in file:*)
    target=${target#file:}
    rm -f "$target"; truncate -s 1G "$target" ;;
  esac
  rm -rf "run$n"
  # shellcheck disable=SC2086
  case $opts in
    experiment*) "$bin" experiment vertex2 "$target" ${opts#experiment} --seed 1 --out "run$n" >/dev/null ;;
    *) "$bin" soak "$target" $opts --seed 1 --out "run$n" --json >/dev/null ;;
  esac
  # A real drive does not report its flash: the fit must find α from the curve.
  case $name in *unreported*) python3 - "run$n/run.json" <<'PY'
import json, sys
p = sys.argv[1]
r = json.load(open(p))
r["drive_before"]["flash_bytes"] = None
json.dump(r, open(p, "w"), indent=2)
PY
  esac
  # shellcheck disable=SC2086
  if ! "$bin" sim fit "run$n" -o "twin$n.toml" $fitopts >"fit$n.txt" 2>"fit$n.err"; then
    echo "| $name | $alpha | refused | $speed | - | - | - | $(sed 's/.* is \([0-9.]* %\) off.*/\1/' "fit$n.err") (refused) |"
    continue
  fi
  python3 - "$name" "$alpha" "$speed" "twin$n.toml" <<'PY'
import sys, tomllib
name, alpha, speed, path = sys.argv[1:]
t = tomllib.load(open(path, "rb"))
f = t["fit"]
m, w = f["measured"], f["twin"]
print(f"| {name} | {alpha} | {t['alpha']:.3f} | {speed} | {t['speed']:.3f} | "
      f"{m['fresh_iops']:.0f} / {w['fresh_iops']:.0f} | {m['steady_iops']:.0f} / {w['steady_iops']:.0f} | "
      f"{f['worst_period_pct']:.1f} % |")
PY
done
