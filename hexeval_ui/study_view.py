"""The study section of Results: people's answers, the calibration of the personas against them
(with intervals and the real n), and people's and personas' picks side by side.

The calibration is recomputed only when the operator presses "Recompute with the latest answers"
(participants' answers only save answers); the section says when it was last computed, how many
answers it covers and whether answers arrived since.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.explanation import BASELINE_METHOD
from hexeval_engine.study.calibration import estimate_text, signed_text
from hexeval_engine.errors import HexevalError
from hexeval_engine.study.evidence import evidence_state, read_calibration, refresh_evidence, state_sentence
from hexeval_engine.study.storage import has_study
from hexeval_engine.recommend.ratings_source import people_count_text
from hexeval_engine.vocabulary import dimension_label, plural

from .components import show_error
from .ratings_view import escape_markdown

MEASURES = {"spearman": "Personas vs people over cases (Spearman)", "kendall_tau_methods": "Order of methods (Kendall τ)",
            "alpha_humans": "People among themselves (Krippendorff's α)",
            "alpha_personas_humans": "Personas with people (Krippendorff's α)"}

NO_INTERVAL = " (too few cases for an interval)"


def shows_study(run) -> bool:
    """Whether the run has a study with answers or a calibration (so Results gives it a tab)."""
    if not has_study(run.path):
        return False
    try:
        return bool(evidence_state(run.path)["n_ratings"] or read_calibration(run.path))
    except HexevalError:
        return True  # the tab shows the problem


def render_study(run) -> None:
    """Render the study section when the run's study has answers (nothing otherwise)."""
    if not has_study(run.path):
        return
    try:
        state = evidence_state(run.path)
    except HexevalError as err:
        show_error(err)
        return
    calibration = read_calibration(run.path)
    if not state["n_ratings"] and not calibration:
        return
    st.subheader("Real people: study answers and calibration")
    _recompute(run, state)
    if not calibration or not calibration.get("roles"):
        return
    st.caption("Intervals are 95% bootstrap intervals over cases. Krippendorff's α among people is the ceiling: "
               "personas cannot be expected to agree with people better than people agree with each other.")
    people = (run.recommendations or {}).get("people") or {}
    if people.get("too_few"):
        st.info("Roles with too few people to calibrate or to use as a stakeholder yet (the calibration needs "
                f"{people.get('min_people', 2)} people per role): "
                + escape_markdown(people_count_text(people["too_few"])) + ". Their answers are kept and count once "
                "more people answer in the same role.", icon=":material/group_add:")
    for role, block in calibration["roles"].items():
        st.subheader(escape_markdown(role))
        st.markdown(escape_markdown(f"{plural(block['n_people'], 'person', 'people')}, "
                                    f"{plural(block['n_ratings'], 'rating')}. {block['sentence']}"))
        table = pd.DataFrame({label: [estimate_text(block["dimensions"][d][key], no_interval=NO_INTERVAL)
                                     for d in DIMENSIONS]
                              for key, label in MEASURES.items()}, index=[dimension_label(d) for d in DIMENSIONS])
        st.dataframe(table)
        forward = block.get("forward_accuracy") or {}
        table = forward_table(forward, calibration.get("persona_kind", "simulated"))
        if len(table):
            st.markdown("**Questions with a right answer** (what the model would predict after one change): share "
                        "answered right, and the paired difference from the Random explanation on the same cases.")
            st.dataframe(table, hide_index=True)
            st.markdown(escape_markdown(block.get("forward_sentence", "")))
    checks = calibration.get("judge_checks") or {}
    if checks:
        st.subheader("Checks of the personas that need no people")
        st.markdown(escape_markdown(checks.get("test_retest_text", "")))
        st.markdown(escape_markdown(checks.get("label_swap_text", "")))
    picks = (run.recommendations or {}).get("picks") or {}
    if picks:
        st.subheader("Who would pick what")
        st.dataframe(pd.DataFrame([{"Stakeholder": role, "People's pick": p.get("people_pick") or "–",
                                    "People": p.get("n_people", 0), "Personas' pick": p.get("personas_pick") or "–",
                                    "Personas": p.get("n_personas", 0)} for role, p in picks.items()]), hide_index=True)


def _recompute(run, state: dict) -> None:
    """When the calibration was computed and from how many answers, and the button that recomputes it."""
    (st.caption if state["up_to_date"] else st.warning)(state_sentence(state))
    if st.button("Recompute with the latest answers", key="study_recompute",
                 type="secondary" if state["up_to_date"] else "primary", disabled=not state["n_ratings"]):
        try:
            with st.spinner("Recomputing the calibration and the recommendations with the latest answers…"):
                refresh_evidence(run.path)
        except HexevalError as err:
            show_error(err)
            return
        st.rerun()


def forward_table(forward: dict, persona_kind: str) -> pd.DataFrame:
    """What-if accuracy of people and personas per method, each paired against Random (texts, not numbers)."""
    personas = "simulated readers" if persona_kind == "simulated" else "LLM personas"
    methods = sorted(set(forward.get("people", {})) | set(forward.get("personas", {})))
    return pd.DataFrame([{"Explanation": m,
                          "People answering right": _share(forward.get("people", {}).get(m)),
                          "People: difference from Random": _versus(forward.get("people_vs_random", {}), m),
                          f"{personas.capitalize()} answering right": _share(forward.get("personas", {}).get(m)),
                          f"{personas.capitalize()}: difference from Random": _versus(forward.get("personas_vs_random", {}), m)}
                         for m in methods])


def _versus(entries: dict, method: str) -> str:
    if method == BASELINE_METHOD:
        return "(the baseline)"
    return signed_text(entries.get(method) or {}) if entries.get(method) else "–"


def _share(entry) -> str:
    if not entry:
        return "–"
    text = f"{entry['value']:.0%} of {entry['n']}"
    return text + (f" [{entry['ci_low']:.0%}, {entry['ci_high']:.0%}]" if entry.get("ci_low") is not None else "")
