"""The one-line summary of a run shown at the top of Results and Recommendations."""

from __future__ import annotations

import streamlit as st


def render_run_summary(run) -> None:
    m = run.manifest
    sample = (m.get("counts") or {}).get("sample_size", "?")
    title = m.get("usecase_title") or m.get("usecase", "?")
    st.markdown(f"**{title}** · run `{run.run_id}` · {m.get('created', '')[:16].replace('T', ' ')} · "
                f"{sample} instances · {run.rater_label}")
    if (m.get("rater") or {}).get("kind") == "simulated":
        st.caption("Persona ratings in this run come from the simulated rater, not from an LLM or real people.")
