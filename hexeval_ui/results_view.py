"""Results page body for a loaded run: technical metrics, persona ratings, case explorer, downloads."""

from __future__ import annotations

import streamlit as st

from .case_view import render_case_explorer
from .downloads import render_downloads
from .evidence_view import render_baseline_evidence, render_warnings
from .ratings_view import render_ratings
from .reuse_view import render_extend
from .run_summary import render_run_summary
from .study_view import render_study, shows_study
from .technical_view import render_technical
from .verdict_view import render_verdict


def render_results(run) -> None:
    render_verdict(run, link=True)  # the answer first, then the evidence
    render_run_summary(run)
    render_warnings(run)
    study = shows_study(run)
    tabs = st.tabs((["Real people (study)"] if study else []) + ["Technical metrics", "Persona ratings", "Case explorer",
                                                                  "Downloads"])
    if study:
        with tabs[0]:
            render_study(run)
    technical, ratings, cases, files = tabs[-4:]
    with technical:
        render_technical(run)
        render_baseline_evidence(run)
    with ratings:
        render_ratings(run)
    with cases:
        render_case_explorer(run)
    with files:
        render_downloads(run)
    render_extend(run)
