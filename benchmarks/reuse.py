"""Never compute the same thing twice (issue 34): what reuse and resume save, as a table.

Lines (each timed in its own child process, the explainer libraries and the engine imported and the helper
process of ``evaluation.parallel.backend: auto`` started before timing, as the dashboard does at start-up):

* ``<use case>: second run, personas changed`` — a whole bundled run at the use case's settings (first run, into an
  empty runs root), then the same run with only the persona file changed (the generic personas) into the same
  root: its explanations, metrics and sanity checks come from the store. Goal: the second ``evaluate()`` call
  <= 15 % of the first (never more than a third).
* ``<use case>: resume after 80 % of the technical stage`` — a run killed (SIGKILL, from its own progress
  callback) once the technical stage reported 80 % of its progress, then ``evaluate(resume=...)`` in a new
  process, against a whole uninterrupted run into an empty root. Goal: the resumed call <= 30 % of the whole run.

Each line prints the reference (the first or the whole run), the measured call, their ratio, the goal, and the
1-minute load average before and after the line (2 cores shared with other work: read the ratios with it).

    PYTHONPATH=. .venv/bin/python benchmarks/reuse.py [--usecases heart credit_risk]

Figures at ``never-twice``, 28 Nov 2026, 2 cores shared with other work. At 15:17 UTC (pieces per case, load 12-15:
every figure is stretched by the load, the ratios less so):

| line | reference | measured | ratio | goal | met | load before / after | reuse |
|---|---|---|---|---|---|---|---|
| heart: second run, personas changed | 12.33 s | 3.64 s | 30% | <= 15% | no | 13.51 / 12.80 | reused 100, computed 0 |
| credit_risk: second run, personas changed | 24.18 s | 4.10 s | 17% | <= 15% | no | 12.80 / 14.58 | reused 100, computed 0 |
| heart: resume after 80 % of the technical stage | 14.93 s | 5.69 s | 38% | <= 30% | no | 14.58 / 11.79 | reused 100, computed 0 |
| credit_risk: resume after 80 % of the technical stage | 27.09 s | 10.14 s | 37% | <= 30% | no | 11.79 / 11.77 | reused 100, computed 0 |

At 14:53 UTC (pieces per explanation call, before the helper's answers were kept as they came; load ~2):

| line | reference | measured | ratio | goal | met | load before / after | reuse |
|---|---|---|---|---|---|---|---|
| heart: second run, personas changed | 3.02 s | 0.70 s | 23% | <= 15% | no | 1.74 / 1.94 | reused 100, computed 0 |
| credit_risk: second run, personas changed | 4.60 s | 0.61 s | 13% | <= 15% | yes | 1.94 / 1.88 | reused 100, computed 0 |
| heart: resume after 80 % of the technical stage | 3.07 s | 1.62 s | 53% | <= 30% | no | 1.88 / 2.04 | reused 100, computed 0 |
| credit_risk: resume after 80 % of the technical stage | 3.68 s | 2.20 s | 60% | <= 30% | no | 2.04 / 1.97 | reused 100, computed 0 |

What is left in those seconds is not explanation work (none is computed): a second run still loads the model
(~0.2 s), tells the narratives for the new personas' audiences, rates and recommends; a resumed run still measures
every method (metrics are not stored per piece yet) and runs the sanity checks (~0.5-1.2 s), which had not started
at 80 % of the technical stage.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERIC = ROOT / "configs" / "generic" / "personas.yaml"
TECHNICAL_FROM, TECHNICAL_SPAN = 5, 55  # evaluate()'s progress: the technical stage reports 5 … 60 of 100


def _child(args: argparse.Namespace) -> None:
    """Time one ``evaluate()`` call (after the imports and the helper's start) and print its figures as JSON."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from targets import _import_stack

    _import_stack()
    from hexeval_engine.evaluate import evaluate

    overrides = {"personas": {"file": str(GENERIC)}} if args.generic else None
    on_progress = None
    if args.kill_at is not None:
        def on_progress(done, total, message):
            if message.startswith("Technical") and done >= args.kill_at:
                os.kill(os.getpid(), signal.SIGKILL)  # as a closed laptop or an out-of-memory kill would
    start = time.perf_counter()
    if args.resume:
        result = evaluate(output_dir=args.root, resume=args.resume)
    else:
        result = evaluate(usecase=args.usecase, output_dir=args.root, config_overrides=overrides,
                          on_progress=on_progress)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "reuse": result.manifest.get("reuse", {}), "run_id": result.run_id}))


def _run(*extra: str) -> dict | None:
    """Run a child; its JSON, or None when it was killed (the interrupted run).

    The child runs in its own process group: a child killed with SIGKILL leaves its helper process behind
    (holding the output pipes), which is ended with the group."""
    proc = subprocess.Popen([sys.executable, __file__, "--child", *extra], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        proc.wait(timeout=1800)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    out, err = proc.communicate(timeout=60)
    if proc.returncode == -signal.SIGKILL:
        return None
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{err[-3000:]}")
    return json.loads(out.strip().splitlines()[-1])


def _line(name: str, reference: float, measured: float, goal: float, load: tuple, note: str) -> str:
    ratio = measured / reference
    return (f"| {name} | {reference:.2f} s | {measured:.2f} s | {ratio:.0%} | <= {goal:.0%} | "
            f"{'yes' if ratio <= goal else 'no'} | {load[0]:.2f} / {load[1]:.2f} | {note} |")


def _personas_line(usecase: str) -> str:
    before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as root:
        first = _run("--usecase", usecase, "--root", root)
        second = _run("--usecase", usecase, "--root", root, "--generic")
    reuse = second["reuse"]
    return _line(f"{usecase}: second run, personas changed", first["seconds"], second["seconds"], 0.15,
                 (before, os.getloadavg()[0]), f"reused {reuse['explanations_reused']}, computed "
                 f"{reuse['explanations_computed']}")


def _resume_line(usecase: str) -> str:
    before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as whole_root, tempfile.TemporaryDirectory() as root:
        whole = _run("--usecase", usecase, "--root", whole_root)
        kill_at = TECHNICAL_FROM + 0.8 * TECHNICAL_SPAN
        assert _run("--usecase", usecase, "--root", root, "--kill-at", str(kill_at)) is None, "the run was not killed"
        sys.path.insert(0, str(ROOT))
        from hexeval_engine.runs.resumable import resumable_runs

        [info] = resumable_runs(root)
        resumed = _run("--root", root, "--resume", info.run_id)
    reuse = resumed["reuse"]
    return _line(f"{usecase}: resume after 80 % of the technical stage", whole["seconds"], resumed["seconds"], 0.30,
                 (before, os.getloadavg()[0]), f"reused {reuse['explanations_reused']}, computed "
                 f"{reuse['explanations_computed']} ({info.pieces} pieces kept)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--usecase")
    parser.add_argument("--root")
    parser.add_argument("--generic", action="store_true")
    parser.add_argument("--kill-at", type=float)
    parser.add_argument("--resume")
    parser.add_argument("--usecases", nargs="+", default=["heart", "credit_risk"])
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    print(f"benchmarks/reuse.py, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores; "
          "each evaluate() call timed in its own process (imports and helper warm)\n")
    print("| line | reference (first / whole run) | measured | ratio | goal | met | load before / after | reuse |")
    print("|---|---|---|---|---|---|---|---|")
    for usecase in args.usecases:
        print(_personas_line(usecase), flush=True)
    for usecase in args.usecases:
        print(_resume_line(usecase), flush=True)


if __name__ == "__main__":
    main()
