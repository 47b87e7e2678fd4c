"""Recommendations: which explanation method to show to each stakeholder, and why."""

from hexeval_engine import HexevalError
from hexeval_ui.components import empty_state, page_header, show_error
from hexeval_ui.recommendations_view import render_recommendations
from hexeval_ui.runs_view import viewed_run

page_header("Recommendations",
            "One card per stakeholder: the method to show them, its combined score, the reasoning, and how close "
            "the alternatives are.")
try:
    run = viewed_run()
except HexevalError as err:
    show_error(err)
    run = None
if run is None:
    empty_state("No recommendations yet — run an evaluation on Configure & Run, or load a saved run there.")
else:
    render_recommendations(run)
