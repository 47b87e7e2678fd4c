"""What a person waits for from the shell: ``hexeval evaluate --usecase U`` as a new process, imports included.

The targets of issue 22 (``targets.py``) time ``evaluate()`` in a process that has imported the engine and
started the helper process before timing, as the dashboard does once per server. A ``hexeval evaluate``
command is a new process every time: it pays the imports (~3 s: scikit-learn, pandas, skops, shap) and the
helper's start (~2 s of imports in its forkserver) on top. This script times the whole command, each run in
its own process, alternating between checkouts when given several (``--repo``), and prints one line per run
with the load average before and after.

    PYTHONPATH=. .venv/bin/python benchmarks/cli_cold.py [--usecases heart credit_risk] [--repeats 3]
                                                         [--repo /path/to/other/checkout ...]

``--repo`` runs the same command from another checkout of HEXEval (its own ``hexeval_engine`` first on the
path, this project's virtual environment): an A/B of two revisions in the same minutes. Settings: the use
case's bundled config (the project's defaults: 20 shared cases, sanity checks, narratives, simulated
personas, the run folder written to a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks")]


SETTINGS = "project defaults (bundled config), simulated personas, run folder written"


def load_average() -> float:
    """The machine's 1-minute load average."""
    return os.getloadavg()[0]


def _git_revision(repo: Path) -> str:
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (done.stdout.strip() or "?") + ("+changes" if dirty else "")


def time_command(repo: Path, usecase: str) -> tuple[float, float, float, int]:
    """(wall seconds, load before, load after, exit code) of one ``hexeval evaluate --usecase`` process."""
    env = {**os.environ, "PYTHONPATH": str(repo)}
    env.pop("OPENAI_API_KEY", None)  # offline, as `make run`
    with tempfile.TemporaryDirectory() as out:
        before = load_average()
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "hexeval_engine", "evaluate", "--usecase", usecase,
                               "--output", out], cwd=repo, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-2000:])
    return wall, before, load_average(), done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--usecases", nargs="+", default=["heart", "credit_risk"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repo", nargs="*", default=[], help="other checkouts to time in alternation with this one")
    args = parser.parse_args(argv)
    repos = [ROOT] + [Path(r).resolve() for r in args.repo]
    names = {repo: f"{repo.name} @ {_git_revision(repo)}" for repo in repos}
    print(f"hexeval evaluate --usecase U, each run a new process; {SETTINGS}; {os.cpu_count()} cores")
    print(f"{'use case':<12} {'checkout':<34} {'run':>3} {'wall s':>7}  {'load before/after':<18} exit")
    walls: dict[tuple[str, Path], list[float]] = {}
    for usecase in args.usecases:
        for run in range(1, args.repeats + 1):
            for repo in repos:
                wall, before, after, code = time_command(repo, usecase)
                walls.setdefault((usecase, repo), []).append(wall)
                print(f"{usecase:<12} {names[repo]:<34} {run:>3} {wall:>7.2f}  {before:.2f} / {after:.2f}{'':<6} {code}",
                      flush=True)
    print("\nmedian wall seconds")
    for (usecase, repo), values in walls.items():
        print(f"{usecase:<12} {names[repo]:<34} {statistics.median(values):>7.2f}  (of {len(values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
