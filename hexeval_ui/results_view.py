"""Results page body for a loaded run."""

from __future__ import annotations

import streamlit as st

from .components import section
from .run_summary import render_run_summary


def render_results(run) -> None:
    render_run_summary(run)
    section("Technical metrics", "One row per method and metric, as saved in technical_metrics.csv.")
    st.dataframe(run.technical_metrics, hide_index=True)
    section("Persona ratings", "Every rating as saved in persona_ratings.csv.")
    if run.persona_ratings is None or run.persona_ratings.empty:
        st.info("This run has no persona ratings (personas were switched off or none are defined).",
                icon=":material/group_off:")
    else:
        st.dataframe(run.persona_ratings, hide_index=True)
