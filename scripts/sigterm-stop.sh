#!/usr/bin/env bash
# Time from SIGTERM to exit of an experiment of two big simulated drives (the last row of
# docs/evidence.md "SIGTERM: how long a command takes to stop"), two binaries alternated round
# by round, the signal sent at each of the given moments (seconds after the start).
#
#   scripts/sigterm-stop.sh BEFORE_BINARY AFTER_BINARY [ROUNDS] [MOMENTS...]
set -euo pipefail
A=$(realpath "$1"); B=$(realpath "$2"); N=${3:-2}; shift 3 || true
MOMENTS=${*:-6 8 10}
D=$(mktemp -d /tmp/ssdfade-stop.XXXXXX)
trap 'rm -rf "$D"' EXIT
stop() { # binary moment → seconds from the signal to the exit, and the status
  rm -rf "$D/e"
  "$1" experiment vertex2 sim:vertex2-60g,scale=4 sim:dc-ssd-400g,scale=4 --out "$D/e" >/dev/null 2>&1 &
  local p=$!; sleep "$2"
  local t0; t0=$(date +%s.%N); kill -TERM $p; local rc=0; wait $p || rc=$?
  echo "$(echo "$(date +%s.%N) - $t0" | bc) $rc"
}
for i in $(seq "$N"); do
  for m in $MOMENTS; do
    echo "round $i, signal at $m s: before $(stop "$A" "$m"), after $(stop "$B" "$m")"
  done
done
