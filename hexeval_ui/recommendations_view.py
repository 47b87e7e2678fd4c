"""Recommendations page body: a card per stakeholder, the alternatives with their components, the heatmap."""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from hexeval_engine.vocabulary import plural

from hexeval_engine.charts import method_color, score_heatmap
from hexeval_engine.recommend.verdict import clear_lead_rule
from hexeval_engine.recommend.wording import ALL_COMPONENTS, asks_sentence, component_label

from .components import section
from .evidence_view import render_comparisons, render_warnings
from .metrics_table import NOT_APPLICABLE, number, with_interval
from hexeval_engine.recommend.ratings_source import card_source

from .run_summary import cases_per_method, is_simulated, render_run_summary, source_of
from .verdict_view import render_verdict

COMPONENTS = ALL_COMPONENTS
LEAD_BADGES = {
    "clear": ("Clear lead", "green", ":material/verified:", clear_lead_rule()),
    "close_call": ("Close call", "orange", ":material/balance:", clear_lead_rule()),
    "single_candidate": ("Only candidate", "gray", ":material/looks_one:", "Only one method beat the random baseline."),
    "none": ("No recommendation", "red", ":material/block:", "No method qualified for this stakeholder; the reason is "
                                                             "stated on the card."),
}


def render_recommendations(run) -> None:
    render_verdict(run)  # the answer first: visible without scrolling at 1440 and 390 px
    render_run_summary(run, explain_simulated=False)  # the simulated note below says what it means here
    render_warnings(run)
    recs = run.recommendations or {}
    stakeholders = list((recs.get("stakeholders") or {}).values())
    if recs.get("mode") == "technical_only":
        st.warning("**Technical-only ranking.** This run has no usable persona ratings, so every stakeholder gets the "
                   "same ranking from fidelity and parsimony alone. Turn persona ratings on in Configure & Run for "
                   "per-stakeholder recommendations.", icon=":material/engineering:")
    elif recs.get("basis") != "questions":
        st.caption(":material/history: This run was recommended with the older score (fidelity and ratings, before "
                   "HEXEval measured each method on the questions stakeholders ask). Run it again for the "
                   "per-question evidence.")
    elif source_of(run).kind == "people":
        pass  # the header's sentence says whose ratings these are
    elif is_simulated(run):
        st.caption(":material/smart_toy: The ratings in this run are **simulated**: they show how each persona might "
                   "perceive the explanations and never decide a recommendation. The picks come from measuring how "
                   "well each method answers the questions each stakeholder asks.")
    for item in recs.get("excluded_methods") or []:
        st.caption(f":material/remove_circle: **{item['method']}** is not a candidate: {item['reason']}.")
    if not stakeholders:
        reason = ((recs.get("notes") or [""])[0] if recs.get("mode") == "disabled"
                  else "This run has no recommendations (no method could be scored).")
        st.info(reason, icon=":material/info:")
        return
    section("Who should see what", _weights_caption(recs))
    cols = st.columns(2)
    for i, entry in enumerate(stakeholders):
        with cols[i % 2].container(border=True):
            _card(entry, run)
    section("Scores across stakeholders", "Measured skill over no explanation (0 = no help, higher is better) of "
                                         "every method for every stakeholder's questions; ★ marks the recommended "
                                         "method.")
    fig = score_heatmap(recs)
    if fig is None:
        st.info("No scores to draw.", icon=":material/info:")
    else:
        st.plotly_chart(fig, key="chart_score_heatmap")
    _normalisation(recs)


def _weights_caption(recs: dict) -> str:
    n = recs.get("n_shared_cases")
    if recs.get("basis") != "questions":
        return "Scores from the older recommendation (see the note above)."
    return ("Each stakeholder asks four questions (why, what if, will it hold, how to change it) with the weights its "
            "persona declares. A method's score is its measured skill on those questions over a reader who saw no "
            "explanation (0 = no help), weighed by them, with its "
            f"{recs.get('confidence_level', 0.95):.0%} bootstrap interval. Methods are compared case by case"
            + (f" on the {n} cases every method explained" if n else "")
            + ", at equal size, and must beat random explanations to be recommended.")


def method_chip(method: str | None, size: str = "1.6rem") -> str:
    if not method:
        return "—"
    return (f"<span style='display:inline-block;width:0.8em;height:0.8em;border-radius:0.15em;"
            f"background:{method_color(method)};margin-right:0.35em'></span>"
            f"<span style='font-size:{size};font-weight:700'>{html.escape(method)}</span>")


