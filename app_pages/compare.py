"""Compare runs: two saved runs side by side, differences with their uncertainty."""

from hexeval_ui.compare_view import render_compare_picker
from hexeval_ui.components import page_header
from hexeval_ui.runs_view import all_runs, run_labels, short_run_labels

page_header("Compare runs",
            "Pick two saved runs to see which settings differ and how metrics, ratings and recommendations moved — "
            "with how much of each change is within the uncertainty.")
runs = all_runs()
render_compare_picker(run_labels(runs, with_title=True), short_labels=short_run_labels(runs))
