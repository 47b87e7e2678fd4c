"""Charts of persona ratings: a radar of the six dimensions and a summary bar chart.

Both use only successful ratings (``status == "ok"``), optionally of one persona (matched on
``persona_role`` or ``persona_name``), and return ``None`` when there is no such rating.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from ..explanation import METHODS
from ..ratings_summary import DIMENSIONS, t_halfwidth
from ..technical_table import canonical_method
from .colors import TEXT_COLOR, method_color, style, with_alpha


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
    return dimension.replace("_", " ").capitalize()


def _ordered_methods(df: pd.DataFrame) -> list[str]:
    present = set(df["method"])
    return [m for m in METHODS if m in present]


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
    theta = [_label(d) for d in DIMENSIONS]
    for method in _ordered_methods(df):
        means = df.loc[df["method"] == method, list(DIMENSIONS)].mean()
        r = [float(means[d]) for d in DIMENSIONS]
        color = method_color(method)
        fig.add_trace(go.Scatterpolar(
            name=method, r=r + r[:1], theta=theta + theta[:1], fill="toself",
            line={"color": color, "width": 2}, fillcolor=with_alpha(color, 0.15),
            hovertemplate=f"<b>{method}</b><br>%{{theta}}: %{{r:.2f}} / 5<extra></extra>",
        ))
    fig.update_layout(polar={"bgcolor": "rgba(0,0,0,0)",
                             "radialaxis": {"range": [1, 5], "tickvals": [1, 2, 3, 4, 5],
                                            "gridcolor": "rgba(128, 128, 128, 0.3)"},
                             "angularaxis": {"gridcolor": "rgba(128, 128, 128, 0.3)"}})
    return style(fig, f"Ratings on six dimensions ({_who(persona)})")


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
    x = [_label(d) for d in DIMENSIONS]
    for method in _ordered_methods(df):
        mrows = df[df["method"] == method]
        means, halves, counts = [], [], []
        for d in DIMENSIONS:
            values = mrows[d].dropna().to_numpy(float)
            means.append(float(values.mean()) if len(values) else None)
            halves.append(t_halfwidth(values, confidence_level))
            counts.append(len(values))
        fig.add_trace(go.Bar(
            name=method, x=x, y=means, marker={"color": method_color(method)},
            error_y={"type": "data", "array": halves, "visible": True, "color": TEXT_COLOR}, customdata=counts,
            hovertemplate=f"<b>{method}</b><br>%{{x}}: %{{y:.2f}} / 5 (n = %{{customdata}})<extra></extra>",
        ))
    fig.update_layout(barmode="group", yaxis={"range": [0, 5.4], "title": {"text": "Mean rating (1-5)"}})
    return style(fig, f"Persona ratings ({_who(persona)}; bars: {confidence_level:.0%} t-interval)")
