"""Recommendations: which explanation method to show to each stakeholder, and why."""

from hexeval_ui.components import page_header
from hexeval_ui.recommendations_view import render_recommendations
from hexeval_ui.runs_view import render_viewed_run

page_header("Recommendations", "Which explanation to show each stakeholder: the verdict first, then one card each.")
render_viewed_run(render_recommendations,
                  "No recommendations yet — run an evaluation on Configure & Run, or load a saved run there.")
