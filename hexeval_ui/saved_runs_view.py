"""Configure & Run's "Load previous results": the saved runs of the use case, with Load and Delete, and a link to Compare runs.

Load, Delete and Cancel act in widget callbacks: a callback runs before the sidebar is drawn, so
it may point the sidebar's run picker elsewhere (Streamlit forbids that after the widget exists).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hexeval_engine import HexevalError
from hexeval_engine.runs import store as runs
from hexeval_engine.paths import shown
from hexeval_engine.runs.folders import temp_folders

from . import state
from .components import COMPARE_PAGE, RESULTS_PAGE, section, show_error
from .engine import outputs_root
from .runs_view import run_id_help, run_labels, scan
from hexeval_engine.plain_values import show_time
from hexeval_engine.vocabulary import plural

COLUMNS = ["Name", "When", "Rater", "Cases", "Status", "Failed methods", "Study"]


def runs_table(infos, *, names: bool = False) -> pd.DataFrame:
    """One row per run, named by its time (the id is in the picker's tooltip); ``names`` adds the run's name
    (for uploads: the typed name or the files)."""
    table = pd.DataFrame([{"Name": getattr(r, "title", r.usecase), "When": show_time(r.created) if r.created else "",
                           "Rater": r.rater, "Cases": r.sample_size, "Status": r.status,
                           "Failed methods": ", ".join(m for m in r.methods_failed if m) or "",
                           "Study": getattr(r, "study", "")} for r in infos],
                         columns=COLUMNS)
    return table if names else table.drop(columns="Name")


def render_saved_runs(usecase: str) -> None:
    custom = usecase == state.CUSTOM
    section("Load previous results", "Complete runs of your uploads, saved with a copy of their files." if custom
            else "Complete runs of this use case saved on this server.")
    for notice in state.take_notices():
        st.info(notice, icon=":material/info:")
    infos, problems = scan(usecase)
    for problem in problems:
        st.warning(f"Damaged run `{shown(problem.path.name)}` cannot be loaded: {problem.reason}",
                   icon=":material/warning:")
    stale = [t for t in temp_folders(outputs_root()) if t.stale and t.path.parent.name == usecase]
    if stale:
        st.caption(f"{plural(len(stale), 'unfinished run folder')} {'was' if len(stale) == 1 else 'were'} left by "
                   "evaluations that were stopped; they are not "
                   "runs. The server operator can remove them with `hexeval runs clean`.")
    if not infos:
        st.caption("No saved runs for this use case yet — the first run you make appears here.")
        return
    st.dataframe(runs_table(infos, names=custom), hide_index=True, key="saved_runs_table")
    labels = run_labels(infos)
    pick, load, delete = st.columns([4, 1, 1], vertical_alignment="bottom")
    chosen_info = next((r for r in infos if str(r.path) == st.session_state.get("saved_run_choice")), None)
    choice = pick.selectbox("Saved run", list(labels), index=None, format_func=labels.get, key="saved_run_choice",
                            placeholder="Choose a saved run", help=run_id_help(chosen_info))
    chosen = choice is not None
    if load.button("Load", icon=":material/folder_open:", on_click=_view, args=(choice,), width="stretch",
                   disabled=not chosen, help=None if chosen else "Choose a saved run first."):
        st.switch_page(RESULTS_PAGE)
    delete.button("Delete…", icon=":material/delete:", on_click=_ask_delete, args=(choice,), width="stretch",
                  disabled=not chosen, help=None if chosen else "Choose a saved run first.")
    _delete_confirmation(labels)
    st.page_link(COMPARE_PAGE, label="Compare two saved runs", icon=":material/compare_arrows:")


def _view(path: str) -> None:
    st.session_state[state.VIEWED_RUN] = path


def _ask_delete(path: str) -> None:
    st.session_state[state.DELETE_PENDING] = path


def _cancel_delete() -> None:
    st.session_state[state.DELETE_PENDING] = None


def _delete(path: str, label: str) -> None:
    st.session_state[state.DELETE_PENDING] = None
    try:
        runs.delete_run(path, outputs_root())
    except (HexevalError, OSError) as err:
        state.notify(f"The run was not deleted: {err}")
        return
    on_screen = state.forget_run(path)
    message = f"Deleted the run {label}."
    if on_screen:
        message += " It was the run on Results and Recommendations; they now show the latest run of this session, if any."
    state.notify(message)


def _delete_confirmation(labels: dict[str, str]) -> None:
    path = st.session_state[state.DELETE_PENDING]
    if path is None:
        return
    if path not in labels:  # deleted elsewhere meanwhile
        st.session_state[state.DELETE_PENDING] = None
        return
    with st.container(border=True):
        on_screen = state.viewed_run_path() == path
        st.warning(f"Delete run **{labels[path]}** and all its files permanently?"
                   + (" It is the run currently shown on Results and Recommendations." if on_screen else ""),
                   icon=":material/delete_forever:")
        yes, no, _ = st.columns([1, 1, 3])
        yes.button("Delete permanently", type="primary", on_click=_delete, args=(path, labels[path]), key="confirm_delete")
        no.button("Cancel", on_click=_cancel_delete, key="cancel_delete")
