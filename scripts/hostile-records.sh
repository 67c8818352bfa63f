#!/usr/bin/env bash
# Crafted records fed to every command that loads them (issue 18, "How it will be checked").
#
# Makes a small set of real records on simulated drives (a run with --verify, a vertex2
# experiment, a resumable copy of it, a group, a slog run, an erase), then for every record file
# and every value in it writes a crafted copy (negative, 1e30, wrong type, null, a huge array,
# deep nesting, an absolute, `..` or symlinked path, a truncated file, a duplicate key…) and runs
# each command that reads it. A command passes when it does not panic, exits 0, 1 or 2, says
# why in one line when it refuses (exit 2), finishes within 60 s, and writes nothing outside the
# directory it was given. Prints each failure and a count; exits 1 when any failed.
#
#   scripts/hostile-records.sh [BINARY]      (default target/release/ssdfade)
#   HOSTILE_KEEP=1 keeps the work folder; HOSTILE_ONLY=twin,state crafts only those fixtures'
#   records (run, exp, open, grp, slog, erase, twin, state, plp, ckpt): plp is a listener's
#   session file (fed to a listener restarted on it, then plp verify) and a plp.json (slog
#   --from, runs, report); ckpt is an experiment killed mid-soak after a checkpoint (its drive,
#   the soak's run.json and samples fed to resume).
set -euo pipefail
BIN=$(realpath "${1:-target/release/ssdfade}")
WORK=$(mktemp -d /tmp/ssdfade-hostile.XXXXXX)
[ -n "${HOSTILE_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
export BIN WORK
python3 - <<'EOF'
import json, os, shutil, subprocess, sys, copy

BIN, WORK = os.environ["BIN"], os.environ["WORK"]
FX = os.path.join(WORK, "fixtures")
OUTSIDE = os.path.join(WORK, "outside")  # must stay empty
os.makedirs(FX); os.makedirs(OUTSIDE)
S = "sim:vertex2-60g,scale=64"

def sh(args, cwd):
    return subprocess.run([BIN] + args, cwd=cwd, capture_output=True, text=True, timeout=120)

def make(args):
    r = sh(args, FX)
    if r.returncode != 0:
        sys.exit(f"making a fixture failed: {' '.join(args)}: {r.stderr.strip()}")

make(["measure", f"{S},state={FX}/d.sim", "--duration", "5s", "--verify", "--seed", "1", "--out", "run"])
make(["experiment", "vertex2", S, "--measure-duration", "3s", "--soak-duration", "20s",
      "--soak-interval", "1s", "--seed", "1", "--out", "exp"])
make(["soak", f"{S},seed=1", f"{S},seed=2", "--duration", "5s", "--interval", "1s", "--out", "grp"])
make(["slog", S, "--sustain", "0", "--seed", "1", "--out", "slog"])
make(["erase", f"{S},state={FX}/e.sim", "--destroy-data", f"{S},state={FX}/e.sim", "--out", "erase"])
os.makedirs(os.path.join(FX, "twin"))
make(["sim", "fit", "exp", "-o", "twin/twin.toml"])
os.makedirs(os.path.join(FX, "state"))
shutil.copy(os.path.join(FX, "d.sim"), os.path.join(FX, "state", "d.sim"))
# A resumable experiment: its last phase not yet run.
shutil.copytree(os.path.join(FX, "exp"), os.path.join(FX, "open"), symlinks=True)
p = os.path.join(FX, "open", "experiment.json")
e = json.load(open(p))
e["status"] = "interrupted"
e["phases"][-1].update(status="pending", started_utc=None, ended_utc=None, headline=None)
shutil.rmtree(os.path.join(FX, "open", e["phases"][-1]["dir"]))
json.dump(e, open(p, "w"), indent=2)

# The power-loss check: a listener's sessions and a verify run of a file written through it.
def listener(cwd, sessions):
    """A `plp listen` on `sessions` (relative to cwd): (process, address or None, first line)."""
    p = subprocess.Popen([BIN, "plp", "listen", "--bind", "127.0.0.1", "--port", "0", "--dir", sessions],
                         cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    addr = line.removeprefix("listening on ") if line.startswith("listening on ") else None
    return p, addr, line

def stop(p):
    """Ends a listener with Ctrl-C; its exit status and stderr."""
    if p.poll() is None:
        p.send_signal(2)
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill(); _, err = p.communicate()
        return None, "still running 10 s after Ctrl-C"
    return p.returncode, err

PLP = os.path.join(FX, "plp")
os.makedirs(PLP)
lp, addr, line = listener(PLP, "sessions")
if not addr:
    sys.exit(f"making a fixture failed: plp listen said {line!r}")
w = sh(["plp", "write", "plp.img", "--size", "8M", "--log", addr, "--duration", "2s", "--seed", "1"], PLP)
TOKEN = w.stdout.removeprefix("session token ").split(":")[0]
v = sh(["plp", "verify", "plp.img", "--log", addr, "--token", TOKEN, "--out", "check"], PLP)
stop(lp)
if w.returncode != 0 or v.returncode != 0:
    sys.exit(f"making a fixture failed: plp write/verify: {w.stderr.strip()} {v.stderr.strip()}")

# An experiment killed mid-soak, after its drive saved a checkpoint.
CK = os.path.join(FX, "ckpt")
k = subprocess.Popen([BIN, "experiment", "vertex2", S, "--measure-duration", "3s", "--soak-duration", "20m",
                      "--soak-interval", "1s", "--checkpoint", "1m", "--seed", "1", "--out", CK],
                     cwd=FX, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
soak_samples = os.path.join(CK, "04-soak", "samples.jsonl")
import time
for _ in range(600):
    if os.path.exists(soak_samples) and sum(1 for _ in open(soak_samples)) >= 150:
        break
    time.sleep(0.1)
k.kill(); k.wait()
if not os.path.exists(soak_samples):
    sys.exit("making a fixture failed: the killed experiment has no soak samples")

# A listener restarted on the (crafted) sessions, then plp verify through it.
LISTEN_VERIFY = "listen+verify"

# The commands that read each fixture: (fixture, record file, list of commands).
def run_cmds(d):
    return [["report", d], ["plot", d], ["compare", d, d], ["export", d], ["runs", "."],
            ["sim", "fit", d, "-o", "fit.toml"],
            ["verify", "--from", d, f"{S},state={FX}/d.sim"]]
def exp_cmds(d):
    return [["report", d], ["export", d], ["runs", d], ["compare", d, d], ["sim", "fit", d, "-o", "fit.toml"]]
CASES = [
    ("run", "run.json", run_cmds),
    ("run", "samples.jsonl", run_cmds),
    ("run", "verify.map", lambda d: [["verify", "--from", d, f"{S},state={FX}/d.sim"]]),
    ("run", "latency.json", lambda d: [["report", d], ["plot", d]]),
    ("exp", "experiment.json", exp_cmds),
    ("exp", "04-soak/run.json", exp_cmds),
    ("open", "experiment.json", lambda d: [["resume", d], ["runs", d], ["report", d]]),
    ("open", "drive.sim", lambda d: [["resume", d]]),
    ("grp", "group.json", lambda d: [["export", d], ["runs", d], ["resume", d], ["report", d]]),
    ("slog", "slog.json", lambda d: [["runs", "."], ["report", d],
                                     ["slog", S, "--sustain", "0", "--seed", "1", "--from", d, "--out", "s2"]]),
    ("twin", "twin.toml", lambda d: [["measure", f"sim:@{d}/twin.toml,scale=64", "--duration", "2s", "--out", "m"],
                                     ["soak", f"sim:@{d}/twin.toml,scale=64", "--duration", "5s", "--interval", "1s", "--out", "s"]]),
    ("state", "d.sim", lambda d: [["measure", f"{S},state={d}/d.sim", "--duration", "2s", "--out", "m"],
                                  ["verify", "--from", os.path.join(FX, "run"), f"{S},state={d}/d.sim"]]),
    ("plp", f"sessions/{TOKEN}.session", lambda d: [LISTEN_VERIFY]),
    ("plp", "check/plp.json", lambda d: [["runs", "."], ["report", f"{d}/check"],
                                         ["slog", S, "--sustain", "0", "--max-size", "4k", "--from", f"{d}/check", "--out", "s2"]]),
    ("ckpt", "drive.sim", lambda d: [["resume", d]]),
    ("ckpt", "04-soak/run.json", lambda d: [["resume", d], ["runs", d]]),
    ("ckpt", "04-soak/samples.jsonl", lambda d: [["resume", d]]),
    ("ckpt", "experiment.json", lambda d: [["resume", d], ["runs", d], ["report", d]]),
    ("erase", "erase.json", lambda d: [["runs", "."],
                                       ["slog", S, "--sustain", "0", "--seed", "1", "--from", d, "--out", "s2"]]),
]

def leaves(v, path=()):
    if isinstance(v, dict):
        for k, x in v.items():
            yield from leaves(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v[:3]):
            yield from leaves(x, path + (i,))
    else:
        yield path, v

def put(v, path, new):
    v = copy.deepcopy(v)
    at = v
    for k in path[:-1]:
        at = at[k]
    at[path[-1]] = new
    return v

DEEP = "[" * 100000 + "]" * 100000
def value_mutations(value):
    """Raw JSON texts to put in place of a value (texts, so NaN and deep nesting can be written)."""
    out = ["null", '"x"']
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        out += ["-1", "1e30", "18446744073709551616", "NaN", "0", "[]"]
    if isinstance(value, str):
        out += [json.dumps(OUTSIDE), json.dumps("../../outside"), json.dumps("link"), '""', "{}"]
        if len(value) < 200 and ("/" in value or "." in value):
            out += [json.dumps("x" * 1_000_000), json.dumps("a\u0000b")]
    return out

SENTINEL = "\u2063SENTINEL\u2063"
def crafted_json(text):
    """Every crafted copy of a JSON record: (what, text)."""
    doc = json.loads(text)
    yield "truncated at half", text[: len(text) // 2]
    yield "empty", ""
    yield "deep nesting", DEEP
    yield "a huge array", "[" + ",".join(["0"] * 2_000_000) + "]"
    yield "not an object", "[]"
    if isinstance(doc, dict) and doc:
        k = next(iter(doc))
        yield f"duplicate key {k}", "{" + json.dumps(k) + ": null, " + text.strip()[1:]
    for path, value in leaves(doc):
        for m in value_mutations(value):
            t = json.dumps(put(doc, path, SENTINEL)).replace(json.dumps(SENTINEL), m, 1)
            yield f"{'.'.join(map(str, path))} = {m[:40]}", t
    # A huge array where a list is.
    def lists(v, path=()):
        if isinstance(v, dict):
            for k, x in v.items():
                yield from lists(x, path + (k,))
        if isinstance(v, list):
            yield path
    for path in lists(doc):
        if path:
            t = json.dumps(put(doc, path, SENTINEL)).replace(json.dumps(SENTINEL), "[" + ",".join(["{}"] * 200000) + "]", 1)
            yield f"{'.'.join(map(str, path))} = 200000 objects", t

def crafted_jsonl(text):
    lines = text.splitlines(keepends=True)
    yield "truncated mid-line", text[: len(text) // 2]
    yield "empty", ""
    first = json.loads(lines[0])
    for what, t in crafted_json(lines[0]):
        if what.startswith(("truncated", "empty", "deep", "a huge")):
            yield "line 2: " + what, lines[0] + t + "\n" + "".join(lines[1:])
        else:
            yield "line 2: " + what, lines[0] + t.replace("\n", " ") + "\n" + "".join(lines[1:])
    yield "a 20 MB line", lines[0] + "x" * 20_000_000 + "\n"
    yield "samples out of order", "".join(reversed(lines))
    yield "the same sample twice", lines[0] + lines[0] + "".join(lines[1:])

def crafted_toml(text):
    """Crafted copies of a twin file: each value replaced, plus damage of the whole file."""
    yield "truncated at half", text[: len(text) // 2]
    yield "empty", ""
    yield "deep nesting", "a = " + "[" * 100000 + "]" * 100000 + "\n" + text
    yield "a huge array", "periods = [" + ",".join(["1.0"] * 2_000_000) + "]\n"
    lines = text.splitlines()
    keyed = [i for i, l in enumerate(lines) if "=" in l and not l.lstrip().startswith("#")]
    if keyed:
        yield "duplicate key", lines[keyed[0]] + "\n" + text
    for i in keyed:
        key = lines[i].split("=", 1)[0].strip()
        for m in ["-1", "1e30", "nan", "inf", "0", '"x"', "[]", "{}", "true",
                  json.dumps("x" * 1_000_000), json.dumps("../../outside"), json.dumps(OUTSIDE)]:
            yield f"{key} = {m[:40]}", "\n".join(lines[:i] + [f"{key} = {m}"] + lines[i + 1:]) + "\n"

def crafted_binary(data):
    yield "empty", b""
    yield "truncated at half", data[: len(data) // 2]
    yield "one byte", data[:1]
    yield "garbage", bytes(range(256)) * 64
    yield "doubled", data + data

def crafted_session(data):
    """Crafted copies of a listener's session file: the binary damage, then each header field
    and the first posted slot's entry set to extremes, a name that is not text or too long,
    every slot claiming a record."""
    yield from crafted_binary(data)
    def at(off, value, d=data):
        return d[:off] + value.to_bytes(8, "little") + d[off + 8:]
    fields = ["slots", "record size", "began", "last message", "records", "name length"]
    for i, f in enumerate(fields):
        for v in (0, 1, 2**31, 2**63, 2**64 - 1):
            yield f"header {f} = {v}", at(8 + 8 * i, v)
    yield "name not text", data[:56] + b"\xff\xfe../\x1b]0;x\x07" + data[67:]
    posted = next((o for o in range(1024, len(data) - 39, 40) if data[o:o + 8] != bytes(8)), None)
    if posted is not None:
        for j, f in enumerate(["post_seq", "post_value", "post_ms", "pre_seq", "pre_value"]):
            for v in (0, 2**63, 2**64 - 1):
                yield f"first posted slot {f} = {v}", at(posted + 8 * j, v)
    every = bytearray(data)
    for o in range(1024, len(data) - 39, 40):
        every[o:o + 8] = (1).to_bytes(8, "little")
    yield "every slot claims record 1", bytes(every)
    yield "one byte more", data + b"\0"

def listen_verify(case, fixture):
    """Restarts a listener on the case's sessions, runs plp verify through it; a list of
    (what ran, exit status, stderr) to judge like a command's."""
    d = os.path.join(case, fixture)
    p, addr, line = listener(d, "sessions")
    if not addr:
        code, err = stop(p)
        return [("plp listen", code, line + "\n" + err)]
    try:
        r = subprocess.run([BIN, "plp", "verify", "plp.img", "--log", addr, "--token", TOKEN, "--out", "v"],
                           cwd=d, capture_output=True, text=True, timeout=60)
        out = [("plp verify", r.returncode, r.stderr)]
    except subprocess.TimeoutExpired:
        out = [("plp verify", None, "still running after 60 s")]
    code, err = stop(p)
    # Ctrl-C is how a listener ends: exit 0 or 130.
    return out + [("plp listen", 0 if code in (0, 130) else code, err)]

def listing(root):
    out = set()
    for d, _, files in os.walk(root):
        for f in files:
            out.add(os.path.join(d, f))
    return out

failures, runs = [], 0
ONLY = [f for f in os.environ.get("HOSTILE_ONLY", "").split(",") if f]
for fixture, record, cmds in CASES:
    if ONLY and fixture not in ONLY:
        continue
    src = os.path.join(FX, fixture, record)
    raw = open(src, "rb").read()
    if record.endswith(".session"):
        crafted = crafted_session(raw)
    elif record.endswith(".toml"):
        crafted = ((w, t.encode()) for w, t in crafted_toml(raw.decode()))
    elif record.endswith(".jsonl"):
        crafted = ((w, t.encode()) for w, t in crafted_jsonl(raw.decode()))
    elif record.endswith(".json"):
        crafted = ((w, t.encode()) for w, t in crafted_json(raw.decode()))
    else:
        crafted = crafted_binary(raw)
    crafted = list(crafted) + [("a symlink out of the directory", None)]
    for n, (what, data) in enumerate(crafted):
        case = os.path.join(WORK, "case")
        shutil.rmtree(case, ignore_errors=True)
        os.makedirs(case)
        d = os.path.join(case, fixture)
        shutil.copytree(os.path.join(FX, fixture), d, symlinks=True)
        os.symlink(OUTSIDE, os.path.join(d, "link"))
        target = os.path.join(d, record)
        if data is None:
            os.replace(target, os.path.join(OUTSIDE, "moved"))
            os.symlink(os.path.join(OUTSIDE, "moved"), target)
        else:
            open(target, "wb").write(data)
        before_outside = listing(OUTSIDE)
        before_fx = listing(FX)
        for cmd in cmds(fixture):
            if cmd == LISTEN_VERIFY:
                ran = listen_verify(case, fixture)
            else:
                try:
                    r = subprocess.run([BIN] + cmd, cwd=case, capture_output=True, text=True, timeout=60)
                    ran = [(" ".join(cmd), r.returncode, r.stderr)]
                except subprocess.TimeoutExpired:
                    ran = [(" ".join(cmd), None, "still running after 60 s")]
            for name, code, stderr in ran:
                runs += 1
                err = stderr.strip().splitlines()
                last = err[-1] if err else ""
                why = None
                if code is None:
                    why = stderr
                elif "panicked" in stderr or code not in (0, 1, 2, 130):
                    why = f"exit {code}: {stderr.strip()[:300]}"
                elif code == 2 and not last:
                    why = "exit 2 without a reason"
                elif any(s in stderr for s in ("Error {", "Os {", "kind: ", "Some(", "Custom {")):
                    why = f"Debug text: {last[:300]}"
                elif len(last) > 2000:
                    why = f"a reason of {len(last)} characters"
                if listing(OUTSIDE) != before_outside or listing(FX) != before_fx:
                    why = (why or "") + f" wrote outside its directory: {sorted(listing(OUTSIDE) - before_outside)}"
                if why:
                    failures.append(f"{fixture}/{record} [{what}] {name}: {why}")
                    print("FAIL", failures[-1], flush=True)
        for f in os.listdir(OUTSIDE):
            os.unlink(os.path.join(OUTSIDE, f))
    print(f"{fixture}/{record}: {len(crafted)} crafted copies", flush=True)

print(f"{runs} commands, {len(failures)} failures")
sys.exit(1 if failures else 0)
EOF
