"""Every family can win on its evidence: the cross-family technical score in worlds with a known answer.

For each world of ``tests/fair_world_fixtures.py`` (a two-condition rule, a dense linear model where six of
eight features matter, one deciding feature) and each seed, the technical evaluation runs on ``--cases``
test cases and the recommender's per-case technical term (``technical_claim_score``: claim sufficiency and
reader accuracy) is read for every method. Differences are paired per case and pooled over the seeds;
the interval is the percentile bootstrap of :func:`hexeval_engine.paired_stats.paired_difference`.

Run from the project root: ``PYTHONPATH=. .venv/bin/python benchmarks/fair_worlds.py [--seeds 5] [--cases 12]``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from fair_world_fixtures import WORLDS, technical_scores  # noqa: E402 (after the path set-up)
from workloads import load_average  # noqa: E402

from hexeval_engine.paired_stats import paired_difference  # noqa: E402

PAIRS = [("Anchor", "SHAP"), ("LIME", "Anchor"), ("SHAP", "Anchor"), ("DiCE", "SHAP"),
         ("SHAP", "Random"), ("LIME", "Random"), ("Anchor", "Random"), ("DiCE", "Random")]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--cases", type=int, default=12)
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    print(f"reference: technical_claim_score per case, paired, pooled over {args.seeds} seeds x {args.cases} cases")
    print(f"{'world':8} {'mean score per method':58} | {'a - b':16} {'mean':>7} {'95% interval':>18} {'n':>4}  load")
    for name in WORLDS:
        start = time.perf_counter()
        table = pd.concat([technical_scores(name, s, cases=args.cases) for s in range(args.seeds)], ignore_index=True)
        means = " ".join(f"{m} {table[m].mean():.3f}" for m in ("SHAP", "LIME", "Anchor", "DiCE", "Random")
                         if m in table)
        for k, (a, b) in enumerate(PAIRS):
            if a not in table or b not in table:
                continue
            d = paired_difference(table[a].to_numpy(), table[b].to_numpy(), n_resamples=2000, seed=0)
            head = f"{name:8} {means:58}" if k == 0 else f"{'':8} {'':58}"
            print(f"{head} | {a + ' - ' + b:16} {d.mean:+7.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}] {d.n:4d}  "
                  f"{load_average()}")
        print(f"{'':8} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
