"""Start: what HEXEval answers and how, and the bundled use cases one click away."""

from hexeval_engine import HexevalError, list_usecases
from hexeval_ui.components import page_header, show_error
from hexeval_ui.landing_view import render_landing
from hexeval_ui.state import DEFAULT_USECASE

page_header("HEXEval", "Which explanation should each stakeholder see?")
try:
    render_landing(sorted(list_usecases(), key=lambda u: u.name != DEFAULT_USECASE))
except HexevalError as err:
    show_error(err)
