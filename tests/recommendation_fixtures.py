"""Hand-made technical tables and persona ratings for the recommendation, chart and report tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

from hexeval_engine.explanation import METHOD_FAMILY

DIRECTIONS = {
    "fidelity_deletion": "lower", "fidelity_insertion": "higher", "num_important_features": "lower",
    "gini_sparseness": "higher", "entropy_complexity": "lower", "stability": "higher",
    "rule_precision": "higher", "rule_coverage": "higher", "rule_length": "lower",
    "counterfactual_validity": "higher", "counterfactual_sparsity": "lower",
}
DIMENSIONS = ("interpretability", "completeness", "actionability", "trust", "satisfaction", "decision_support")

#: method -> metric -> (value, ci_low, ci_high)
BASE_METRICS = {
    "SHAP": {"fidelity_deletion": (0.20, 0.15, 0.25), "fidelity_insertion": (0.80, 0.75, 0.85),
             "gini_sparseness": (0.60, 0.55, 0.65), "num_important_features": (4.0, 3.5, 4.5),
             "entropy_complexity": (1.5, 1.4, 1.6), "stability": (0.9, 0.85, 0.95)},
    "LIME": {"fidelity_deletion": (0.30, 0.25, 0.35), "fidelity_insertion": (0.70, 0.65, 0.75),
             "gini_sparseness": (0.50, 0.45, 0.55), "num_important_features": (5.0, 4.5, 5.5),
             "entropy_complexity": (1.8, 1.7, 1.9), "stability": (0.7, 0.65, 0.75)},
    "Anchor": {"rule_precision": (0.95, 0.92, 0.98), "rule_coverage": (0.12, 0.08, 0.16),
               "rule_length": (2.0, 1.8, 2.2), "fidelity_deletion": (0.35, 0.30, 0.40),
               "fidelity_insertion": (0.60, 0.55, 0.65)},
    "DiCE": {"counterfactual_validity": (0.90, 0.85, 0.95), "counterfactual_sparsity": (2.0, 1.8, 2.2)},
}


def long_table(metrics: dict | None = None) -> pd.DataFrame:
    """The long technical table for ``metrics`` (default :data:`BASE_METRICS`)."""
    rows = []
    for method, values in (metrics or BASE_METRICS).items():
        for metric, (value, low, high) in values.items():
            rows.append({"method": method, "metric": metric, "value": value, "ci_low": low, "ci_high": high,
                         "n": 20, "direction": DIRECTIONS[metric], "meaning": f"meaning of {metric}",
                         "derived": method in ("Anchor", "DiCE") and metric.startswith("fidelity")})
    return pd.DataFrame(rows)


def wide_table(metrics: dict | None = None, errors: dict | None = None) -> pd.DataFrame:
    """The wide technical table: one row per method, NaN where a metric does not apply."""
    metrics = metrics or BASE_METRICS
    names = sorted({m for values in metrics.values() for m in values})
    rows = []
    for method, values in metrics.items():
        row = {"method": method, "family": METHOD_FAMILY[method], "algorithm": "test", "n_instances": 20,
               "seconds": 0.1, "error": (errors or {}).get(method, "")}
        for name in names:
            value, low, high = values.get(name, (np.nan, np.nan, np.nan))
            row.update({name: value, f"{name}_ci_low": low, f"{name}_ci_high": high})
        rows.append(row)
    return pd.DataFrame(rows)


def ratings_table(scores: dict, *, repeats: int = 6, jitter: bool = True, status: str = "ok") -> pd.DataFrame:
    """Ratings: ``scores`` maps (persona_role, method) -> (trust, satisfaction), other dimensions = trust.

    With ``jitter``, the ratings of each cell alternate one point either side of the given value
    (kept within 1-5) so that they have a spread; without it, every rating equals the value.
    """
    rows = []
    for (role, method), (trust, satisfaction) in scores.items():
        for i in range(repeats):
            shift = (1 if i % 2 else -1) if jitter else 0
            t = int(np.clip(trust + shift, 1, 5))
            s = int(np.clip(satisfaction + shift, 1, 5))
            row = {"persona_name": f"{role} person", "persona_role": role, "explanation_type": method,
                   "instance_index": i // 2, "run": i % 2, **{d: t for d in DIMENSIONS}, "satisfaction": s,
                   "comment": f"{role} on {method}", "rater": "simulated", "model": "", "status": status,
                   "error": "", "latency_s": 0.0, "explanation_text": "text", "label_shown": "Explanation A",
                   "cached": False, "prompt_tokens": 0, "completion_tokens": 0}
            rows.append(row)
    return pd.DataFrame(rows)


def per_instance_table(fidelity: dict, *, sizes: dict | None = None, extra: dict | None = None) -> pd.DataFrame:
    """Per-case metric rows: ``fidelity`` maps method -> per-case ``fidelity_combined`` values (case ids
    0, 1, ...); ``sizes`` maps method -> per-case ``num_important_features``; ``extra`` maps
    (method, metric) -> per-case values."""
    rows = []
    for method, values in fidelity.items():
        for i, v in enumerate(values):
            rows.append((method, i, "fidelity_combined", float(v), False))
    for method, values in (sizes or {}).items():
        for i, v in enumerate(values):
            rows.append((method, i, "num_important_features", float(v), False))
    for (method, metric), values in (extra or {}).items():
        for i, v in enumerate(values):
            rows.append((method, i, metric, float(v), False))
    return pd.DataFrame(rows, columns=["method", "instance_id", "metric", "value", "derived"])


def case_ratings(scores: dict, *, cases: int = 10, rater: str = "simulated") -> pd.DataFrame:
    """One rating per (role, method, case): ``scores`` maps (role, method) -> per-case trust values
    (a list, or one value for every case); satisfaction equals trust."""
    rows = []
    for (role, method), values in scores.items():
        values = values if isinstance(values, (list, tuple)) else [values] * cases
        for i, t in enumerate(values):
            rows.append({"persona_name": f"{role} person", "persona_role": role, "explanation_type": method,
                         "instance_index": i, "run": 1, **{d: t for d in DIMENSIONS}, "comment": "",
                         "rater": rater, "model": "", "status": "ok", "error": ""})
    return pd.DataFrame(rows)


OFFICER_AND_APPLICANT = {
    ("Loan officer", "SHAP"): (3, 3), ("Loan officer", "LIME"): (3, 3),
    ("Loan officer", "Anchor"): (5, 4), ("Loan officer", "DiCE"): (2, 2),
    ("Applicant", "SHAP"): (2, 2), ("Applicant", "LIME"): (2, 2),
    ("Applicant", "Anchor"): (3, 3), ("Applicant", "DiCE"): (5, 5),
}
"""(role, method) -> (trust, satisfaction) for :func:`ratings_table`."""

#: Per-case fidelity of the five methods on 6 shared cases (SHAP best, Random worst).
FIXTURE_FIDELITY = {"SHAP": [0.74, 0.78, 0.71, 0.80, 0.76, 0.73], "LIME": [0.66, 0.70, 0.64, 0.69, 0.71, 0.65],
                    "Anchor": [0.62, 0.66, 0.60, 0.70, 0.64, 0.61], "DiCE": [0.68, 0.63, 0.70, 0.66, 0.69, 0.64],
                    "Random": [0.45, 0.52, 0.40, 0.50, 0.47, 0.43]}


#: Mean skill on each question (why, what if, will it hold, how to change) per method, over no explanation:
#: SHAP answers why and what if best, Anchor will it hold, DiCE how to change it; Random none.
FIXTURE_SKILLS = {"SHAP": (0.30, 0.20, 0.05, 0.02), "LIME": (0.22, 0.15, 0.04, 0.01),
                  "Anchor": (0.12, 0.10, 0.40, 0.00), "DiCE": (0.02, 0.01, 0.00, 0.35),
                  "Random": (0.00, 0.00, 0.00, 0.00)}
QUESTIONS = ("why", "what_if", "will_it_hold", "how_to_change")
#: Per-case wobble added to every mean (sums to 0 over the 6 cases, so the means stay as given).
WOBBLE = (0.03, -0.02, 0.01, -0.03, 0.02, -0.01)


def skill_rows(skills: dict | None = None, *, cases: int = 6, wobble=WOBBLE) -> dict:
    """``extra`` for :func:`per_instance_table`: per-case ``skill_<q>_common`` (mean + wobble) and the
    supporting columns the card's sentences read."""
    extra = {}
    for method, means in (skills or FIXTURE_SKILLS).items():
        for q, mean in zip(QUESTIONS, means):
            extra[(method, f"skill_{q}_common")] = [mean + wobble[i % len(wobble)] for i in range(cases)]
        extra[(method, "why_move_common")] = [0.1 + means[0]] * cases
        extra[(method, "what_if_balanced_accuracy_common")] = [0.5 + means[1]] * cases
        extra[(method, "will_it_hold_precision_common")] = [0.6 + means[2]] * cases
        extra[(method, "will_it_hold_coverage_common")] = [0.5] * cases
        extra[(method, "how_to_change_success_common")] = [1.0 if i < round(means[3] * 2 * cases) else 0.0
                                                           for i in range(cases)]
    return extra


def fixture_per_instance() -> pd.DataFrame:
    """Per-case rows matching :data:`FIXTURE_FIDELITY` (and 4/5/2/3/5 features relied on) and :data:`FIXTURE_SKILLS`."""
    sizes = {m: [s] * 6 for m, s in zip(FIXTURE_FIDELITY, (4, 5, 2, 3, 5))}
    return per_instance_table(FIXTURE_FIDELITY, sizes=sizes, extra=skill_rows())
