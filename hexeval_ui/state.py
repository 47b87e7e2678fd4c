"""Session state: every key the dashboard uses is declared and initialised here, once.

Pages read and write these keys through the helpers below instead of inventing their own, so a
page switch never loses results and a failed upload never touches them.
"""

from __future__ import annotations

import streamlit as st

CUSTOM = "custom"  # the sidebar value for "Custom Upload"
DEFAULT_USECASE = "heart"
LATEST = "__latest__"  # the sidebar value for "latest run of this session"

RATER_SIMULATED = "simulated"
RATER_OPENAI = "openai"
RATER_COMPATIBLE = "compatible"

# Widget keys (the widgets live in app.py's sidebar, so they survive page switches).
USECASE = "usecase"
RATER_KIND = "rater_kind"
LLM_MODEL = "llm_model"
LLM_BASE_URL = "llm_base_url"
LLM_API_KEY = "llm_api_key"
VIEWED_RUN = "viewed_run"

# Plain state.
SESSION_RUNS = "session_runs"  # use case -> output path of the latest run made in this session
UPLOAD = "upload"  # the last validated custom upload (an UploadCheck) or None
UPLOAD_FINGERPRINT = "upload_fingerprint"  # identifies the files that UPLOAD was computed from
SHOW_LATEST = "show_latest"  # set after a run: point the sidebar at it on the next rerun
FINISHED_RUN = "finished_run"  # (run id, folder) of the run that just finished, shown once after the rerun
COMPARE = "compare_pair"  # (folder a, folder b) shown in the compare view, or None
DELETE_PENDING = "delete_pending"  # folder of the run awaiting delete confirmation, or None
NOTICES = "notices"  # messages for the next render (e.g. "the run you were viewing was deleted")
UPLOAD_REMEDIES = "upload_remedies"  # data options chosen by one-click remedies: {"drop_duplicates": True, ...}
UPLOAD_ENCODING = "upload_encoding"  # widget: how text columns reach an uploaded model (auto | label)
UPLOAD_RUN_NAME = "upload_run_name"  # widget: optional name for runs of the upload
UPLOAD_LEAK_OK = "upload_leak_ok"  # widget: run although test rows leak (the user accepted it)

DEFAULTS = {
    USECASE: DEFAULT_USECASE,
    RATER_KIND: RATER_SIMULATED,
    LLM_MODEL: "gpt-4o-mini",
    LLM_BASE_URL: "http://localhost:11434/v1",
    LLM_API_KEY: "",
    VIEWED_RUN: LATEST,
    UPLOAD: None,
    UPLOAD_FINGERPRINT: None,
    COMPARE: None,
    DELETE_PENDING: None,
    UPLOAD_ENCODING: "auto",
    UPLOAD_RUN_NAME: "",
    UPLOAD_LEAK_OK: False,
}


def init_state() -> None:
    """Set every key that is not yet set. Called once per script run, from app.py."""
    for key, value in DEFAULTS.items():
        if key not in st.session_state:
            st.session_state[key] = value
    for key in (SESSION_RUNS, NOTICES, UPLOAD_REMEDIES):
        if key not in st.session_state:
            st.session_state[key] = [] if key == NOTICES else {}
    if st.session_state.pop(SHOW_LATEST, False):
        # Widget values may only be set before the widget is drawn, i.e. here, not where the run finished.
        st.session_state[VIEWED_RUN] = LATEST


def current_usecase() -> str:
    return st.session_state[USECASE]


def is_custom() -> bool:
    return current_usecase() == CUSTOM


def remember_run(usecase: str, output_path: str, run_id: str) -> None:
    """Record a finished run as this session's latest for ``usecase``.

    The sidebar was drawn before the run started, so the caller reruns the script (``st.rerun``):
    the sidebar then shows the run, and :func:`take_finished_run` gives the page its summary once.
    """
    st.session_state[SESSION_RUNS][usecase] = str(output_path)
    st.session_state[SHOW_LATEST] = True
    st.session_state[FINISHED_RUN] = (run_id, str(output_path))


def take_finished_run() -> tuple[str, str] | None:
    """(run id, folder) of the run that finished just before this rerun, once; else None."""
    return st.session_state.pop(FINISHED_RUN, None)


def latest_session_run(usecase: str) -> str | None:
    return st.session_state[SESSION_RUNS].get(usecase)


def viewed_run_path() -> str | None:
    """The folder of the run the sidebar points at, or None when there is none to show."""
    choice = st.session_state[VIEWED_RUN]
    if choice == LATEST:
        return latest_session_run(current_usecase())
    return choice


def notify(message: str) -> None:
    """Queue a message for the next render (shown once by ``take_notices``)."""
    st.session_state[NOTICES].append(message)


def take_notices() -> list[str]:
    notices, st.session_state[NOTICES] = st.session_state[NOTICES], []
    return notices


def forget_run(path: str) -> bool:
    """Drop every reference to the run folder ``path`` (it was deleted); True if it was on screen.

    Must run before the sidebar is drawn (i.e. in a widget callback), because it may reset the
    sidebar's run picker.
    """
    ss = st.session_state
    on_screen = viewed_run_path() == path
    if ss[VIEWED_RUN] == path:
        ss[VIEWED_RUN] = LATEST
    ss[SESSION_RUNS] = {uc: p for uc, p in ss[SESSION_RUNS].items() if p != path}
    if ss[COMPARE] and path in ss[COMPARE]:
        ss[COMPARE] = None
    return on_screen
