"""Case explorer → narratives: each narrative of the case beside the attribution it tells, disagreements marked."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hexeval_engine.narratives.wording import AUDIENCE_LABELS
from hexeval_engine.vocabulary import plural

_DIRECTION = {1: "towards the prediction", -1: "away from the prediction"}
_CHECKS = {"Narrative's rank": "rank_ok", "Narrative's direction": "sign_ok", "Narrative's value": "value_ok"}


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
               "compared with the attribution. Cells in red are where the story and the model disagree.")
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
        right.dataframe(comparison_styler(comparison_table(mine)), hide_index=True,
                        key=f"narrative_check_{row.narrative_id}")
    fake = table[(table["instance_id"] == row.instance_id) & (table["audience"] == row.audience)
                 & table["manipulated"].astype(bool)]
    if len(fake):
        f = fake.iloc[0]
        with st.expander("Manipulation check: the same case narrated from shuffled attributions"):
            st.markdown(f["text"] or "*No narrative.*")
            st.caption("Caught by the checks: " + (f["flag_reason"] if bool(f["flagged"]) else
                                                   "no — this manipulated narrative passed"))


def comparison_table(checks: pd.DataFrame) -> pd.DataFrame:
    """One row per feature: the attribution's rank, direction and value beside what the narrative says."""
    rows = []
    for c in checks.sort_values(["in_table", "true_rank"], ascending=[False, True]).itertuples(index=False):
        rows.append({"Feature": c.label + ("" if c.in_table else " (not in the table)"),
                     "Rank": "" if pd.isna(c.true_rank) else int(c.true_rank) + 1,
                     "Narrative's rank": "not stated" if pd.isna(c.stated_rank) else int(c.stated_rank) + 1,
                     "Direction": _DIRECTION.get(_int(c.true_sign), ""),
                     "Narrative's direction": _DIRECTION.get(_int(c.stated_sign), "not stated"),
                     "Value": c.true_value, "Narrative's value": c.stated_value or "not stated",
                     "rank_ok": c.rank_ok, "sign_ok": c.sign_ok, "value_ok": c.value_ok,
                     "mentioned": bool(c.mentioned)})
    return pd.DataFrame(rows)


def comparison_styler(table: pd.DataFrame):
    """The comparison with disagreeing cells in red and unmentioned features greyed; check columns hidden."""
    def colours(frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame("", index=frame.index, columns=frame.columns)
        for column, check in _CHECKS.items():
            bad = frame[check].map(lambda v: v is False or v == 0.0 or str(v) == "False")
            out.loc[bad, column] = "background-color: #fde0dc; color: #8a1c10; font-weight: 600"
        out.loc[~frame["mentioned"].astype(bool), :] = "color: #888"
        return out

    hidden = [*_CHECKS.values(), "mentioned"]
    return table.style.apply(colours, axis=None).hide(axis="columns", subset=hidden)


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
