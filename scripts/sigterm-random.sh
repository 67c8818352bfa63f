#!/usr/bin/env bash
# Time from SIGTERM or SIGINT to exit at random moments of ssdfade's long-running commands on
# simulated drives (issue 45: no command may take over a second to stop): `experiment pts`,
# `slc-cache`, `xsr`, `wsat`, `hir`, `op-sweep`, `soak`, `sweep`, `slog`, `measure --precondition
# fast`, `sim fit`, `verify`, and `plot`/`report`/`fleet` of finished directories. Each stop must
# exit 130 with its record saying `interrupted` (or nothing left behind when the signal came
# before the record, and no temporary file). Prints one line per stop (moment, signal, exit,
# seconds, recorded status), each command's range and the worst with the load average. About
# 10 min with 10 stops; name commands after the seed to run only those.
#
#   scripts/sigterm-random.sh [BINARY] [STOPS_PER_COMMAND] [SEED] [COMMAND…]
set -euo pipefail
BIN=$(realpath "${1:-target/release/ssdfade}")
WORK=$(mktemp -d /tmp/ssdfade-sigterm.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export BIN WORK N=${2:-10} SEED=${3:-1} ONLY="${*:4}"
python3 - <<'PY'
import glob, json, os, random, shutil, signal, subprocess, time

BIN, N = os.environ["BIN"], int(os.environ["N"])
ONLY = os.environ["ONLY"].split()
random.seed(int(os.environ["SEED"]))
os.chdir(os.environ["WORK"])
os.makedirs("tmp", exist_ok=True)
ENV = dict(os.environ, TMPDIR=os.path.abspath("tmp"))

def made(args):
    """A finished directory the commands below read (made once, unsignalled)."""
    if not os.path.exists(args[-1]):
        subprocess.run([BIN] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return args[-1]

def fitme(): made(["soak", "sim:vertex2-60g", "--duration", "2h", "--out", "fitme"])
def vrun(): made(["soak", "sim:vertex2-60g,state=v.sim", "--verify", "--duration", "1h", "--out", "vrun"])
def finished():
    fitme(); vrun()
    made(["experiment", "op-sweep", "sim:vertex2-60g,scale=8", "--out", "op"])
    made(["experiment", "wsat", "sim:vertex2-60g,scale=8", "--out", "ws"])

V = "sim:vertex2-60g,scale=8"
# name: (arguments, latest moment of the signal in s, what it needs first, whether it takes --out)
COMMANDS = {
    "pts": (["experiment", "pts", V, "--round", "2s", "--rounds", "2"], 8, None, True),
    "slc-cache": (["experiment", "slc-cache", "sim:nvme-tlc-1t,scale=64"], 8, None, True),
    "xsr": (["experiment", "xsr", V, "--segment", "12h"], 8, None, True),
    "soak": (["soak", V, "--duration", "8h"], 8, None, True),
    "wsat": (["experiment", "wsat", V], 4, None, True),
    "hir": (["experiment", "hir", V], 4, None, True),
    "op-sweep": (["experiment", "op-sweep", V], 4, None, True),
    "sweep": (["sweep", "sim:vertex2-60g", "--qd", "1,2,4,8,16,32", "--point-duration", "60s"], 4, None, True),
    "slog": (["slog", "sim:vertex2-60g", "--sustain", "10m"], 4, None, True),
    "measure-fast": (["measure", "sim:vertex2-60g", "--precondition", "fast", "--duration", "1h"], 4, None, True),
    "sim-fit": (["sim", "fit", "fitme", "-o", "twin.toml"], 4, fitme, False),
    "verify": (["verify", "sim:vertex2-60g,state=v.sim", "--from", "vrun"], 2, vrun, False),
    "plot": (["plot", "op"], 0.6, finished, False),
    "report": (["report", "ws"], 0.6, finished, False),
    "fleet": (["fleet", "fitme", "vrun", "op", "ws", "--out", "fl"], 0.5, finished, False),
}

def recorded(out):
    """The status the run's own record gives (None: no record)."""
    for name, key in (("experiment.json", "status"), ("slog.json", "end"), ("run.json", "status")):
        path = f"{out}/{name}"
        if os.path.exists(path):
            value = json.load(open(path)).get(key)
            return value.get("reason", value) if isinstance(value, dict) else value
    return None

def leftovers():
    """Temporary files a stop left: the tool's dot-files and anything in TMPDIR."""
    return [p for p in glob.glob("**/.*.tmp", recursive=True) + glob.glob("**/*.tmp*", recursive=True)] \
        + [f"tmp/{f}" for f in os.listdir("tmp")]

worst, fails, took_all = (0.0, ""), 0, {}
for name, (args, latest, needs, takes_out) in COMMANDS.items():
    if ONLY and name not in ONLY:
        continue
    if needs:
        needs()
    for i in range(N):
        out, at = f"{name}-{i}", random.uniform(min(0.3, latest / 4), latest)
        sig = random.choice([signal.SIGTERM, signal.SIGINT])
        p = subprocess.Popen([BIN] + args + (["--out", out] if takes_out else []),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV)
        time.sleep(at)
        if p.poll() is not None:
            print(f"{name} #{i}: ended before the signal at {at:.2f} s (exit {p.returncode})")
            continue
        t0 = time.monotonic()
        p.send_signal(sig)
        try:
            _, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill(); p.wait(); err = "still running 30 s after the signal"
        took = time.monotonic() - t0
        status = recorded(out) if takes_out else "none kept"
        left = leftovers()
        # Stopped before its record was written (a pts plans its thousands of phases first):
        # nothing may be left behind then. Stopped after its last phase: recorded completed,
        # still exit 130 (its charts were not drawn).
        clean = status in ("interrupted", "completed", "none kept") or \
            (status is None and not os.path.exists(out))
        bad = p.returncode != 130 or not clean or "panicked" in err or took > 1.0 or left
        fails += bool(bad)
        why = f"  FAIL{' left ' + ' '.join(left) if left else ''}{': ' + err.strip()[-200:] if p.returncode not in (130,) else ''}" if bad else ""
        print(f"{name} #{i}: {signal.Signals(sig).name} at {at:.2f} s, exit {p.returncode} after "
              f"{took:.3f} s, recorded {status or 'nothing'}{why}", flush=True)
        took_all.setdefault(name, []).append(took)
        if took > worst[0]:
            worst = (took, f"{name} #{i}")
        shutil.rmtree(out, ignore_errors=True)
        for f in left:
            shutil.rmtree(f, ignore_errors=True) if os.path.isdir(f) else os.remove(f)
for name, t in took_all.items():
    print(f"{name}: {len(t)} stops, {min(t):.2f}-{max(t):.2f} s")
print(f"worst stop {worst[0]:.3f} s ({worst[1]}), {fails} failures, load {os.getloadavg()[0]:.1f}")
PY
