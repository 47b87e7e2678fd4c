"""Configure & Run's "Load previous results": the saved runs of the current use case."""

from __future__ import annotations

import streamlit as st

from . import state
from .components import RESULTS_PAGE, section
from .engine import outputs_root
from .runs_view import saved_run_labels


def render_saved_runs(usecase: str) -> None:
    section("Load previous results", f"Complete runs saved under `{outputs_root()}` for this use case.")
    labels = saved_run_labels(usecase)
    if not labels:
        st.caption("No saved runs for this use case yet — the first run you make appears here.")
        return
    choice = st.selectbox("Saved run", list(labels), format_func=labels.get, key="saved_run_choice")
    if st.button("Load", icon=":material/folder_open:", on_click=_view, args=(choice,)):
        st.switch_page(RESULTS_PAGE)


def _view(path: str) -> None:
    # A callback runs before the sidebar widget is drawn, so it may set the widget's value.
    st.session_state[state.VIEWED_RUN] = path
