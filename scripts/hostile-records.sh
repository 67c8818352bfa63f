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
#   records (run, exp, open, grp, slog, erase, twin, state).
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
    if record.endswith(".toml"):
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
            runs += 1
            try:
                r = subprocess.run([BIN] + cmd, cwd=case, capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                failures.append(f"{fixture}/{record} [{what}] {' '.join(cmd)}: still running after 60 s")
                continue
            err = r.stderr.strip().splitlines()
            last = err[-1] if err else ""
            why = None
            if "panicked" in r.stderr or r.returncode not in (0, 1, 2, 130):
                why = f"exit {r.returncode}: {r.stderr.strip()[:300]}"
            elif r.returncode == 2 and not last:
                why = "exit 2 without a reason"
            elif any(s in r.stderr for s in ("Error {", "Os {", "kind: ", "Some(", "Custom {")):
                why = f"Debug text: {last[:300]}"
            elif len(last) > 2000:
                why = f"a reason of {len(last)} characters"
            if listing(OUTSIDE) != before_outside or listing(FX) != before_fx:
                why = (why or "") + f" wrote outside its directory: {sorted(listing(OUTSIDE) - before_outside)}"
            if why:
                failures.append(f"{fixture}/{record} [{what}] {' '.join(cmd)}: {why}")
                print("FAIL", failures[-1], flush=True)
        for f in os.listdir(OUTSIDE):
            os.unlink(os.path.join(OUTSIDE, f))
    print(f"{fixture}/{record}: {len(crafted)} crafted copies", flush=True)

print(f"{runs} commands, {len(failures)} failures")
sys.exit(1 if failures else 0)
EOF
