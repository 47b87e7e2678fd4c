"""The persona × method heatmap of combined recommendation scores."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from ..explanation import METHODS
from .colors import SCORE_COLORSCALE, style

RECOMMENDED_MARK = "★"


def score_heatmap(recommendations: dict | None) -> go.Figure | None:
    """Combined score of every method for every stakeholder, the recommended cell starred.

    Parameters
    ----------
    recommendations : dict or None
        What :func:`hexeval_engine.recommendations.generate_recommendations` returns.

    Returns
    -------
    plotly.graph_objects.Figure or None
        A single ``Heatmap`` trace (rows: stakeholder titles; columns: methods in canonical
        order; z in [0, 1], NaN where a method has no score); ``None`` when no score exists.
    """
    stakeholders = list(((recommendations or {}).get("stakeholders") or {}).values())
    methods = [m for m in METHODS if m in (recommendations or {}).get("methods", [])]
    if not stakeholders or not methods:
        return None
    z, text = [], []
    for s in stakeholders:
        scores = {a["method"]: a["score"] for a in s["alternatives"]}
        row = [scores.get(m) if scores.get(m) is not None else math.nan for m in methods]
        z.append(row)
        text.append(["" if math.isnan(v) else f"{v:.2f}" + (f" {RECOMMENDED_MARK}" if m == s["recommended_method"]
                                                           else "") for m, v in zip(methods, row)])
    if all(math.isnan(v) for row in z for v in row):
        return None
    fig = go.Figure(go.Heatmap(
        z=z, x=methods, y=[s["title"] for s in stakeholders], text=text, texttemplate="%{text}",
        colorscale=SCORE_COLORSCALE, zmin=0, zmax=1, colorbar={"title": {"text": "score"}},
        hovertemplate="%{y}<br>%{x}: %{z:.2f}<extra></extra>",
    ))
    fig.update_yaxes(autorange="reversed")
    mode = " (technical only)" if recommendations.get("mode") == "technical_only" else ""
    return style(fig, f"Combined score per stakeholder and method{mode} — {RECOMMENDED_MARK} recommended")
