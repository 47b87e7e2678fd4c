"""The persona × method heatmap of combined recommendation scores.

The colour scale spans the scores' own range (stated on the colour bar and in the title), so a
0.48–0.76 spread uses the whole scale instead of a sliver of 0–1; each cell's number is written in
black or white, whichever contrasts with its colour (WCAG relative luminance).
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
from plotly.colors import find_intermediate_color, hex_to_rgb, sequential, unlabel_rgb

from ..vocabulary import signed
from ..metrics.table import method_order
from .colors import SCORE_COLORSCALE, style

RECOMMENDED_MARK = "★"
EXCLUDED_MARK = " ✕"
"""Put after a score whose method does not beat the random baseline (excluded from recommendation)."""


def score_heatmap(recommendations: dict | None) -> go.Figure | None:
    """Combined score of every method for every stakeholder, the recommended cell starred.

    Long stakeholder titles wrap onto two lines and the colour bar lies under the grid, so the
    cells keep their width on a phone.

    Parameters
    ----------
    recommendations : dict or None
        What :func:`hexeval_engine.recommend.recommender.generate_recommendations` returns.

    Returns
    -------
    plotly.graph_objects.Figure or None
        A single ``Heatmap`` trace (rows: stakeholder titles; columns: methods in canonical
        order; NaN where a method has no score; ``zmin``/``zmax`` 0 and 1, the score's whole scale, so
        0.80 and 0.82 share a colour tier instead of looking like different verdicts)
        with one annotation per cell; ``None`` when no score exists.
    """
    stakeholders = list(((recommendations or {}).get("stakeholders") or {}).values())
    listed = list((recommendations or {}).get("methods", []))
    methods = method_order(listed)
    if not stakeholders or not methods:
        return None
    z, text = [], []
    measured = (recommendations or {}).get("basis") == "questions"
    sign = "+" if measured else ""
    for s in stakeholders:
        scores = {a.get("method"): a.get("score") for a in s.get("alternatives") or []}
        marks = {a.get("method"): EXCLUDED_MARK for a in s.get("alternatives") or [] if a.get("status")}
        row = [scores.get(m) if scores.get(m) is not None else math.nan for m in methods]
        z.append(row)
        text.append(["" if math.isnan(v) else (signed(v) if sign else f"{v:.2f}") + (f" {RECOMMENDED_MARK}" if m == s.get("recommended_method")
                                                           else marks.get(m, "")) for m, v in zip(methods, row)])
    if all(math.isnan(v) for row in z for v in row):
        return None
    # the score's own scale, so small differences stay small in colour too: a skill over no explanation runs from
    # -0.5 (worse than none) to 0.5 here; the older combined score from 0 to 1
    low, high = (-0.5, 0.5) if measured else (0.0, 1.0)
    fig = go.Figure(go.Heatmap(
        z=z, x=methods, y=[s.get("title", "") for s in stakeholders], text=text,
        colorscale=SCORE_COLORSCALE, zmin=low, zmax=high, xgap=2, ygap=2,
        # under the method names; its range is stated in the subtitle
        colorbar={"thickness": 10, "orientation": "h", "x": 0, "xanchor": "left", "y": -0.12, "yanchor": "top",
                  "len": 1},
        hovertemplate="%{y}<br>%{x}: %{z:.2f}<extra></extra>",
    ))
    for i, row in enumerate(z):
        for j, v in enumerate(row):
            if not math.isnan(v):
                fig.add_annotation(x=methods[j], y=i, text=text[i][j], showarrow=False,
                                   font={"size": 14, "color": _ink(min(max((v - low) / (high - low), 0), 1))})
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=list(range(len(stakeholders))),
                     ticktext=[_wrap(s.get("title", "")) for s in stakeholders])
    fig.update_traces(y=list(range(len(stakeholders))))
    fig.update_layout(height=200 + 56 * len(stakeholders))
    if measured:
        # each line of the subtitle is a whole phrase: a line break never cuts one in two
        title = (f"Skill on each stakeholder's questions<br><sup>{RECOMMENDED_MARK} the recommended method · "
                 f"{EXCLUDED_MARK.strip()} not recommended: no better than random explanations<br>"
                 "0 means no better than no explanation; colours run from −0.5 to +0.5</sup>")
    else:
        mode = " (technical only)" if recommendations.get("mode") == "technical_only" else ""
        title = (f"Combined score per stakeholder{mode}<br><sup>{RECOMMENDED_MARK} the recommended method · "
                 f"{EXCLUDED_MARK.strip()} not recommended: no better than random explanations<br>"
                 "colours run over the score's whole range, 0 to 1</sup>")
    fig = style(fig, title)
    fig.update_layout(margin={"t": 100, "b": 100}, showlegend=False)
    return fig


def _wrap(title: str, width: int = 16) -> str:
    """A long stakeholder title on two lines (more room for the cells at phone width)."""
    if len(title) <= width or " " not in title:
        return title
    cut = title.rfind(" ", 0, len(title) // 2 + 4)
    cut = cut if cut > 0 else title.find(" ")
    return title[:cut] + "<br>" + title[cut + 1:]


def _ink(t: float) -> str:
    """Black or white text, whichever contrasts more with Viridis at position ``t`` (0-1)."""
    r, g, b = (int(c) for c in _viridis(max(0.0, min(1.0, t))))
    luminance = sum(w * _linear(c) for w, c in zip((0.2126, 0.7152, 0.0722), (r, g, b)))
    return "#111111" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "#FFFFFF"


def _viridis(t: float) -> tuple[float, float, float]:
    scale = [hex_to_rgb(c) if c.startswith("#") else unlabel_rgb(c) for c in sequential.Viridis]
    pos = t * (len(scale) - 1)
    i = min(int(pos), len(scale) - 2)
    return find_intermediate_color(scale[i], scale[i + 1], pos - i)


def _linear(c: float) -> float:
    c = c / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
