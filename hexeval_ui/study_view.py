"""The study section of Results: people's answers, the calibration of the personas against them
(with intervals and the real n), and people's and personas' picks side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.study.calibration import estimate_text
from hexeval_engine.study.evidence import read_calibration
from hexeval_engine.vocabulary import dimension_label, plural

from .ratings_view import escape_markdown

MEASURES = {"spearman": "Personas vs people over cases (Spearman)", "kendall_tau_methods": "Order of methods (Kendall τ)",
            "alpha_humans": "People among themselves (Krippendorff's α)",
            "alpha_personas_humans": "Personas with people (Krippendorff's α)"}

NO_INTERVAL = " (too few cases for an interval)"


def render_study(run) -> None:
    """Render the study section when the run has study evidence (nothing otherwise)."""
    calibration = read_calibration(run.path)
    if not calibration or not calibration.get("roles"):
        return
    st.header("Real people: study answers and calibration")
    st.caption("Intervals are 95% bootstrap intervals over cases. Krippendorff's α among people is the ceiling: "
               "personas cannot be expected to agree with people better than people agree with each other.")
    for role, block in calibration["roles"].items():
        st.subheader(escape_markdown(role))
        st.markdown(escape_markdown(f"{plural(block['n_people'], 'person', 'people')}, "
                                    f"{plural(block['n_ratings'], 'rating')}. {block['sentence']}"))
        table = pd.DataFrame({label: [estimate_text(block["dimensions"][d][key], no_interval=NO_INTERVAL)
                                     for d in DIMENSIONS]
                              for key, label in MEASURES.items()}, index=[dimension_label(d) for d in DIMENSIONS])
        st.dataframe(table)
        people = block["forward_accuracy"]["people"]
        personas = calibration.get("forward_accuracy_personas", {})
        rows = [{"Explanation": m, "People answering the what-if correctly": _share(people.get(m)),
                 "Simulated readers answering it correctly": _share(personas.get(m))}
                for m in sorted(set(people) | set(personas))]
        if rows:
            st.dataframe(pd.DataFrame(rows), hide_index=True)
    picks = (run.recommendations or {}).get("picks") or {}
    if picks:
        st.subheader("Who would pick what")
        st.dataframe(pd.DataFrame([{"Stakeholder": role, "People's pick": p.get("people_pick") or "–",
                                    "People": p.get("n_people", 0), "Personas' pick": p.get("personas_pick") or "–",
                                    "Personas": p.get("n_personas", 0)} for role, p in picks.items()]), hide_index=True)


def _share(entry) -> str:
    if not entry:
        return "–"
    text = f"{entry['value']:.0%} of {entry['n']}"
    return text + (f" [{entry['ci_low']:.0%}, {entry['ci_high']:.0%}]" if entry.get("ci_low") is not None else "")
