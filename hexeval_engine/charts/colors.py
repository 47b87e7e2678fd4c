"""One colour per method and the shared, theme-neutral figure styling.

The method colours are six of Okabe & Ito's colour-blind-safe palette (Okabe & Ito, 2008,
*Color Universal Design*), chosen at mid luminance so that each reads on a white page and on
a dark theme alike. Figures have transparent backgrounds, mid-grey text and faint grey grid
lines, so they sit on either theme without restyling.
"""

from __future__ import annotations

import plotly.graph_objects as go

METHOD_COLORS = {
    "SHAP": "#E69F00",  # orange
    "LIME": "#56B4E9",  # sky blue
    "Anchor": "#009E73",  # bluish green
    "DiCE": "#CC79A7",  # reddish purple
    "Narrative": "#8C7CFF",  # blue violet: far from SHAP's orange (vermillion beside it read as the same hue)
    "Random": "#8C8C8C",  # grey: the baseline is a reference, never a contender
}
UNKNOWN_COLOR = "#999999"
#: Line dash and marker symbol per method, so traces with identical values stay distinguishable
#: (one hides the other otherwise) and the charts read without colour; the baseline is dashed.
METHOD_DASH = {"SHAP": "solid", "LIME": "dot", "Anchor": "dashdot", "DiCE": "longdash", "Narrative": "longdashdot",
               "Random": "dash"}
METHOD_SYMBOL = {"SHAP": "circle", "LIME": "square", "Anchor": "diamond", "DiCE": "triangle-up",
                 "Narrative": "star", "Random": "x"}
BASELINE_METHODS = frozenset({"Random"})
TEXT_COLOR = "#808080"
GRID_COLOR = "rgba(128, 128, 128, 0.25)"
#: Sequential colour scale for scores: perceptually uniform and colour-blind safe.
SCORE_COLORSCALE = "Viridis"


def method_color(method: str) -> str:
    """The colour of ``method``; grey for a name that is not one of the four methods."""
    return METHOD_COLORS.get(method, UNKNOWN_COLOR)


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
