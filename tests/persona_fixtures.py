"""Hand-built explanations and technical results for persona tests (no explainer library needed)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from hexeval_engine.explanation import Condition, Counterfactual, Explanation, Rule


@dataclass
class FakeTechnicalResult:
    explanations: list = field(default_factory=list)
    instance_ids: list = field(default_factory=list)
    per_instance: pd.DataFrame | None = None  # method, instance_id, metric, value
    shared_instance_ids: list | None = None


def metric_rows(values: dict[tuple[str, int], dict[str, float]]) -> pd.DataFrame:
    """A ``per_instance`` table from ``{(method, instance_id): {metric: value}}``."""
    rows = [(m, i, metric, v, False) for (m, i), ms in values.items() for metric, v in ms.items()]
    return pd.DataFrame(rows, columns=["method", "instance_id", "metric", "value", "derived"])


def attribution(method: str, iid: int, values: dict[str, float], *, text: str | None = None,
                predicted_class: int = 1, probability: float = 0.8, metrics: dict | None = None) -> Explanation:
    ranked = sorted(values.items(), key=lambda kv: -abs(kv[1]))
    default = "The factors that pushed this prediction most: " + "; ".join(
        f"{f} ({'raises' if v > 0 else 'lowers'} the risk)" for f, v in ranked)
    return Explanation(method, iid, predicted_class, probability, attributions=dict(values),
                       importance={f: abs(v) for f, v in values.items()}, text=text if text is not None else default,
                       extra=_metrics(metrics))


def rule(iid: int, conditions: list[tuple[str, str, object]], precision: float, coverage: float, *,
         predicted_class: int = 1, probability: float = 0.8, metrics: dict | None = None) -> Explanation:
    conds = [Condition(f, op, v, f"{f} {op} {v}") for f, op, v in conditions]
    text = ("The prediction holds whenever " + " and ".join(c.text for c in conds)
            + f" (true in {precision:.0%} of such cases; applies to {coverage:.0%} of cases).")
    return Explanation("Anchor", iid, predicted_class, probability, rule=Rule(conds, precision, coverage), text=text,
                       extra=_metrics(metrics))


def counterfactual(iid: int, changes: list[dict[str, tuple]], flips: list[bool], *, predicted_class: int = 1,
                   probability: float = 0.8, metrics: dict | None = None) -> Explanation:
    cfs = [Counterfactual(ch, 0.3 if fl else 0.7, fl, {}) for ch, fl in zip(changes, flips)]
    text = "The outcome would change if: " + " OR ".join(
        ", ".join(f"{f} went from {a} to {b}" for f, (a, b) in ch.items()) for ch in changes) + "."
    return Explanation("DiCE", iid, predicted_class, probability, counterfactuals=cfs, text=text,
                       extra=_metrics(metrics))


def _metrics(metrics: dict | None) -> dict:
    """``Explanation.extra`` carrying per-instance metric values, as the persona stage attaches them."""
    return {"metrics": dict(metrics)} if metrics else {}


def heart_explanations(data, ids: list[int]) -> list[Explanation]:
    """One explanation per method for each id, in the heart data's raw columns."""
    feats = data.feature_names
    out = []
    for iid in ids:
        row = data.X_test.iloc[iid]
        values = {f: round((-1) ** k * (0.5 / (k + 1)), 4) for k, f in enumerate(feats)}
        out.append(attribution("SHAP", iid, values))
        out.append(attribution("LIME", iid, {f: v * 0.9 for f, v in values.items()}))
        out.append(rule(iid, [("cp", "=", row["cp"]), ("ca", "<=", row["ca"])], 0.93, 0.21))
        out.append(counterfactual(iid, [{"thalach": (float(row["thalach"]), float(row["thalach"]) + 25)},
                                        {"chol": (float(row["chol"]), float(row["chol"]) - 40)}], [True, False]))
    return out
