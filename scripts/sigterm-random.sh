#!/usr/bin/env bash
# Time from SIGTERM to exit at random moments of `experiment pts`, `experiment slc-cache`,
# `experiment xsr` and `soak` on simulated drives (issue 45: no command may take over a second
# to stop). Prints one line per stop (moment, exit, seconds, recorded status) and the worst.
#
#   scripts/sigterm-random.sh [BINARY] [STOPS_PER_COMMAND] [SEED]
set -euo pipefail
BIN=$(realpath "${1:-target/release/ssdfade}")
WORK=$(mktemp -d /tmp/ssdfade-sigterm.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export BIN WORK N=${2:-10} SEED=${3:-1}
python3 - <<'PY'
import json, os, random, shutil, subprocess, time

BIN, N = os.environ["BIN"], int(os.environ["N"])
random.seed(int(os.environ["SEED"]))
os.chdir(os.environ["WORK"])
COMMANDS = {
    "pts": ["experiment", "pts", "sim:vertex2-60g,scale=8", "--round", "2s", "--rounds", "2"],
    "slc-cache": ["experiment", "slc-cache", "sim:nvme-tlc-1t,scale=64"],
    "xsr": ["experiment", "xsr", "sim:vertex2-60g,scale=8", "--segment", "12h"],
    "soak": ["soak", "sim:vertex2-60g,scale=8", "--duration", "8h"],
}
worst, fails = (0.0, ""), 0
for name, args in COMMANDS.items():
    for i in range(N):
        out, at = f"{name}-{i}", random.uniform(0.3, 8.0)
        p = subprocess.Popen([BIN] + args + ["--out", out], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        time.sleep(at)
        if p.poll() is not None:
            print(f"{name} #{i}: ended before the signal at {at:.2f} s (exit {p.returncode})")
            continue
        t0 = time.monotonic()
        p.send_signal(15)
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill(); p.wait(); err = "still running 30 s after SIGTERM"
        took = time.monotonic() - t0
        record = next((f"{out}/{f}" for f in ("experiment.json", "run.json") if os.path.exists(f"{out}/{f}")), None)
        status = json.load(open(record)).get("status") if record else None
        # Stopped before its record was written (a pts plans its thousands of phases first):
        # nothing may be left behind then.
        clean = status == "interrupted" or (status is None and not os.path.exists(out))
        bad = p.returncode != 130 or not clean or "panicked" in err or took > 1.0
        fails += bad
        print(f"{name} #{i}: SIGTERM at {at:.2f} s, exit {p.returncode} after {took:.3f} s, "
              f"recorded {status or 'nothing'}{'  FAIL' if bad else ''}", flush=True)
        if took > worst[0]:
            worst = (took, f"{name} #{i}")
        shutil.rmtree(out, ignore_errors=True)
print(f"worst stop {worst[0]:.3f} s ({worst[1]}), {fails} failures, load {os.getloadavg()[0]:.1f}")
PY
