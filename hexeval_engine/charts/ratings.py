"""Charts of persona ratings: a radar of the six dimensions and a summary bar chart.

Both use only successful ratings (``status == "ok"``), optionally of one persona (matched on
``persona_role`` or ``persona_name``), and return ``None`` when there is no such rating.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..vocabulary import dimension_label
from ..ratings_summary import DIMENSIONS, t_halfwidth
from ..metrics.table import canonical_method, method_order
from .colors import BASELINE_METHODS, TEXT_COLOR, method_color, method_dash, method_symbol, style, with_alpha


def usable_ratings(ratings: pd.DataFrame | None, persona: str | None = None) -> pd.DataFrame:
    """Successful ratings with a canonical ``method`` column, optionally of one persona.

    Parameters
    ----------
    ratings : DataFrame or None
        The persona ratings table.
    persona : str, optional
        A ``persona_role`` or ``persona_name``; ``None`` keeps every persona.
    """
    if ratings is None or len(ratings) == 0:
        return pd.DataFrame(columns=["method", *DIMENSIONS])
    df = ratings.copy()
    if "status" in df.columns:
        df = df[df["status"] == "ok"]
    if persona is not None:
        match = pd.Series(False, index=df.index)
        for column in ("persona_role", "persona_name"):
            if column in df.columns:
                match |= df[column].astype(str) == persona
        df = df[match]
    df["method"] = df["explanation_type"].map(canonical_method)
    for d in DIMENSIONS:
        df[d] = pd.to_numeric(df[d], errors="coerce")
    return df[df[list(DIMENSIONS)].notna().any(axis=1)]


def _label(dimension: str) -> str:
    return dimension_label(dimension)


def _ordered_methods(df: pd.DataFrame) -> list[str]:
    present = set(df["method"])
    return method_order(present)


def _who(persona: str | None) -> str:
    return "all personas" if persona is None else persona


def radar_chart(ratings: pd.DataFrame | None, persona: str | None = None) -> go.Figure | None:
    """Mean rating of each method on the six dimensions, as a radar (1-5 scale).

    Parameters
    ----------
    ratings : DataFrame or None
        The persona ratings table.
    persona : str, optional
        Restrict to one persona (role or name); ``None`` averages over all personas.

    Returns
    -------
    plotly.graph_objects.Figure or None
        One closed ``Scatterpolar`` trace per method in its colour; ``None`` without ratings.
    """
    df = usable_ratings(ratings, persona)
    if df.empty:
        return None
    fig = go.Figure()
    counts: dict[str, int] = {}
    # two-word names on two lines, so no label is clipped at phone width
    theta = [_label(d).replace(" ", "<br>") for d in DIMENSIONS]
    for method in _ordered_methods(df):
        mine = df.loc[df["method"] == method, list(DIMENSIONS)]
        means = mine.mean()
        r = [float(means[d]) for d in DIMENSIONS]
        color = method_color(method)
        baseline = method in BASELINE_METHODS
        fig.add_trace(go.Scatterpolar(
            name=method, legendgroup=method, r=r + r[:1], theta=theta + theta[:1],
            fill="none" if baseline else "toself", mode="lines+markers",
            line={"color": color, "width": 2, "dash": method_dash(method)},
            marker={"symbol": method_symbol(method), "size": 8, "color": color},
            fillcolor=with_alpha(color, 0.08),
            hovertemplate=f"<b>{method}</b><br>%{{theta}}: %{{r:.2f}} / 5 (n = {len(mine)})<extra></extra>",
        ))
        counts[method] = len(mine)
    fig.update_layout(polar={"bgcolor": "rgba(0,0,0,0)", "domain": {"x": [0.12, 0.88], "y": [0.08, 0.92]},
                             "radialaxis": {"range": [1, 5], "tickvals": [1, 2, 3, 4, 5], "angle": 90,
                                            "tickfont": {"size": 10}, "gridcolor": "rgba(128, 128, 128, 0.3)"},
                             "angularaxis": {"gridcolor": "rgba(128, 128, 128, 0.3)", "tickfont": {"size": 12},
                                             "rotation": 90, "direction": "clockwise"}},
                      height=480)
    fig = style(fig, f"Ratings on six dimensions ({_who(persona)})<br><sup>{_counts_text(counts)}</sup>")
    fig.update_layout(margin={"l": 40, "r": 40, "t": 70, "b": 40})
    return fig


def ratings_summary_chart(ratings: pd.DataFrame | None, persona: str | None = None, *,
                          confidence_level: float = 0.95) -> go.Figure | None:
    """Mean rating per dimension and method, with t-interval error bars.

    Parameters
    ----------
    ratings : DataFrame or None
        The persona ratings table.
    persona : str, optional
        Restrict to one persona (role or name).
    confidence_level : float
        Level of the error bars (a single rating has none).

    Returns
    -------
    plotly.graph_objects.Figure or None
        One bar trace per method in its colour over the six dimensions; ``None`` without ratings.
    """
    df = usable_ratings(ratings, persona)
    if df.empty:
        return None
    fig = go.Figure()
    per_method: dict[str, int] = {}
    x = [_label(d) for d in DIMENSIONS]
    for method in _ordered_methods(df):
        mrows = df[df["method"] == method]
        means, ups, downs, counts = [], [], [], []
        for d in DIMENSIONS:
            values = mrows[d].dropna().to_numpy(float)
            mean = float(values.mean()) if len(values) else None
            half = t_halfwidth(values, confidence_level)
            means.append(mean)
            counts.append(len(values))
            # An interval is clipped to the 1-5 scale: a rating cannot leave it, so neither may its bar.
            ups.append(0.0 if mean is None or half is None or half != half else min(mean + half, 5.0) - mean)
            downs.append(0.0 if mean is None or half is None or half != half else mean - max(mean - half, 1.0))
        baseline = method in BASELINE_METHODS
        color = method_color(method)
        per_method[method] = max(counts)
        fig.add_trace(go.Bar(
            name=method, legendgroup=method, x=x, y=means,
            marker={"color": with_alpha(color, 0.35) if baseline else color,
                    "line": {"color": color, "width": 2 if baseline else 0}},
            error_y={"type": "data", "symmetric": False, "array": ups, "arrayminus": downs, "visible": True,
                     "color": TEXT_COLOR}, customdata=counts,
            hovertemplate=f"<b>{method}</b><br>%{{x}}: %{{y:.2f}} / 5 (n = %{{customdata}})<extra></extra>",
        ))
    fig.update_layout(barmode="group", height=440,
                      yaxis={"range": [0, 5.05], "tickvals": [1, 2, 3, 4, 5], "title": {"text": "Mean rating (1-5)"}},
                      )
    fig = style(fig, f"Persona ratings ({_who(persona)})<br><sup>error bars: {confidence_level:.0%} t-interval, "
                     f"clipped to the 1–5 scale<br>{_counts_text(per_method)}</sup>")
    fig.update_layout(margin={"t": 95})
    return fig


def _counts_text(counts: dict[str, int]) -> str:
    """``"n = 12 ratings per method"`` when equal, else ``"n: SHAP 12, LIME 10"``."""
    if len(set(counts.values())) == 1:
        n = next(iter(counts.values()))
        return f"n = {n} {'rating' if n == 1 else 'ratings'} per method"
    return "n: " + ", ".join(f"{m} {n}" for m, n in counts.items())
