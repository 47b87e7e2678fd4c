"""Charts of the technical metrics: fidelity (deletion vs insertion) and parsimony.

Both take the wide or the long technical table, read each metric's direction from it (never
assume it) and draw one bar per method in that method's colour with the metric's confidence
interval as error bars, one stacked panel per metric (horizontal bars: method names stay readable at
phone width). Values computed on a *derived* importance vector (Anchor's rule features, DiCE's
changed features) are hatched; the Random baseline is drawn pale with an outline, as a reference. When there is nothing to draw they return
``None``; the caller shows an empty state.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..metrics.table import as_long, method_order
from .colors import BASELINE_METHODS, TEXT_COLOR, method_color, style, with_alpha
from .labels import direction_label

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


def _bar(rows: pd.DataFrame, method: str, *, showlegend: bool = True) -> go.Bar:
    """One horizontal bar per row of ``rows`` (one method), labelled with the method's name.

    Horizontal bars keep every label readable at phone width: method names sit on the y axis,
    values run along x, and nothing needs to be rotated or clipped.
    """
    baseline = method in BASELINE_METHODS
    return go.Bar(
        name=method, legendgroup=method, showlegend=showlegend, orientation="h",
        y=[method] * len(rows), x=rows["value"].tolist(),
        marker={"color": with_alpha(method_color(method), 0.35) if baseline else method_color(method),
                "line": {"color": method_color(method), "width": 2 if baseline else 0},
                "pattern": {"shape": [DERIVED_PATTERN if d else "" for d in rows["derived"]]}},
        error_x=_error_bars(rows),
        customdata=list(zip(rows["ci_low"], rows["ci_high"], rows["meaning"].fillna(""),
                            ["derived importance vector" if d else "" for d in rows["derived"]])),
        hovertemplate=(f"<b>{method}</b>: %{{x:.3f}}<br>interval %{{customdata[0]:.3f}} – "
                       "%{customdata[1]:.3f}<br>%{customdata[2]}<br>%{customdata[3]}<extra></extra>"),
    )


def _panels(rows: pd.DataFrame, metrics: list[str], title: str) -> go.Figure:
    """One panel per metric, stacked vertically (titles never overlap at any width).

    Each panel is as tall as the methods it has (28 px a bar): a metric only one method has, such
    as rule length, is one slim bar, not a bar stretched over room kept for absent methods.
    """
    directions = rows.drop_duplicates("metric").set_index("metric")["direction"]
    present = {m: method_order(set(rows.loc[rows["metric"] == m, "method"])) for m in metrics}
    heights = [28 * max(1, len(present[m])) + 20 for m in metrics]  # pixels: the bars of each panel
    gap = 64  # pixels: room for the next panel's title
    plot_height = sum(heights) + gap * (len(metrics) - 1)
    fig = make_subplots(rows=len(metrics), cols=1, vertical_spacing=gap / plot_height if len(metrics) > 1 else 0,
                        row_heights=[h / sum(heights) for h in heights],
                        subplot_titles=[direction_label(m, directions[m]) for m in metrics])
    in_legend: set[str] = set()
    for row, metric in enumerate(metrics, start=1):
        mrows = rows[rows["metric"] == metric]
        for method in present[metric]:
            fig.add_trace(_bar(mrows[mrows["method"] == method], method, showlegend=method not in in_legend),
                          row=row, col=1)
            in_legend.add(method)
        fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(present[metric])), row=row, col=1)
    for annotation in fig.layout.annotations:
        annotation.update(x=0, xanchor="left", font={"size": 13}, yshift=4)
    # the title hangs from the top edge and the first panel's title starts below its last line (a subtitle
    # centred in the margin touched the panel title under it): ~18 px a subtitle line, ~30 px for the panel title
    top = 62 + 18 * title.count("<br>")
    fig.update_layout(barmode="overlay", bargap=0.25, height=plot_height + top + 30, showlegend=False)
    fig = style(fig, title)
    fig.update_layout(margin={"t": top, "b": 30},
                      title={"yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 14}})
    return fig


def fidelity_chart(technical: pd.DataFrame | None) -> go.Figure | None:
    """Deletion and insertion AUC per method, with confidence intervals.

    Parameters
    ----------
    technical : DataFrame or None
        Wide or long technical metrics table.

    Returns
    -------
    plotly.graph_objects.Figure or None
        Two stacked panels (deletion, insertion) titled with the metric and its direction read from
        the table; one horizontal bar per method in its colour (the Random baseline pale with an
        outline); ``None`` when no fidelity value exists.
    """
    rows = _present(as_long(technical), FIDELITY_METRICS)
    if rows.empty:
        return None
    shown = [m for m in FIDELITY_METRICS if m in set(rows["metric"])]
    title = ("Fidelity: deletion vs insertion<br><sup>area under the explained-class probability curve<br>"
             "↑ higher is better, ↓ lower is better</sup>")
    if rows["derived"].any():
        title = title.replace("</sup>", "<br>hatched bars: computed on a derived importance vector</sup>")
    return _panels(rows, shown, title)


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
        Stacked panels titled with the metric and its direction; one horizontal bar per method.
        ``None`` when none of the metrics has a value.
    """
    rows = _present(as_long(technical), metrics)
    shown = [m for m in metrics if m in set(rows["metric"])]
    if not shown:
        return None
    return _panels(rows, shown, "Parsimony (↑ higher is better, ↓ lower is better)")
