"""Recommendations page body for a loaded run."""

from __future__ import annotations

import streamlit as st

from .components import section
from .run_summary import render_run_summary


def render_recommendations(run) -> None:
    render_run_summary(run)
    section("recommendations.json", "The run's recommendations file as saved by the engine.")
    st.json(run.recommendations, expanded=2)
