"""The verdict line: each stakeholder's pick and its strength in one glance, above everything else."""

from __future__ import annotations

import streamlit as st

from hexeval_engine.recommend.verdict import clear_lead_rule, verdict_line

from .components import RECOMMENDATIONS_PAGE
from .run_summary import source_of

VERDICT_KEY = "verdict_line"


def render_verdict(run, *, link: bool = False) -> None:
    """The run's verdict as one bordered line (with the clear-lead rule one click away).

    ``link`` adds a link to the Recommendations page (for the page shown after a run).
    """
    recs = run.recommendations or {}
    if not recs.get("stakeholders") and recs.get("mode") == "disabled":
        return
    level = (recs.get("confidence_level") or 0.95)
    with st.container(border=True, key=VERDICT_KEY):
        source = source_of(run)
        st.markdown(f"**Verdict:** {verdict_line(recs, simulated=source.simulated, note=source.verdict_note)}",
                    help=clear_lead_rule(float(level)))
        if link:
            st.page_link(RECOMMENDATIONS_PAGE, label="Why, and the alternatives", icon=":material/recommend:")
