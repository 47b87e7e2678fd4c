"""Seeded study tables for the calibration's regression test (``tests/data/study_calibration_before.json``).

The stored outputs were computed by the pure-Python bootstrap that came before the vectorised one
(commit ``d2af701``), with these tables, so the test compares the new code with the old code's results
rather than with itself. ``python tests/study_calibration_cases.py`` rewrites the file: run it only
on purpose, with the implementation whose results you mean to record.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = Path(__file__).resolve().parent / "data" / "study_calibration_before.json"
DIMENSIONS = ["interpretability", "completeness", "actionability", "trust", "satisfaction", "decision_support"]
METHODS = ["SHAP", "LIME", "Anchor", "DiCE", "Narrative", "Random"]

#: (name, people per role, cases, persona repeats per item, share of missing human values, seed)
CASES = [("three people, six cases", 3, 6, 1, 0.0, 1),
         ("eight people, twelve cases, two persona repeats", 8, 12, 2, 0.0, 2),
         ("two people, three cases, missing answers", 2, 3, 3, 0.15, 3),
         ("one person, two cases", 1, 2, 1, 0.0, 4),
         ("four people who barely vary", 4, 5, 1, 0.0, 5)]


def tables(people: int, cases: int, repeats: int, missing: float, seed: int, *, flat: bool = False):
    """People's rows, persona rows and persona what-if answers for two roles (the second with one person
    fewer); ``flat`` makes almost every score a 3 so that many resamples have no variation."""
    rng = np.random.default_rng(seed)
    rows, persona_rows, answers = [], [], []
    for r, role in enumerate(["Role A", "Role B"]):
        quality = rng.normal(size=(cases, len(METHODS)))
        for c in range(cases):
            for m, method in enumerate(METHODS):
                for p in range(max(1, people - r)):
                    noise = 0.2 if flat else 1.0
                    scores = {d: int(np.clip(np.rint(3 + (0 if flat else quality[c, m]) + noise * rng.normal()), 1, 5))
                              for d in DIMENSIONS}
                    for d in DIMENSIONS:
                        if rng.random() < missing:
                            scores[d] = np.nan
                    rows.append({"participant_id": f"r{r}{p}", "role": role, "explanation_type": method,
                                 "instance_index": 10 * c + 7, **scores, "comment": "", "simulation_answer": 1,
                                 "simulation_correct": bool(rng.random() < (0.5 if method == "Random" else 0.7))})
                for k in range(repeats):
                    persona_rows.append({"persona_role": role, "explanation_type": method, "instance_index": 10 * c + 7,
                                         **{d: int(np.clip(np.rint(3 + quality[c, m] + rng.normal()), 1, 5))
                                            for d in DIMENSIONS}})
                answers.append({"persona_name": f"persona {r}", "persona_role": role, "instance_index": 10 * c + 7,
                                "explanation_type": method, "simulation_answer": 1,
                                "simulation_correct": bool(rng.random() < 0.6), "status": "ok", "error": ""})
    return pd.DataFrame(rows), pd.DataFrame(persona_rows), pd.DataFrame(answers)


def case_tables(name: str):
    """The tables of the named case."""
    _, people, cases, repeats, missing, seed = next(c for c in CASES if c[0] == name)
    return tables(people, cases, repeats, missing, seed, flat=name.startswith("four people who barely"))


def record() -> dict:
    """The calibration of every case by the implementation currently importable."""
    sys.path[:0] = [str(ROOT)]
    from hexeval_engine.study.calibration import calibration_from  # the implementation being recorded

    return {name: calibration_from(*case_tables(name), seed=seed) for name, *_, seed in CASES}


if __name__ == "__main__":
    REFERENCE.write_text(json.dumps(record(), indent=1) + "\n", encoding="utf-8")
