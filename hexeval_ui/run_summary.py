"""The one-line summary of a run shown at the top of Results and Recommendations."""

from __future__ import annotations

import streamlit as st


def render_run_summary(run) -> None:
    m = run.manifest or {}
    config = m.get("config", {}) or {}
    sample = (config.get("evaluation") or {}).get("sample_size", "?")
    rater = m.get("rater", "?")
    st.markdown(f"**Run** `{m.get('run_id', run.path)}` · {str(m.get('created', ''))[:19].replace('T', ' ')} · "
                f"use case **{m.get('usecase', '?')}** · sample size **{sample}** · rater **{rater}** · "
                f"status **{m.get('status', '?')}**")
    if "simulated" in str(rater).lower():
        st.caption("Persona ratings in this run come from the simulated rater, not from an LLM or real people.")
