#!/usr/bin/env bash
# Every long-running command under low resource limits (issue 18, "resource limits"):
# `ulimit -n 16`, `-n 64`, `-v 200000` and `-v 400000` on soak, experiment, slog, a group, a run
# with the metrics server, and plp listen with 200 clients at once. A command passes when it
# runs, or refuses in one line with exit 2, or fails with exit 1 and its reason in run.json
# (`end.detail`); never a panic, an abort (134), a signal or a second line of refusal. Prints
# one row per command and limit; exits 1 when any failed.
#
#   scripts/resource-limits.sh [BINARY]      (default target/release/ssdfade)
set -euo pipefail
BIN=$(realpath "${1:-target/release/ssdfade}")
WORK=$(mktemp -d /tmp/ssdfade-limits.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export BIN WORK
python3 - <<'EOF'
import json, os, shutil, socket, subprocess, sys, time

BIN, WORK = os.environ["BIN"], os.environ["WORK"]
S = "sim:vertex2-60g,scale=64"
COMMANDS = [
    ("soak sim", ["soak", S, "--duration", "1m", "--interval", "1s", "--out", "x"]),
    ("soak sim full size", ["soak", "sim:vertex2-60g", "--duration", "1m", "--out", "x"]),
    ("soak file", ["soak", "f.img", "--size", "64M", "--duration", "3s", "--out", "x"]),
    ("experiment vertex2", ["experiment", "vertex2", S, "--measure-duration", "2s", "--soak-duration", "1m",
                            "--soak-interval", "1s", "--out", "x"]),
    ("slog file", ["slog", "f.img", "--size", "64M", "--sustain", "3s", "--out", "x"]),
    ("group of 4", ["soak", f"{S},seed=1", f"{S},seed=2", f"{S},seed=3", f"{S},seed=4",
                    "--duration", "30s", "--interval", "1s", "--out", "x"]),
    ("metrics server", ["soak", "f.img", "--size", "16M", "--duration", "3s",
                        "--metrics-listen", "127.0.0.1:0", "--out", "x"]),
]
LIMITS = ["-n 16", "-n 64", "-v 200000", "-v 400000"]

def judge(code, err, d):
    err = err.strip()
    if "panicked" in err or code not in (0, 1, 2, 130):
        return f"FAIL exit {code}: {err[-300:]}"
    if code == 2:
        return "FAIL refusal of several lines" if len(err.splitlines()) != 1 else "refused: " + err[:160]
    if code == 1:
        detail = None
        for root, _, files in os.walk(d):
            if "run.json" in files:
                end = json.load(open(os.path.join(root, "run.json"))).get("end") or {}
                detail = detail or end.get("detail")
        return ("failed, run.json says: " + detail[:140]) if detail else "failed: " + err.splitlines()[-1][:160]
    return "ran"

rows, failures = [], 0
def row(name, limit, outcome):
    global failures
    failures += outcome.startswith("FAIL")
    print(f"| {name} | ulimit {limit} | {outcome} |", flush=True)

for name, cmd in COMMANDS:
    for limit in LIMITS:
        d = os.path.join(WORK, "case")
        shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
        try:
            r = subprocess.run(["sh", "-c", f'ulimit {limit} && exec "$0" "$@"', BIN] + cmd,
                               cwd=d, capture_output=True, text=True, timeout=300)
            row(name, limit, judge(r.returncode, r.stderr, d))
        except subprocess.TimeoutExpired:
            row(name, limit, "FAIL still running after 300 s")

# plp listen with 200 clients at once.
for limit in LIMITS:
    d = os.path.join(WORK, "case")
    shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    p = subprocess.Popen(["sh", "-c", f'ulimit {limit} && exec "$0" "$@"', BIN, "plp", "listen", "--bind",
                          "127.0.0.1", "--port", "0", "--dir", "s"], cwd=d, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    if not line.startswith("listening on "):
        p.wait()
        row("plp listen, 200 clients", limit, judge(p.returncode, line + "\n" + p.stderr.read(), d))
        continue
    host, port = line.removeprefix("listening on ").rsplit(":", 1)
    clients, answers = [], {}
    for _ in range(200):
        try:
            c = socket.create_connection((host, int(port)), timeout=5)
            c.sendall(b"dump x " + b"0" * 32 + b"\n")
            clients.append(c)
        except OSError as e:
            answers[str(e)] = answers.get(str(e), 0) + 1
    for c in clients:
        try:
            a = c.makefile().readline().split(" ")[:2]
            a = " ".join(a).strip() or "closed"
        except OSError as e:
            a = str(e)
        answers[a] = answers.get(a, 0) + 1
        c.close()
    time.sleep(0.5)
    alive = p.poll() is None
    ok = False
    if alive:
        try:
            c = socket.create_connection((host, int(port)), timeout=5)
            c.sendall(b"begin after 4 4096\n")
            ok = c.makefile().readline().startswith("ok ")
            c.close()
        except OSError:
            pass
        p.send_signal(2)
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill(); _, err = p.communicate()
    outcome = f"answers {answers}; serving after: {ok}"
    if not alive or not ok or "panicked" in err or p.returncode not in (0, 130):
        outcome = f"FAIL {outcome}; exit {p.returncode}: {err.strip()[-200:]}"
    row("plp listen, 200 clients", limit, outcome)

print(f"{failures} failures")
sys.exit(1 if failures else 0)
EOF
