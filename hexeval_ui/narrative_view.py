"""Case explorer → narratives: each narrative of the case beside the attribution it tells, disagreements marked."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hexeval_engine.narratives.wording import AUDIENCE_LABELS
from hexeval_engine.vocabulary import join_words, ordinal, plural

_DIRECTION = {1: "towards the prediction", -1: "away from the prediction"}


def render_case_narratives(run, iid: int) -> None:
    """The narratives of case ``iid`` (nothing when the run made none)."""
    table = getattr(run, "narratives", None)
    if table is None or len(table) == 0:
        return
    mine = table[(table["instance_id"] == iid) & ~table["manipulated"].astype(bool)]
    if mine.empty:
        return
    st.markdown("#### Narratives of this case")
    st.caption("The source attributions told as a story, then read back: every feature the narrative names is "
               "compared with the attribution. Red marks where the story and the model disagree.")
    for row in mine.itertuples(index=False):
        with st.container(border=True):
            _narrative(run, row, table)


def _narrative(run, row, table: pd.DataFrame) -> None:
    narrator = ("template narrator (built-in, no LLM)" if row.narrator == "template"
                else f"LLM narrator ({row.narrator_model})")
    st.markdown(f"**For {AUDIENCE_LABELS.get(row.audience, row.audience)}** · {narrator} · from the "
                f"{row.source_method} attributions")
    if row.error:
        st.error(f"No narrative: {row.error}", icon=":material/error:")
        return
    if bool(row.flagged):
        st.error(f"Flagged, cannot be recommended: {row.flag_reason}", icon=":material/flag:")
    left, right = st.columns([2, 3])
    left.markdown(row.text)
    left.caption(_metrics_line(row))
    checks = getattr(run, "narrative_extractions", None)
    if checks is not None and len(checks):
        mine = checks[checks["narrative_id"] == row.narrative_id]
        right.markdown("**Read back, feature by feature**\n\n" + "\n".join(f"- {line}" for line in readback_lines(mine)))
    fake = table[(table["instance_id"] == row.instance_id) & (table["audience"] == row.audience)
                 & table["manipulated"].astype(bool)]
    if len(fake):
        f = fake.iloc[0]
        with st.expander("Manipulation check: the same case narrated from shuffled attributions"):
            st.markdown(f["text"] or "*No narrative.*")
            st.caption("Caught by the checks: " + (f["flag_reason"] if bool(f["flagged"]) else
                                                   "no — this manipulated narrative passed"))


def readback_lines(checks: pd.DataFrame) -> list[str]:
    """One sentence per feature: what the attribution says (rank, direction, value) and where the narrative read
    back says otherwise, marked red; features it leaves out greyed. Sentences wrap on a phone, where a seven-column
    table scrolled sideways."""
    lines = []
    for c in checks.sort_values(["in_table", "true_rank"], ascending=[False, True]).itertuples(index=False):
        if not c.in_table:
            lines.append(f":red[:material/close: **{c.label}**: the narrative names it, but it is not among the "
                         "attributions it tells.]")
            continue
        rank = "" if pd.isna(c.true_rank) else ordinal(int(c.true_rank) + 1)
        truth = ", ".join(p for p in (f"ranked {rank}" if rank else "", _DIRECTION.get(_int(c.true_sign), ""),
                                      f"value {c.true_value}" if _text(c.true_value) else "") if p)
        if not bool(c.mentioned):
            lines.append(f":gray[**{c.label}** ({truth}): the narrative leaves it out.]")
            continue
        wrong = []
        if _false(c.rank_ok):
            wrong.append(f"ranks it {ordinal(int(c.stated_rank) + 1)}" if not pd.isna(c.stated_rank)
                         else "gives no rank")
        if _false(c.sign_ok):
            stated = _DIRECTION.get(_int(c.stated_sign))
            wrong.append(f"says it points {stated}" if stated else "gives no direction")
        if _false(c.value_ok):
            wrong.append(f"gives its value as {c.stated_value}" if _text(c.stated_value) else "gives no value")
        if wrong:
            lines.append(f":red[:material/close: **{c.label}** ({truth}): the narrative {join_words(wrong)}.]")
        else:
            lines.append(f":green[:material/check:] **{c.label}** ({truth}): the narrative says the same.")
    return lines


def _false(check) -> bool:
    return check is False or str(check) == "False" or (not pd.isna(check) and check == 0.0)


def _text(value) -> bool:
    return not pd.isna(value) and str(value).strip() != ""


def _metrics_line(row) -> str:
    parts = [f"{name} {getattr(row, key):.2f}" for name, key in (
        ("rank agreement", "rank_agreement"), ("direction agreement", "sign_agreement"),
        ("value agreement", "value_agreement"), ("top features mentioned", "top_n_mentioned"))
        if not pd.isna(getattr(row, key))]
    if not pd.isna(row.hallucinated) and row.hallucinated:
        parts.append(f"{plural(int(row.hallucinated), 'feature')} not in the table: {row.hallucinated_features}")
    return " · ".join(parts)


def _int(value):
    return None if pd.isna(value) else int(value)
