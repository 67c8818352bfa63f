#!/usr/bin/env bash
# SIGKILL at random moments, then `resume` (issue 18, "processes killed at random moments").
#
# Each scenario is run once whole to time it, then killed with SIGKILL at random moments within
# that time and resumed (again while a killed erase tool still runs). A kill passes when resume
# either continues to a completed record whose samples keep what was kept before the kill (the
# lines kept hold the same figures, the indexes run on without a gap, `dropped_samples` counts
# exactly the lines not kept, a byte budget is met to the byte) or refuses in one line with
# exit 2; never a panic, an abort, a second line or a record that claims what it did not do.
# Prints one row per kill (scenario, kill after s, outcome) and exits 1 when any failed.
#
#   scripts/kill-resume.sh [BINARY] [KILLS PER SCENARIO]   (defaults target/release/ssdfade, 4)
#   KILL_SEED=N picks the moments; KILL_KEEP=1 keeps the work folder.
set -euo pipefail
BIN=$(realpath "${1:-target/release/ssdfade}")
KILLS=${2:-4}
WORK=$(mktemp -d /tmp/ssdfade-kill.XXXXXX)
[ -n "${KILL_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
export BIN WORK KILLS
python3 - <<'EOF'
import json, os, random, shutil, signal, subprocess, sys, time

BIN, WORK, KILLS = os.environ["BIN"], os.environ["WORK"], int(os.environ["KILLS"])
random.seed(int(os.environ.get("KILL_SEED", "18")))
S = "sim:vertex2-60g,scale=64"
EXP = ["experiment", "vertex2", S, "--measure-duration", "3s", "--soak-interval", "1s",
       "--checkpoint", "1m", "--seed", "1", "--out", "x"]
# (name, command, resumable): what resume must do with what the kill left. Each runs in a
# folder holding f.img (64 MiB) and e.img (1 MiB); s.img is made by slog.
SCENARIOS = [
    ("experiment vertex2 on sim", EXP + ["--soak-duration", "10m"], True),
    ("experiment vertex2 --soak-bytes 6G", EXP + ["--soak-bytes", "6G"], True),
    ("experiment vertex2 on a file, command: erase",
     ["experiment", "vertex2", "f.img", "--destroy-data", "f.img", "--erase-method", "command:sleep 1; true",
      "--measure-duration", "2s", "--soak-duration", "6s", "--soak-interval", "1s", "--out", "x"], True),
    ("soak of two sim drives (a group)",
     ["soak", f"{S},seed=1", f"{S},seed=2", "--duration", "10m", "--interval", "1s", "--out", "x"], False),
    ("soak sim:", ["soak", f"{S},state=d.sim", "--duration", "20m", "--interval", "1s", "--out", "x"], False),
    ("slog on a file it makes", ["slog", "s.img", "--size", "64M", "--sustain", "20s", "--out", "x"], False),
    ("erase command: on a file",
     ["erase", "e.img", "--destroy-data", "e.img", "--method", "command:sleep 2; true", "--out", "x"], False),
]

def lines(path):
    try:
        return open(path, "rb").read().splitlines(keepends=True)
    except FileNotFoundError:
        return []

def sample_files(d):
    out = {}
    for root, _, files in os.walk(d):
        if "samples.jsonl" in files:
            out[os.path.relpath(root, d)] = lines(os.path.join(root, "samples.jsonl"))
    return out

def folder(d):
    """A fresh folder for one run, with the files the scenarios name."""
    shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    with open(os.path.join(d, "f.img"), "wb") as f:
        f.truncate(64 << 20)
    with open(os.path.join(d, "e.img"), "wb") as f:
        f.write(b"\1" * (1 << 20))

def run_dirs(d):
    return [os.path.join(r, "run.json") for r, _, f in os.walk(d) if "run.json" in f]

def same(a, b):
    """Equal records, numbers to 1e-12 (a kept line is written again: its floats may differ in
    the last digit)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1e-300)
    return a == b

def check_run(run_json, before):
    """Problems with one completed run after the resume, given its samples before the kill."""
    info = json.load(open(run_json))
    d = os.path.dirname(run_json)
    after = lines(os.path.join(d, "samples.jsonl"))
    bad = []
    if info.get("status") != "completed":
        return [f"{run_json}: status {info.get('status')}"]
    idx = [json.loads(l)["index"] for l in after]
    if idx != list(range(len(idx))):
        bad.append(f"{run_json}: indexes not 0..{len(idx) - 1}")
    resumes = info.get("resumes") or []
    if resumes and before:
        kept = resumes[0]["index"]
        if not all(same(json.loads(a), json.loads(b)) for a, b in zip(after[:kept], before[:kept])):
            bad.append(f"{run_json}: the {kept} samples kept differ from those before the kill")
        whole = [l for l in before if l.endswith(b"\n")]
        if resumes[0]["dropped_samples"] != len(before) - kept and resumes[0]["dropped_samples"] != len(whole) - kept:
            bad.append(f"{run_json}: dropped_samples {resumes[0]['dropped_samples']}, "
                       f"but {len(before)} lines were there and {kept} kept")
    want = (info.get("workload") or {}).get("bytes")
    if want:
        got = sum(json.loads(l).get("bytes", 0) for l in after)
        if got != want:
            bad.append(f"{run_json}: samples add up to {got} bytes, the budget is {want}")
    return bad

def judge(r):
    """A reason the command's outcome is wrong, or None."""
    err = r.stderr.strip()
    if "panicked" in err or r.returncode not in (0, 1, 2, 130):
        return f"exit {r.returncode}: {err[:300]}"
    # Progress lines of the phases resumed come before a refusal.
    err = "\n".join(l for l in err.splitlines()
                    if not l.startswith("ssdfade: [") and " again (attempt " not in l)
    if r.returncode == 2 and len(err.splitlines()) != 1:
        return f"a refusal of {len(err.splitlines())} lines: {err[:300]}"
    return None

rows, failures = [], 0
for name, cmd, resumable in SCENARIOS:
    base = os.path.join(WORK, "timing")
    folder(base)
    t0 = time.monotonic()
    r = subprocess.run([BIN] + cmd, cwd=base, capture_output=True, text=True, timeout=600)
    whole = time.monotonic() - t0
    if r.returncode != 0:
        sys.exit(f"{name}: the uncut run failed: {r.stderr.strip()}")
    for _ in range(KILLS):
        at = random.uniform(0.05, whole)
        case = os.path.join(WORK, "case")
        folder(case)
        p = subprocess.Popen([BIN] + cmd, cwd=case, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(at)
        if p.poll() is not None:
            rows.append((name, at, "finished before the kill")); continue
        p.send_signal(signal.SIGKILL); p.wait()
        x = os.path.join(case, "x")
        before = sample_files(x)
        outcome, why = None, None
        for attempt in range(5):
            r = subprocess.run([BIN, "resume", "x"], cwd=case, capture_output=True, text=True, timeout=600)
            why = judge(r)
            if why or r.returncode != 2 or "still runs" not in r.stderr:
                break
            time.sleep(1.5)  # a killed experiment's erase tool still runs: resume refused, wait
        if why:
            outcome = "FAIL " + why
        elif r.returncode == 0:
            if not resumable:
                outcome = "FAIL resumed what should be refused"
            else:
                bad = []
                for rj in run_dirs(x):
                    rel = os.path.relpath(os.path.dirname(rj), x)
                    bad += check_run(rj, before.get(rel, []))
                kept = sum(len(v) for v in sample_files(x).values())
                outcome = ("FAIL " + "; ".join(bad)) if bad else \
                    f"resumed{' after ' + str(attempt) + ' refusals (erase tool alive)' if attempt else ''}: " \
                    f"{sum(len(v) for v in before.values())} lines before, {kept} after, complete"
        elif r.returncode == 2:
            outcome = "refused: " + r.stderr.strip()[:150]
            if resumable and "still runs" not in r.stderr and "nothing to resume" not in r.stderr:
                outcome = "refused (resumable kind): " + r.stderr.strip()[:150]
        else:
            outcome = f"exit {r.returncode}: " + r.stderr.strip()[:150]
        if not resumable and os.path.isdir(x):
            # The killed command's own record does not claim completion (a group member may
            # have finished before the kill).
            for rj in [os.path.join(x, f) for f in ("run.json", "group.json", "erase.json")]:
                if os.path.exists(rj):
                    rec = json.load(open(rj))
                    if rec.get("status", rec.get("outcome")) == "completed":
                        outcome = "FAIL a killed run's record says completed"
        if outcome.startswith("FAIL"):
            failures += 1
        rows.append((name, at, outcome))
        print(f"| {name} | {at:.2f} s | {outcome} |", flush=True)

print(f"{len(rows)} kills, {failures} failures")
sys.exit(1 if failures else 0)
EOF