def _card(entry: dict, run) -> None:
    st.markdown(f"#### {entry['title']}")
    who = card_source(entry, source_of(run))
    if who:
        st.caption(who)
    label, color, icon, help_ = LEAD_BADGES.get(entry.get("lead", "none"), LEAD_BADGES["none"])
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.markdown(method_chip(entry.get("recommended_method")), unsafe_allow_html=True)
    if entry.get("recommended_method") and entry.get("recommended_format") == "narrative":
        left.caption("Told as a narrative")
    right.metric("Skill over no explanation", number(entry.get("score"), signed=True),
                 help="The measured answer to this stakeholder's questions: 0 means no better than no explanation; "
                      "interval in the line below.")
    st.badge(label, icon=icon, color=color, help=help_)
    if entry.get("decided_by"):
        st.markdown(f"**Why this pick:** {entry['decided_by']}.")
    if entry.get("gap"):
        st.info(f"**Perceived and measured disagree.** {entry['gap']}.", icon=":material/compare_arrows:")
    if entry.get("questions"):
        st.caption(asks_sentence(entry))
    if entry.get("score") is not None:
        st.caption(f"Skill {with_interval(entry['score'], entry.get('score_ci_low'), entry.get('score_ci_high'))}"
                   f" · {plural(int(entry.get('n_cases') or 0), 'shared case')}"
                   + (f" · runner-up {entry['runner_up']}" if entry.get("runner_up") else ""))
    if not entry.get("recommended_method") and entry.get("reason"):
        st.warning(entry["reason"], icon=":material/block:")
    else:
        st.markdown(reasoning_lead(entry.get("reasoning") or ""))
    strengths, concerns = entry.get("strengths") or [], entry.get("concerns") or []
    if strengths:
        st.markdown("**Strengths**\n" + "\n".join(f"- :green[:material/check:] {s}" for s in strengths))
    if concerns:
        st.markdown("**Concerns**\n" + "\n".join(f"- :orange[:material/warning:] {c}" for c in concerns))
    render_comparisons(entry)
    _perceived(entry)
    with st.expander("Alternatives and their answers per question"):
        # A wrapped list, not a wide table: it fits a card at 1440 px and a phone alike.
        st.markdown(alternatives_markdown(entry, cases_per_method(run)))
        st.caption("Each question: the method's skill over no explanation (0 = no help) × the question's weight. "
                   "n: cases the method explained and ratings of it.")


def _perceived(entry: dict) -> None:
    """How the stakeholder's personas (or people) rated each method: perceived usefulness, beside the measured."""
    perceived = entry.get("perceived") or {}
    if not perceived:
        return
    source = entry.get("ratings_source") or "ratings"
    names = ", ".join(entry.get("persona_names") or [])
    rows = sorted(perceived.items(), key=lambda kv: -(kv[1].get("value") or 0))
    text = " · ".join(f"{m} {number(v.get('on_five'))} of 5" for m, v in rows if v.get("on_five") is not None)
    st.caption(f":material/groups: Perceived ({source}"
               + (f", {names}" if names and source != "people's ratings" else "") + f"): {text}.")


def reasoning_lead(reasoning: str) -> str:
    """The engine's reasoning without its "Strengths: … Concerns: …" tail, which the card lists as bullets."""
    return reasoning.split(" Strengths:", 1)[0]


def alternatives_table(entry: dict) -> pd.DataFrame:
    """One row per candidate: rank, method, score with interval, each component as value × weight."""
    rows = []
    for alt in entry.get("alternatives") or []:
        row = {"rank": alt.get("rank"),
               "method": alt["method"] + (f" ({alt['status']})" if alt.get("status") else ""),
               "score": with_interval(alt.get("score"), alt.get("score_ci_low"), alt.get("score_ci_high"))}
        for c in COMPONENTS:
            comp = (alt.get("components") or {}).get(c)
            row[c] = (f"{number(comp.get('value'))} × {number(comp.get('weight'), 3)}"
                      if comp and comp.get("value") is not None else NOT_APPLICABLE)
        row["notes"] = "; ".join(alt.get("notes") or [])
        rows.append(row)
    return pd.DataFrame(rows, columns=["rank", "method", "score", *COMPONENTS, "notes"])


def alternatives_markdown(entry: dict, cases: dict[str, int]) -> str:
    """Every candidate as a numbered list item: method, score with interval, its own case and rating counts,
    then each score component as value × weight (fields read defensively)."""
    lines = []
    for alt in entry.get("alternatives") or []:
        method = str(alt.get("method", "?"))
        score = with_interval(alt.get("score"), alt.get("score_ci_low"), alt.get("score_ci_high"))
        if alt.get("score") is not None and alt["score"] >= 0:
            score = "+" + score
        counts = []
        n_cases = alt.get("n_cases", cases.get(method))
        if n_cases is not None:
            counts.append(plural(int(n_cases), "case"))
        trust = (alt.get("components") or {}).get("persona_trust") or {}
        n_ratings = alt.get("n_ratings")
        if n_ratings is not None:
            counts.append(plural(int(n_ratings), "rating"))
        elif trust.get("detail"):
            counts.append(str(trust["detail"]).split(" from ")[-1] if " from " in str(trust["detail"]) else "")
        parts = []
        for c in COMPONENTS:
            comp = (alt.get("components") or {}).get(c)
            if comp and comp.get("value") is not None and c != "measured":
                label = component_label(c)
                value = (f"{number(comp.get('on_five'), 1)} of 5" if c == "perceived" and comp.get("on_five") is not None
                         else number(comp.get("value"), signed=True))
                parts.append(f"{label[:1].upper() + label[1:]} {value} × {number(comp.get('weight'), 3)}")
        n_text = f" · n: {', '.join(x for x in counts if x)}" if any(counts) else ""
        status = f" — *{alt['status']}*" if alt.get("status") else ""
        line = f"{alt.get('rank', '–')}. **{method}**{status} — skill {score}{n_text}"
        if parts:
            line += "  \n" + " · ".join(parts)
        notes = "; ".join(alt.get("notes") or [])
        if notes:
            line += f"  \n*{notes}*"
        lines.append(line)
    return "\n".join(lines) if lines else "No alternatives were scored."


def _normalisation(recs: dict) -> None:
    norm = recs.get("normalisation") or {}
    if not norm:
        return
    with st.expander("How each component is put on the 0–1 scale"):
        for family, parts in norm.items():
            if isinstance(parts, dict):
                st.markdown(f"**{family.capitalize()} methods**\n\n" +
                            "\n".join(f"- *{component_label(k)}*: {v}" for k, v in parts.items()))
            else:
                st.markdown(f"**{family.capitalize()}**: {parts}")
        for note in recs.get("notes") or []:
            st.caption(note)
