"""CPU seconds of credit risk at the original's defaults, revision against revision, alternating (issue 22).

Each revision named on the command line is exported (``git archive``) into a temporary folder, given this
checkout's prepared models, and run in child processes in turn (rev 1, rev 2, ..., rev 1, rev 2, ...), so a
shared machine's load drifts over every revision alike. A child runs ``evaluate(usecase="credit_risk",
config_overrides=original_defaults(100), save=False)`` once to warm up and then ``--runs`` times measured, and
reports the process CPU seconds of each measured run (all threads) and the CPU seconds spent inside the
functions named with ``--function module:qualname`` (the calling thread's CPU time, summed over calls; a
function running in lockstep threads counts its own thread only). Name the module its callers look the function
up in: a function imported by name elsewhere (``from .readers import reader_neighbourhoods``) is timed there. The table prints medians per revision with
the load average beside each line.

    PYTHONPATH=. .venv/bin/python benchmarks/revisions_cpu.py main cpu [--rounds 3] [--runs 2] \\
        [--function hexeval_engine.metrics.readers:reader_neighbourhoods ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from workloads import load_average  # noqa: E402  (benchmarks/ is on the path from here)

#: The child: warm-up run, then measured runs with the named functions timed; one JSON line on stdout.
CHILD = r"""
import importlib, json, sys, time
root, runs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
sys.path[:0] = [root, root + "/benchmarks"]
from workloads import original_defaults
from hexeval_engine import evaluate
spent = {n: 0.0 for n in names}

def timed(name):
    module, qualname = name.split(":")
    owner = importlib.import_module(module)
    *path, attr = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    raw = owner.__dict__[attr]
    fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
    def wrapper(*args, **kwargs):
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] += time.thread_time() - start
    setattr(owner, attr, type(raw)(wrapper) if isinstance(raw, (classmethod, staticmethod)) else wrapper)

for name in names:
    timed(name)
run = lambda: evaluate(usecase="credit_risk", config_overrides=original_defaults(100), save=False)
run()
totals, per_function = [], {n: [] for n in names}
for _ in range(runs):
    for n in names:
        spent[n] = 0.0
    start = time.process_time()
    run()
    totals.append(time.process_time() - start)
    for n in names:
        per_function[n].append(spent[n])
print(json.dumps({"totals": totals, "functions": per_function}))
"""


def export(revision: str, folder: Path) -> Path:
    """``revision``'s tree in ``folder``, with this checkout's prepared (git-ignored) model files."""
    target = folder / revision.replace("/", "_")
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    for usecase in (ROOT / "usecases").iterdir():
        for prepared in usecase.glob("model*"):
            destination = target / "usecases" / usecase.name / prepared.name
            if destination.parent.exists() and not destination.exists():
                shutil.copy2(prepared, destination)
    return target


def measure(tree: Path, runs: int, functions: list[str]) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(runs), *functions], cwd=tree,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tree)})
    if out.returncode != 0:
        raise RuntimeError(f"The run of {tree.name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="+", help="git revisions, e.g. main cpu (or commit ids)")
    parser.add_argument("--rounds", type=int, default=3, help="child processes per revision (alternating)")
    parser.add_argument("--runs", type=int, default=2, help="measured runs per child (after one warm-up run)")
    parser.add_argument("--function", action="append", default=[], metavar="MODULE:QUALNAME")
    args = parser.parse_args()
    results = {r: {"totals": [], "functions": {f: [] for f in args.function}, "loads": []} for r in args.revisions}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {r: export(r, Path(tmp)) for r in args.revisions}
        for _ in range(args.rounds):
            for r in args.revisions:
                results[r]["loads"].append(load_average().split()[0])
                got = measure(trees[r], args.runs, args.function)
                results[r]["totals"] += got["totals"]
                for f in args.function:
                    results[r]["functions"][f] += got["functions"][f]
    print("credit risk, original's defaults (100 cases), whole evaluate(); medians of "
          f"{args.rounds} x {args.runs} runs per revision, revisions alternating")
    head = f"{'revision':12s} {'run CPU s':>10s}" + "".join(f" {f.split(':')[1][-28:]:>28s}" for f in args.function)
    print(head + "  load (1-min) per child")
    for r in args.revisions:
        res = results[r]
        line = f"{r:12s} {statistics.median(res['totals']):10.3f}"
        line += "".join(f" {statistics.median(res['functions'][f]):28.3f}" for f in args.function)
        print(line + "  " + " ".join(res["loads"]))


if __name__ == "__main__":
    main()
