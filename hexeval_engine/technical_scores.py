"""Per-family technical scores on a common [0, 1] scale (1 = best), kept as two components.

Each method family is scored on its own terms, because the metrics that matter differ:

===============  =====================================================  ==========================================
family           ``technical_fidelity``                                 ``technical_parsimony``
===============  =====================================================  ==========================================
attribution      mean of ``fidelity_insertion`` (higher better, used    ``gini_sparseness`` (higher better, used
(SHAP, LIME)     as is) and ``fidelity_deletion`` (lower better,        as is): attributions concentrated on few
                 used as ``1 - value``), i.e. ``(1 + ins - del) / 2``   features are easier to take in
rule (Anchor)    mean of ``rule_precision`` (share of covered cases     ``rule_coverage`` (share of cases the rule
                 the model predicts like the explained one), the        applies to): a rule that covers almost no
                 derived ``fidelity_insertion`` and ``1 -`` the         one says little beyond the single case
                 derived ``fidelity_deletion``
counterfactual   mean of ``counterfactual_validity`` (share of          ``counterfactual_sparsity`` (mean number
(DiCE)           counterfactuals that flip the prediction), the         of features changed, lower better), scored
                 derived ``fidelity_insertion`` and ``1 -`` the         ``1 / max(changes, 1)``: one change = 1.0,
                 derived ``fidelity_deletion``                          two = 0.5, four = 0.25
===============  =====================================================  ==========================================

How a metric is mapped depends on its *scale* (declared below) and its *direction* (read from the
metrics table, never assumed): a ``unit`` metric in [0, 1] maps to ``v`` when higher is better and
``1 - v`` when lower is better; a ``count`` metric maps to ``1 / max(v, 1)`` when lower is better
and ``1 - 1 / max(v, 1)`` when higher is better. Both maps are monotone, so a metric's confidence
interval maps endpoint to endpoint. A component averaging several metrics averages their
intervals' endpoints too (conservative: it assumes their errors move together). A metric measured
without an interval (e.g. a single instance) gets the whole [0, 1] scale as its interval.

Why rules and counterfactuals also count the deletion/insertion AUCs: precision and validity sit
near 1 almost by construction (Anchor searches until precision passes its threshold; DiCE keeps
searching until the prediction flips), while attribution fidelity on the deletion/insertion scale
rarely exceeds 0.7. Scored on their own terms alone, Anchor and DiCE would win every fidelity
comparison by a scale artefact. Their derived importance vectors (rule features; features changed)
put all four methods on one axis, so each family's own faithfulness term is averaged with that
common axis when it was measured (a metric that is missing simply drops out of the mean).

A component whose metrics are all missing is reported as missing (``value`` None); the recommender
then scores that method on the components it has and says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from .explanation import METHOD_FAMILY

COMPONENTS = ("technical_fidelity", "technical_parsimony")


@dataclass(frozen=True)
class Term:
    """One metric feeding a component: its name, scale and how to show its raw value."""

    metric: str
    scale: str  # "unit" (value in [0, 1]) or "count" (>= 0)
    label: str  # plain-language name used in reasoning, e.g. "rule coverage"
    display: str  # "percent", "decimal" or "count"
    suffix: str = ""  # appended to the bare value, e.g. " per counterfactual"


#: family -> component -> the metrics averaged into it. See the module docstring.
FAMILY_TERMS: dict[str, dict[str, tuple[Term, ...]]] = {
    "attribution": {
        "technical_fidelity": (Term("fidelity_insertion", "unit", "insertion AUC", "decimal"),
                               Term("fidelity_deletion", "unit", "deletion AUC", "decimal")),
        "technical_parsimony": (Term("gini_sparseness", "unit", "Gini sparseness", "decimal"),),
    },
    "rule": {
        "technical_fidelity": (Term("rule_precision", "unit", "rule precision", "percent"),
                               Term("fidelity_insertion", "unit", "insertion AUC (derived)", "decimal"),
                               Term("fidelity_deletion", "unit", "deletion AUC (derived)", "decimal")),
        "technical_parsimony": (Term("rule_coverage", "unit", "rule coverage", "percent"),),
    },
    "counterfactual": {
        "technical_fidelity": (Term("counterfactual_validity", "unit", "counterfactual validity", "percent"),
                               Term("fidelity_insertion", "unit", "insertion AUC (derived)", "decimal"),
                               Term("fidelity_deletion", "unit", "deletion AUC (derived)", "decimal")),
        "technical_parsimony": (Term("counterfactual_sparsity", "count", "features changed", "count",
                                     " features changed per counterfactual"),),
    },
}

#: Plain-language statement of each family's normalisation (shown in the report and dashboard).
NORMALISATION = {
    "attribution": {
        "technical_fidelity": "(1 + insertion AUC - deletion AUC) / 2: the mean of insertion AUC (higher is better) "
                              "and 1 - deletion AUC (lower is better)",
        "technical_parsimony": "Gini sparseness of the attributions (0 = spread evenly, 1 = one feature)",
    },
    "rule": {
        "technical_fidelity": "mean of rule precision (share of covered cases the model predicts the same way), "
                              "insertion AUC and 1 - deletion AUC of the rule's derived importance vector",
        "technical_parsimony": "rule coverage (share of cases the rule applies to)",
    },
    "counterfactual": {
        "technical_fidelity": "mean of counterfactual validity (share of counterfactuals that flip the prediction), "
                              "insertion AUC and 1 - deletion AUC of the derived importance vector (features changed)",
        "technical_parsimony": "1 / max(features changed, 1): one change scores 1.0, two 0.5, four 0.25",
    },
    "persona": "mean rating mapped from 1-5 to 0-1 as (rating - 1) / 4",
}


def goodness(value: float, direction: str, scale: str) -> float:
    """Map a metric value to [0, 1] where 1 is best, by its direction and scale.

    Parameters
    ----------
    value : float
        The metric value (NaN stays NaN).
    direction : {"higher", "lower"}
        Which way is better, as declared in the metrics table.
    scale : {"unit", "count"}
        ``unit`` metrics live in [0, 1] (clipped); ``count`` metrics are non-negative counts.

    Returns
    -------
    float
    """
    if value is None or math.isnan(value):
        return math.nan
    if direction not in ("higher", "lower"):
        raise ValueError(f"direction must be 'higher' or 'lower', got {direction!r}")
    if scale == "unit":
        v = min(max(float(value), 0.0), 1.0)
        return v if direction == "higher" else 1.0 - v
    if scale == "count":
        inverse = 1.0 / max(float(value), 1.0)
        return inverse if direction == "lower" else 1.0 - inverse
    raise ValueError(f"scale must be 'unit' or 'count', got {scale!r}")


def format_value(value: float, display: str) -> str:
    """Show a raw metric value in its natural unit: ``12%``, ``0.82`` or ``2.3``."""
    if display == "percent":
        return f"{value:.0%}"
    if display == "count":
        return f"{value:.1f}"
    return f"{value:.2f}"


def _nan_to_none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def _detail(used: list[dict], terms: tuple[Term, ...]) -> str:
    """The raw numbers behind a component: the bare value for one metric, labelled values for several."""
    if len(used) == 1 and len(terms) == 1:
        return format_value(used[0]["value"], used[0]["display"]) + terms[0].suffix
    return "; ".join(m["text"] for m in used)


def method_components(long: pd.DataFrame, method: str) -> dict[str, dict]:
    """Both technical components of one method, each in [0, 1] with its interval and raw metrics.

    Parameters
    ----------
    long : DataFrame
        The long technical table (see :func:`hexeval_engine.technical_table.as_long`).
    method : str
        Canonical method name.

    Returns
    -------
    dict
        ``{component: {"value", "ci_low", "ci_high", "definition", "metrics": [{"metric", "label",
        "value", "ci_low", "ci_high", "direction", "display", "text"}], "ci_known"}}``. ``value`` is
        None when none of the component's metrics was measured; ``ci_known`` is False when a used
        metric had no confidence interval, whose interval then spans the whole [0, 1] scale.
    """
    family = METHOD_FAMILY[method]
    rows = long[long["method"] == method].set_index("metric")
    out: dict[str, dict] = {}
    for component, terms in FAMILY_TERMS[family].items():
        points, lows, highs, used = [], [], [], []
        ci_known = True
        for term in terms:
            if term.metric not in rows.index or pd.isna(rows.at[term.metric, "value"]):
                continue
            r = rows.loc[term.metric]
            g = goodness(r["value"], r["direction"], term.scale)
            ends = [goodness(r["ci_low"], r["direction"], term.scale), goodness(r["ci_high"], r["direction"], term.scale)]
            if any(math.isnan(e) for e in ends):
                ci_known = False
                ends = [0.0, 1.0]  # an unknown interval spans the whole scale
            points.append(g)
            lows.append(min(ends))
            highs.append(max(ends))
            used.append({
                "metric": term.metric, "label": term.label, "value": float(r["value"]),
                "ci_low": _nan_to_none(r["ci_low"]), "ci_high": _nan_to_none(r["ci_high"]),
                "direction": r["direction"], "display": term.display,
                "text": (format_value(float(r["value"]), term.display) + term.suffix if term.suffix
                         else f"{term.label} {format_value(float(r['value']), term.display)}"),
            })
        n = len(points)
        out[component] = {
            "value": sum(points) / n if n else None,
            "ci_low": sum(lows) / n if n else None,
            "ci_high": sum(highs) / n if n else None,
            "definition": NORMALISATION[family][component],
            "metrics": used,
            "detail": _detail(used, terms),
            "ci_known": ci_known,
        }
    return out
