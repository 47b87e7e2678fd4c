"""The operator's switch to serve a study from the main dashboard (off unless the operator sets it).

With ``HEXEVAL_DASHBOARD_STUDY_RUN`` set (environment, the project's ``.env`` or ``st.secrets``) to a
run folder with an open study, a request that carries a participant link's ``?token=`` gets the study
page and nothing else: no sidebar, no other page registered, no run, answer or right answer of the
dashboard. The session stays on the study page even if the token is later dropped from the address.
A wrong or closed token sees only "This is not a valid study link." Requests without a token get the
dashboard as before, so switch it on only where the dashboard itself may be reached by participants;
otherwise serve the study alone with ``hexeval study serve RUN`` (docs/studies.md).
"""

from __future__ import annotations

import streamlit as st

from . import study_participant
from .settings import operator_setting

STUDY_RUN_SETTING = "HEXEVAL_DASHBOARD_STUDY_RUN"
_SESSION_TOKEN = "_study_link_token"


def dashboard_study_run() -> str | None:
    """The run folder whose study the dashboard serves, or None (the default: the switch is off)."""
    value = operator_setting(STUDY_RUN_SETTING)
    return value.strip() or None if value else None


def serve_study_link() -> bool:
    """Serve only the study page for a participant's link and return True; False for everyone else."""
    run = dashboard_study_run()
    if run is None:
        return False
    token = st.query_params.get("token")
    if token is None and _SESSION_TOKEN not in st.session_state:
        return False
    if token is not None:
        st.session_state[_SESSION_TOKEN] = token

    def study() -> None:
        study_participant.render(run, st.session_state[_SESSION_TOKEN])

    st.navigation([st.Page(study, title="Study", url_path="study", default=True)], position="hidden").run()
    return True
