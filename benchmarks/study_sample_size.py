"""How many participants and cases make a study's intervals narrow enough to act on (docs/studies.md).

Simulated studies of one role, analysed by the calibration HEXEval runs on real ones
(:func:`hexeval_engine.study.calibration.calibration_from`, the same bootstrap, 1,000 resamples):

* ``C`` cases x 6 explanations are the items; each item has a true quality ``q ~ N(0, 1)``.
* each of ``P`` people rates every item ``clip(round(3 + q + e), 1, 5)`` with ``e ~ N(0, 1)`` (people
  disagree about as much as the items differ); the personas rate ``clip(round(3 + q + e'), 1, 5)``,
  i.e. as well as one more person would;
* what-if questions: with the Random explanation a person is right half of the time, with a helpful
  method 75% of the time (a difference of +0.25).

Printed per (people, cases): the median width of the 95% intervals of Krippendorff's alpha among people
and between personas and people, of Spearman's rho (first question), and of the what-if difference from
Random, and the share of simulated studies whose interval for that difference excludes 0 (power).
A width of 0.3 or less for alpha tells "about as well as people" from "much less" (the sentence's
thresholds are 0.1 and 0.3 apart from the ceiling).

    .venv/bin/python benchmarks/study_sample_size.py                       # the grid of docs/studies.md
    .venv/bin/python benchmarks/study_sample_size.py --people 3 5 --cases 6 --repeats 10
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from hexeval_engine.ratings_summary import DIMENSIONS  # noqa: E402  (after the path set-up)
from hexeval_engine.study.calibration import calibration_from  # noqa: E402

METHODS = ["SHAP", "LIME", "Anchor", "DiCE", "Narrative", "Random"]
HELPFUL, CHANCE = 0.75, 0.5


def simulate(people: int, cases: int, rng) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One simulated study: people's rows, the personas' rows and the personas' what-if answers."""
    quality = rng.normal(size=(cases, len(METHODS)))
    rows, persona_rows, answers = [], [], []
    for c in range(cases):
        for m, method in enumerate(METHODS):
            share = CHANCE if method == "Random" else HELPFUL
            for p in range(people):
                scores = {d: int(np.clip(np.rint(3 + quality[c, m] + rng.normal()), 1, 5)) for d in DIMENSIONS}
                rows.append({"participant_id": f"r{p}", "role": "Role", "explanation_type": method,
                             "instance_index": c, **scores, "comment": "", "simulation_answer": 1,
                             "simulation_correct": bool(rng.random() < share)})
            persona_rows.append({"persona_role": "Role", "explanation_type": method, "instance_index": c,
                                 **{d: int(np.clip(np.rint(3 + quality[c, m] + rng.normal()), 1, 5))
                                    for d in DIMENSIONS}})
            answers.append({"persona_name": "", "persona_role": "", "instance_index": c, "explanation_type": method,
                            "simulation_answer": 1, "simulation_correct": bool(rng.random() < share),
                            "status": "ok", "error": ""})
    return pd.DataFrame(rows), pd.DataFrame(persona_rows), pd.DataFrame(answers)


def _width(entry: dict) -> float:
    return np.nan if entry.get("ci_low") is None else entry["ci_high"] - entry["ci_low"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, nargs="+", default=[2, 3, 5, 8])
    parser.add_argument("--cases", type=int, nargs="+", default=[3, 6, 12])
    parser.add_argument("--repeats", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print("reference: simulated studies (see the docstring); widths are medians over "
          f"{args.repeats} studies; seed {args.seed}")
    header = (f"{'people':>6} {'cases':>5} {'ratings':>7} {'alpha people':>12} {'alpha pers.':>11} {'spearman':>8} "
              f"{'what-if diff':>12} {'power':>5} {'load':>5}")
    print(header)
    for people in args.people:
        for cases in args.cases:
            rng = np.random.default_rng([args.seed, people, cases])
            widths = {"among": [], "between": [], "rho": [], "diff": []}
            hits = 0
            for r in range(args.repeats):
                humans, personas, answers = simulate(people, cases, rng)
                block = calibration_from(humans, personas, answers, seed=r)["roles"]["Role"]
                dim = block["dimensions"][DIMENSIONS[0]]
                widths["among"].append(_width(dim["alpha_humans"]))
                widths["between"].append(_width(dim["alpha_personas_humans"]))
                widths["rho"].append(_width(dim["spearman"]))
                diff = block["forward_accuracy"]["people_vs_random"]["SHAP"]
                widths["diff"].append(_width(diff))
                hits += int(diff.get("ci_low") is not None and diff["ci_low"] > 0)
            med = {k: float(np.nanmedian(v)) if np.isfinite(v).any() else float("nan") for k, v in widths.items()}
            print(f"{people:>6} {cases:>5} {people * cases * len(METHODS):>7} {med['among']:>12.2f} "
                  f"{med['between']:>11.2f} {med['rho']:>8.2f} {med['diff']:>12.2f} {hits / args.repeats:>5.0%} "
                  f"{os.getloadavg()[0]:>5.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
