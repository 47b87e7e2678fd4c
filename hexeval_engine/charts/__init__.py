"""Pure functions that return plotly figures, shared by the HTML report and the dashboard.

Every function returns ``None`` when its input holds nothing to draw (no rows, no values), so a
caller shows its own empty state instead of an empty axis. Every method has one colour
(:data:`METHOD_COLORS`) in every chart; backgrounds are transparent and text mid-grey, so the
figures read in light and dark themes.
"""

from .colors import METHOD_COLORS, method_color
from .ratings import DIMENSIONS, radar_chart, ratings_summary_chart
from .scores import score_heatmap
from .technical import fidelity_chart, parsimony_chart

__all__ = ["DIMENSIONS", "METHOD_COLORS", "fidelity_chart", "method_color", "parsimony_chart", "radar_chart",
           "ratings_summary_chart", "score_heatmap"]
