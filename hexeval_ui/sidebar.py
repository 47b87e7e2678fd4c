"""The sidebar shown on every page: use case, persona rater, and the run being viewed.

Its widgets are created by app.py (the entry file) on every rerun, so their values survive
page switches.
"""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from . import state
from .rater import RATER_LABELS, current_choice, operator_key_usable
from .runs_view import run_labels, saved_runs, short_run_labels


def render_sidebar(usecases) -> None:
    titles = {u.name: u.title for u in usecases} | {state.CUSTOM: "Custom Upload"}
    with st.sidebar:
        st.selectbox("Use case", list(titles), format_func=titles.get, key=state.USECASE, persist_state="session",
                     on_change=_view_latest, help="A bundled example, or your own model and CSV.")
        _rater_controls()
        _run_picker()


def _view_latest() -> None:
    st.session_state[state.VIEWED_RUN] = state.LATEST


def _rater_controls() -> None:
    st.radio("Persona rater", list(RATER_LABELS), format_func=RATER_LABELS.get, key=state.RATER_KIND, persist_state="session",
             help="Who plays the stakeholder personas. The simulated rater needs no network and no key.")
    kind = st.session_state[state.RATER_KIND]
    if kind != state.RATER_SIMULATED:
        st.text_input("Model", key=state.LLM_MODEL, persist_state="session")
        if kind == state.RATER_COMPATIBLE:
            st.text_input("Base URL", key=state.LLM_BASE_URL, persist_state="session", help="e.g. Ollama, vLLM or LM Studio: http://host:port/v1")
        base_url = st.session_state[state.LLM_BASE_URL].strip() or None if kind == state.RATER_COMPATIBLE else None
        has_operator_key = operator_key_usable(kind, base_url)
        st.text_input("API key", key=state.LLM_API_KEY, type="password", persist_state="session",
                      placeholder="Using the server's key" if has_operator_key else "sk-…",
                      help="Used for this session only; never saved to a run, a log or a report.")
    choice = current_choice()
    st.caption(f"**Active:** {choice.status_line()}")
    problem = choice.problem()
    if problem:
        st.warning(problem, icon=":material/key:")


def _run_picker() -> None:
    usecase = state.current_usecase()
    runs = saved_runs(usecase)
    # the picker's value is one line that cannot wrap (190 px of text at 1440 px): a short label inside, the run's
    # full label (time, rater, cases, study) under it
    labels = {state.LATEST: _latest_label(usecase)} | short_run_labels(runs)
    ss = st.session_state
    if ss[state.VIEWED_RUN] not in labels:
        ss[state.VIEWED_RUN] = state.LATEST
    # The browser keeps the label a picker showed as its value. A run's label changes while it is on screen (it gains
    # "with a study", an amendment, the latest run of the session ends), and the old label then matches no run on the
    # next rerun, so the picker fell back to the first entry. The choice is therefore kept in state.VIEWED_RUN (set
    # here by the picker's callback, or by a page's Load), and the picker is keyed by its labels: new labels, a new
    # picker that starts at the choice.
    picker = f"{state.VIEWED_RUN}_picker_{_digest(labels)}"
    ss[picker] = ss[state.VIEWED_RUN]
    st.selectbox("Run being viewed", list(labels), format_func=labels.get, key=picker, on_change=_picked,
                 args=(picker, list(labels)), help="Results and Recommendations show this run.")
    full = run_labels(runs)
    if ss[state.VIEWED_RUN] in full:
        st.caption(full[ss[state.VIEWED_RUN]])


def _picked(picker: str, choices: list[str]) -> None:
    if st.session_state[picker] in choices:
        st.session_state[state.VIEWED_RUN] = st.session_state[picker]


def _digest(labels: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(labels, sort_keys=True).encode()).hexdigest()[:12]


def _latest_label(usecase: str) -> str:
    return "Latest run of this session" if state.latest_session_run(usecase) else "No run yet in this session"
