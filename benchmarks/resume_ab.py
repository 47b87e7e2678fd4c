"""Two code trees resume the same interrupted run, alternately, each in a fresh process: a paired comparison.

``benchmarks/reuse.py`` kills a new run for every resume line, and where the kill lands (which of the helper's
re-explanations the killed run kept) moves the resume by ~0.3 s on heart, as much as a change being measured. Here
one run is killed once (SIGKILL at 80 % of the technical stage, by the NEW tree), and copies of its working folder
are resumed by the OLD and the NEW tree in turn (the order alternating per pair); each tree's whole run, into an
empty root, is timed beside it as the reference.

Every stored piece is keyed with a hash of the engine's source, so the two trees could not read each other's
pieces. Both children key them with one stand-in instead (``STAND_IN``, patched into ``runs.checkpoints`` and
``runs.model_audits`` before any run). That is valid only when the two trees give identical results: check that
first with ``benchmarks/fingerprint.py`` on both. Both trees resume the NEW tree's kill, so a change of what a killed run
keeps (e.g. the check's re-explanations done while waiting, ``technical/spare_reruns.py``) helps both alike here: measure
such a change with ``reuse.py``, each tree killing its own run. Like ``reuse.py``, each child imports the explainer libraries and
the engine and starts the helper process (``targets._import_stack``) before timing.

    .venv/bin/python benchmarks/resume_ab.py OLD_TREE NEW_TREE [--pairs 8] [--usecase heart]

A tree is a checkout with the bundled use cases prepared (``git worktree add /tmp/old <commit>``, then copy
``usecases/*/model.skops`` and ``model_card.json``; it may share this checkout's ``.venv``). Prints one line per
child and the medians, with the 1-minute load average.

Figures of 30 Nov 2026 03:01-03:05 UTC, heart, 8 pairs, load 1.1-1.4: ``8dd46ea`` (OLD) against ``8e2b241`` (NEW:
the rows hashed once per call, feature-name patterns compiled only for names the text holds, narwhals' plugin list
read by the warm-up, the constraint findings read once per method):

| tree | resumed call, median | main-process CPU, median | whole run, median | resume / whole | new faster |
|---|---|---|---|---|---|
| OLD | 1.432 s | 1.37 s | 4.140 s | 34.6 % | |
| NEW | 1.373 s | 1.27 s | 4.213 s | 32.6 % | in 5 of 8 pairs |

Within one tree the resumed call still moves by +-0.2 s from child to child on the same killed run: it depends on
which of the check's re-explanations the main process takes back from the helper (LIME's 0.15-0.17 s, a DiCE
case's ~0.15 s) before the helper's last search ends.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reuse import TECHNICAL_FROM, TECHNICAL_SPAN  # evaluate()'s progress of the technical stage

STAND_IN = "resume-ab-stand-in-for-the-source-hash"
KILL_AT = TECHNICAL_FROM + 0.8 * TECHNICAL_SPAN  # as reuse.py's resume line kills


def _child(tree: str, mode: str, root: str, usecase: str) -> None:
    """In a fresh process: time one ``evaluate()`` of ``tree`` (``whole``, ``resume`` or ``kill``)."""
    sys.path[:0] = [tree, str(Path(tree) / "benchmarks")]
    import hexeval_engine.runs.checkpoints as checkpoints
    import hexeval_engine.runs.model_audits as model_audits

    checkpoints.code_digest = model_audits.code_digest = lambda: STAND_IN
    from targets import _import_stack

    _import_stack()
    import hexeval_engine
    from hexeval_engine.evaluate import evaluate

    if not hexeval_engine.__file__.startswith(tree):
        raise SystemExit(f"imported the engine from {hexeval_engine.__file__}, not from {tree}")
    on_progress = None
    if mode == "kill":
        def on_progress(done, total, message):
            if message.startswith("Technical") and done >= KILL_AT:
                os.kill(os.getpid(), signal.SIGKILL)  # as a closed laptop would
    resume = None
    if mode == "resume":
        from hexeval_engine.runs.resumable import resumable_runs

        [info] = resumable_runs(root)
        resume = info.run_id
    start, cpu = time.perf_counter(), time.process_time()
    if resume:
        result = evaluate(output_dir=root, resume=resume)
    else:
        result = evaluate(usecase=usecase, output_dir=root, on_progress=on_progress)
    print(json.dumps({"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                      "reused": result.manifest.get("reuse", {}).get("explanations_reused")}))


def _run(tree: str, mode: str, root: str, usecase: str) -> dict | None:
    proc = subprocess.Popen([sys.executable, __file__, "--child", tree, mode, root, usecase], cwd=tree,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": tree})
    try:
        out, err = proc.communicate(timeout=1800)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # a killed child's helper process is ended with its group
        except ProcessLookupError:
            pass
    if mode == "kill":
        return None
    if proc.returncode != 0:
        raise SystemExit(f"the {mode} child of {tree} failed:\n{err[-3000:]}")
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(*sys.argv[2:6])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--usecase", default="heart")
    args = parser.parse_args()
    trees = {"OLD": str(Path(args.old).resolve()), "NEW": str(Path(args.new).resolve())}
    work = Path(tempfile.mkdtemp(prefix="resume-ab-"))
    try:
        _run(trees["NEW"], "kill", str(work / "killed"), args.usecase)
        figures: dict[str, list] = {"OLD": [], "NEW": []}
        for pair in range(args.pairs):
            for name in (("OLD", "NEW") if pair % 2 == 0 else ("NEW", "OLD")):
                copy = work / f"resume-{pair}-{name}"
                shutil.copytree(work / "killed", copy)
                resumed = _run(trees[name], "resume", str(copy), args.usecase)
                whole = _run(trees[name], "whole", str(work / f"whole-{pair}-{name}"), args.usecase)
                figures[name].append((resumed, whole))
                print(f"{name}: resumed {resumed['wall']:.3f} s (main CPU {resumed['cpu']:.2f} s, "
                      f"{resumed['reused']} explanations reused), whole {whole['wall']:.3f} s, "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name, rows in figures.items():
        resumed = statistics.median(r["wall"] for r, _ in rows)
        whole = statistics.median(w["wall"] for _, w in rows)
        cpu = statistics.median(r["cpu"] for r, _ in rows)
        print(f"{name}: resumed median {resumed:.3f} s, main CPU {cpu:.2f} s, whole median {whole:.3f} s, "
              f"resume / whole {resumed / whole:.1%}")
    faster = sum(n[0]["wall"] < o[0]["wall"] for o, n in zip(figures["OLD"], figures["NEW"]))
    print(f"NEW resumed faster in {faster} of {args.pairs} pairs")


if __name__ == "__main__":
    main()
