"""One colour per method and the shared, theme-neutral figure styling.

The method colours are six of Okabe & Ito's colour-blind-safe palette (Okabe & Ito, 2008,
*Color Universal Design*), chosen at mid luminance so that each reads on a white page and on
a dark theme alike. Figures have transparent backgrounds, mid-grey text and faint grey grid
lines, so they sit on either theme without restyling.
"""

from __future__ import annotations

import zlib

import plotly.graph_objects as go

from ..explainers.registry import builtin_specs
from ..explanation import NARRATIVE_METHOD

#: Narratives are told by their own stage, not an explainer: their look is set here.
_NARRATIVE_LOOK = ("#8C7CFF", "longdashdot", "star")  # blue violet: far from SHAP's orange
#: Colours for methods whose spec is not known here (a plugin named only in a run's config): Okabe & Ito's
#: remaining hues and two of Tol's, picked by the name so a method keeps its colour across charts.
_SPARE_COLORS = ("#0072B2", "#D55E00", "#882255", "#44AA99", "#332288", "#999933")


def _looks() -> dict[str, tuple[str, str, str]]:
    looks = {s.name: (s.color, s.dash, s.symbol) for s in builtin_specs()}
    looks[NARRATIVE_METHOD] = _NARRATIVE_LOOK
    return looks


_LOOKS = _looks()
#: Colour, line dash and marker symbol per method (from the methods' specs), so traces with identical values
#: stay distinguishable (one hides the other otherwise) and the charts read without colour; the baseline is dashed.
METHOD_COLORS = {m: look[0] for m, look in _LOOKS.items()}
METHOD_DASH = {m: look[1] for m, look in _LOOKS.items()}
METHOD_SYMBOL = {m: look[2] for m, look in _LOOKS.items()}
BASELINE_METHODS = frozenset(s.name for s in builtin_specs() if s.family == "baseline")
UNKNOWN_COLOR = "#999999"
TEXT_COLOR = "#808080"
GRID_COLOR = "rgba(128, 128, 128, 0.25)"
#: Sequential colour scale for scores: perceptually uniform and colour-blind safe.
SCORE_COLORSCALE = "Viridis"


def method_color(method: str) -> str:
    """The colour of ``method``; a plugin's method without a known spec gets a spare colour chosen by its name."""
    if method in METHOD_COLORS:
        return METHOD_COLORS[method]
    if not method:
        return UNKNOWN_COLOR
    return _SPARE_COLORS[zlib.crc32(method.encode()) % len(_SPARE_COLORS)]


def method_dash(method: str) -> str:
    return METHOD_DASH.get(method, "solid")


def method_symbol(method: str) -> str:
    return METHOD_SYMBOL.get(method, "circle")


def with_alpha(hex_color: str, alpha: float) -> str:
    """``#RRGGBB`` as an ``rgba(...)`` string with the given opacity."""
    r, g, b = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"


def style(fig: go.Figure, title: str) -> go.Figure:
    """Apply the shared theme-neutral layout to ``fig`` and return it."""
    fig.update_layout(
        title={"text": title, "x": 0, "xanchor": "left"},
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
        # The legend sits at the bottom of the whole figure (not of the plot), below any rotated tick labels.
        font={"color": TEXT_COLOR}, legend={"title": {"text": ""}, "orientation": "h", "yref": "container",
                                            "yanchor": "bottom", "y": 0, "x": 0, "xanchor": "left"},
        margin={"l": 10, "r": 10, "t": 70, "b": 40}, hoverlabel={"namelength": -1},
    )
    fig.update_xaxes(automargin=True)
    fig.update_yaxes(automargin=True)
    fig.update_xaxes(gridcolor=GRID_COLOR, zerolinecolor=GRID_COLOR, linecolor=GRID_COLOR)
    fig.update_yaxes(gridcolor=GRID_COLOR, zerolinecolor=GRID_COLOR, linecolor=GRID_COLOR)
    return fig
