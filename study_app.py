"""Streamlit entry for study participants only (``hexeval study serve RUN`` starts it).

Its single page is the study: ``st.navigation`` with one page and no menu, so the dashboard's pages
(the ``app_pages/`` folder next to this file) are never registered and cannot be reached from here.
The run comes from the operator's environment (``HEXEVAL_STUDY_RUN``), the participant from the
link's token.
"""

from __future__ import annotations

import os

import streamlit as st

RUN_ENV = "HEXEVAL_STUDY_RUN"


def study_page() -> None:
    # The first visit to a fresh server imports the engine (several seconds): say so at once instead of a blank page.
    opening = st.empty()
    opening.caption("Opening the study…")
    from hexeval_ui import study_participant  # noqa: PLC0415  (after the message: the import is the slow part)

    opening.empty()
    study_participant.render(os.environ.get(RUN_ENV), st.query_params.get("token"))


st.set_page_config(page_title="Study", layout="centered")
st.navigation([st.Page(study_page, title="Study", default=True)], position="hidden").run()
