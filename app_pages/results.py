"""Results: technical metrics and persona ratings of the run being viewed."""

from hexeval_ui.components import page_header
from hexeval_ui.results_view import render_results
from hexeval_ui.runs_view import render_viewed_run

page_header("Results",
            "How well each method answers the stakeholders' questions, what stands behind each answer, and how the "
            "personas rated the explanations.")
render_viewed_run(render_results, "No results yet — run an evaluation on Configure & Run, or load a saved run there.")
