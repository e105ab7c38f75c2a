#!/usr/bin/env python3
"""Mutation run: random damage to the shared scenario files, fed to rlcost.

Makes N mutants of ../shared/scenarios/*.yaml and ../shared/validation/*.yaml
(lines deleted or duplicated, numbers made extreme, values of the wrong type,
random bytes, truncation), runs `rlcost estimate FILE --json` and
`rlcost simulate FILE --json --steps 2` on each with a time limit, and counts:

  abort        killed by a signal, or rlcost's "internal error" line (exit 3)
  timeout      more than --timeout CPU seconds (or 10x that in wall time)
  bad_json     exit 0 but stdout is not one JSON document
  bad_value    exit 0 but a value is null or not a finite number
  unnamed      an error whose problems name neither a field path nor file:line
  ok_error     a clear error (exit 2/3/4, every problem named)
  ok           exit 0, valid JSON, every number finite

Every mutant of a bad class is kept under --out (with the command) so that it
can become a regression test. Usage:

  nice scripts/mutate.py --binary build/release/rlcost -n 5000 --jobs 2 --out /tmp/mutants
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

EXTREMES = ["0", "-1", "-0.0", "1e308", "-1e308", "1e-300", "2147483648", "4294967296", "1e9", "1e15",
            "99999999999999999999", ".nan", ".inf", "-.inf", "0x7fffffff", "1e6", "3.5", "007"]
WRONG_TYPES = ["[1, 2]", "{a: 1}", "abc", "true", "null", "''", "[]", "{}", "\"caf\xe9\"", "~"]
BAD_CLASSES = ["abort", "timeout", "bad_json", "bad_value", "unnamed"]


def numbers_in(line):
    """(start, end) spans of the numbers in a line."""
    spans, i = [], 0
    while i < len(line):
        if line[i].isdigit() or (line[i] in "-." and i + 1 < len(line) and line[i + 1].isdigit()):
            j = i + 1
            while j < len(line) and (line[j].isdigit() or line[j] in ".eE+-"):
                j += 1
            spans.append((i, j))
            i = j
        else:
            i += 1
    return spans


def mutate(data: bytes, rng: random.Random) -> bytes:
    lines = data.split(b"\n")
    kind = rng.choice(["delete", "duplicate", "extreme", "extreme", "extreme", "type", "type", "bytes", "truncate"])
    i = rng.randrange(len(lines))
    if kind == "delete" and len(lines) > 1:
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "extreme":
        cand = [(k, s) for k, ln in enumerate(lines) for s in numbers_in(ln.decode("latin-1"))]
        if cand:
            k, (a, b) = rng.choice(cand)
            ln = lines[k].decode("latin-1")
            lines[k] = (ln[:a] + rng.choice(EXTREMES) + ln[b:]).encode("latin-1")
    elif kind == "type":
        cand = [k for k, ln in enumerate(lines) if b": " in ln]
        if cand:
            k = rng.choice(cand)
            ln = lines[k].decode("latin-1")
            head, _, tail = ln.partition(": ")
            # Keep a flow mapping's closing brace balanced where there was one.
            rest = tail.split(",", 1)
            new = rng.choice(WRONG_TYPES)
            lines[k] = (head + ": " + new + ("," + rest[1] if len(rest) > 1 else "")).encode("latin-1")
    elif kind == "bytes":
        blob = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        text = b"\n".join(lines)
        at = rng.randrange(len(text) + 1)
        return text[:at] + blob + text[at:]
    elif kind == "truncate":
        text = b"\n".join(lines)
        return text[: rng.randrange(len(text) + 1)]
    return b"\n".join(lines)


CPU_LIMIT_S = 20


def limit_resources():
    # 4 GiB of address space: a runaway allocation fails inside rlcost (and
    # must be reported cleanly) instead of starving the machine. The time
    # limit is CPU seconds (SIGXCPU), so that a loaded shared machine does not
    # turn a 0.1 s run into a "timeout"; a blocked read uses no CPU and is
    # caught by the wall-clock limit (10x) instead.
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S + 1))


def bad_numbers(j, at="", out=None):
    out = [] if out is None else out
    if j is None:
        out.append(at + " is null")
    elif isinstance(j, float) and not math.isfinite(j):
        out.append(at + " is not finite")
    elif isinstance(j, dict):
        for k, v in j.items():
            bad_numbers(v, at + "." + k, out)
    elif isinstance(j, list):
        for i, v in enumerate(j):
            bad_numbers(v, f"{at}[{i}]", out)
    return out


def classify(proc, timed_out):
    if timed_out:
        return "timeout", ""
    if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "timeout", f"CPU time limit (signal {-proc.returncode})"
    if proc.returncode < 0:
        return "abort", f"signal {-proc.returncode}"
    err = proc.stderr.decode("utf-8", "replace")
    if "internal error" in err:
        return "abort", err.strip()[:300]
    out = proc.stdout.decode("utf-8", "replace")
    try:
        j = json.loads(proc.stdout)
    except ValueError as e:
        return ("bad_json" if proc.returncode == 0 else "unnamed"), f"stdout is not JSON: {e}"[:300]
    if proc.returncode == 0:
        bad = bad_numbers(j)
        return ("bad_value", "; ".join(bad[:5])) if bad else ("ok", "")
    problems = j.get("error", {}).get("problems", []) if isinstance(j, dict) else []
    if not problems:
        return "unnamed", out[:300]
    for p in problems:
        named = bool(p.get("path")) or int(p.get("line", 0)) > 0
        if not named:
            return "unnamed", json.dumps(p)[:300]
    return "ok_error", ""


def run_one(binary, path, args, timeout):
    try:
        proc = subprocess.run([binary, args[0], path] + args[1:], capture_output=True, timeout=max(10 * timeout, 120),
                              preexec_fn=limit_resources)
        return classify(proc, False)
    except subprocess.TimeoutExpired:
        return classify(None, True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--binary", default=os.path.join(here, "..", "build", "release", "rlcost"))
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
    ap.add_argument("-n", type=int, default=200, help="mutants (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=20, help="CPU seconds per run (default 20; wall clock 10x)")
    ap.add_argument("--out", default="", help="folder for the mutants of a bad class and summary.json")
    a = ap.parse_args()
    global CPU_LIMIT_S
    CPU_LIMIT_S = a.timeout

    sources = []
    for sub in ("scenarios", "validation"):
        d = os.path.join(a.shared, sub)
        sources += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".yaml"))
    if not sources:
        sys.exit(f"no scenario files under {a.shared}")
    work = tempfile.mkdtemp(prefix="rlcost_mutants_")
    # Mutants sit beside copies of the files they may name (pilot_pass_rates.csv).
    for sub in ("scenarios", "validation"):
        shutil.copytree(os.path.join(a.shared, sub), os.path.join(work, sub))
    out_dir = a.out or os.path.join(work, "kept")
    os.makedirs(out_dir, exist_ok=True)

    runs = [("estimate", ["estimate", "--json"]), ("simulate", ["simulate", "--json", "--steps", "2"])]
    counts = {r: {c: 0 for c in BAD_CLASSES + ["ok_error", "ok"]} for r, _ in runs}
    lock = threading.Lock()
    rng = random.Random(a.seed)
    plans = []
    for i in range(a.n):
        src = rng.choice(sources)
        data = open(src, "rb").read()
        for _ in range(rng.randint(1, 3)):
            data = mutate(data, rng)
        plans.append((i, src, data))

    def task(plan):
        i, src, data = plan
        sub = os.path.basename(os.path.dirname(src))
        path = os.path.join(work, sub, f"m{i:05d}_{os.path.basename(src)}")
        with open(path, "wb") as f:
            f.write(data)
        for name, args in runs:
            cls, detail = run_one(os.path.abspath(a.binary), path, args, a.timeout)
            with lock:
                counts[name][cls] += 1
                if cls in BAD_CLASSES:
                    keep = os.path.join(out_dir, f"{cls}_{name}_m{i:05d}_{os.path.basename(src)}")
                    shutil.copy(path, keep)
                    with open(keep + ".txt", "w") as t:
                        t.write(f"rlcost {args[0]} FILE {' '.join(args[1:])}\n{detail}\n")
        os.remove(path)

    def write_summary(done):
        summary = {"mutants": a.n, "done": done, "seed": a.seed, "timeout_s": a.timeout, "counts": counts,
                   "kept": out_dir}
        with lock, open(os.path.join(out_dir, "summary.json"), "w") as f:
            json.dump(summary, f, indent=2)
        return summary

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for k, _ in enumerate(ex.map(task, plans), 1):
            if k % 250 == 0:  # partial counts survive an interrupted run
                write_summary(k)
                print(f"{k}/{a.n} mutants", file=sys.stderr, flush=True)

    print(json.dumps(write_summary(a.n), indent=2))
    bad = sum(counts[r][c] for r in counts for c in BAD_CLASSES)
    shutil.rmtree(os.path.join(work, "scenarios"))
    shutil.rmtree(os.path.join(work, "validation"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
