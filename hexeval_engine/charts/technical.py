"""Charts of the technical metrics: fidelity (deletion vs insertion) and parsimony.

Both take the wide or the long technical table, read each metric's direction from it (never
assume it) and draw one bar per method in that method's colour with the metric's confidence
interval as error bars. Values computed on a *derived* importance vector (Anchor's rule
features, DiCE's changed features) are hatched. When there is nothing to draw they return
``None``; the caller shows an empty state.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..explanation import METHODS
from ..technical_table import as_long
from .colors import TEXT_COLOR, method_color, style
from .labels import ARROWS, direction_label, metric_title

FIDELITY_METRICS = ("fidelity_deletion", "fidelity_insertion")
PARSIMONY_METRICS = ("num_important_features", "gini_sparseness", "entropy_complexity", "rule_length",
                     "counterfactual_sparsity")
DERIVED_PATTERN = "/"


def _present(long: pd.DataFrame, metrics) -> pd.DataFrame:
    """Rows of ``metrics`` that have a value, ordered as ``metrics`` lists them."""
    rows = long[long["metric"].isin(metrics) & long["value"].notna()]
    return rows.sort_values("metric", key=lambda col: col.map(list(metrics).index), kind="stable")


def _error_bars(rows: pd.DataFrame) -> dict:
    upper = (rows["ci_high"] - rows["value"]).clip(lower=0).fillna(0)
    lower = (rows["value"] - rows["ci_low"]).clip(lower=0).fillna(0)
    return {"type": "data", "symmetric": False, "array": upper.tolist(), "arrayminus": lower.tolist(),
            "visible": bool(rows["ci_low"].notna().any()), "color": TEXT_COLOR}


def _bar(rows: pd.DataFrame, method: str, x: list[str], *, showlegend: bool = True) -> go.Bar:
    return go.Bar(
        name=method, legendgroup=method, showlegend=showlegend, x=x, y=rows["value"].tolist(),
        marker={"color": method_color(method),
                "pattern": {"shape": [DERIVED_PATTERN if d else "" for d in rows["derived"]]}},
        error_y=_error_bars(rows),
        customdata=list(zip(rows["ci_low"], rows["ci_high"], rows["meaning"].fillna(""),
                            ["derived importance vector" if d else "" for d in rows["derived"]])),
        hovertemplate=(f"<b>{method}</b><br>%{{x}}: %{{y:.3f}}<br>CI %{{customdata[0]:.3f}} – "
                       "%{customdata[1]:.3f}<br>%{customdata[2]}<br>%{customdata[3]}<extra></extra>"),
    )


def fidelity_chart(technical: pd.DataFrame | None) -> go.Figure | None:
    """Deletion and insertion AUC per method, with confidence intervals.

    Parameters
    ----------
    technical : DataFrame or None
        Wide or long technical metrics table.

    Returns
    -------
    plotly.graph_objects.Figure or None
        One bar trace per method (named after it, in its colour) over the two metrics, whose axis
        labels carry the direction read from the table; ``None`` when no fidelity value exists.
    """
    rows = _present(as_long(technical), FIDELITY_METRICS)
    if rows.empty:
        return None
    fig = go.Figure()
    for method in METHODS:
        mrows = rows[rows["method"] == method]
        if mrows.empty:
            continue
        x = [direction_label(m, d) for m, d in zip(mrows["metric"], mrows["direction"])]
        fig.add_trace(_bar(mrows, method, x))
    fig.update_layout(barmode="group", yaxis={"title": {"text": "AUC of the explained-class probability"}})
    title = "Fidelity: deletion vs insertion"
    if rows["derived"].any():
        title += "<br><sup>hatched bars: computed on a derived importance vector</sup>"
    return style(fig, title)


def parsimony_chart(technical: pd.DataFrame | None, metrics=PARSIMONY_METRICS) -> go.Figure | None:
    """One panel per parsimony metric, bars per method with confidence intervals.

    Parameters
    ----------
    technical : DataFrame or None
        Wide or long technical metrics table.
    metrics : sequence of str
        Metrics to show, one panel each, in this order; metrics without any value are skipped.

    Returns
    -------
    plotly.graph_objects.Figure or None
        Panels titled with the metric and its direction arrow; each method appears once in the
        legend. ``None`` when none of the metrics has a value.
    """
    rows = _present(as_long(technical), metrics)
    shown = [m for m in metrics if m in set(rows["metric"])]
    if not shown:
        return None
    directions = rows.drop_duplicates("metric").set_index("metric")["direction"]
    fig = make_subplots(rows=1, cols=len(shown),
                        subplot_titles=[f"{metric_title(m)} {ARROWS[directions[m]]}" for m in shown])
    in_legend: set[str] = set()
    for col, metric in enumerate(shown, start=1):
        mrows = rows[rows["metric"] == metric]
        for method in METHODS:
            one = mrows[mrows["method"] == method]
            if one.empty:
                continue
            fig.add_trace(_bar(one, method, [method], showlegend=method not in in_legend), row=1, col=col)
            in_legend.add(method)
    fig.update_layout(barmode="group")
    return style(fig, "Parsimony (↑ higher is better, ↓ lower is better)")
