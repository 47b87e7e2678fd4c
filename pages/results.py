"""Results: technical metrics and persona ratings of the run being viewed."""

from hexeval_engine import HexevalError
from hexeval_ui.components import empty_state, page_header, show_error
from hexeval_ui.results_view import render_results
from hexeval_ui.runs_view import viewed_run

page_header("Results",
            "How faithful, compact and stable each method's explanations are, and how each stakeholder persona "
            "rated them.")
try:
    run = viewed_run()
except HexevalError as err:
    show_error(err)
    run = None
if run is None:
    empty_state("No results yet — run an evaluation on Configure & Run, or load a saved run there.")
else:
    render_results(run)
