"""Results → technical metrics: what ran, one table per metric category, and the fidelity and parsimony charts."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from hexeval_engine.charts import fidelity_chart, parsimony_chart

from .components import section
from .metrics_table import DERIVED_MARK, NOT_APPLICABLE, build_metrics_table, overview_table, timing_note

HALF_WIDTH_CHARS = 66  # about what half of the wide layout shows without a horizontal scrollbar


def render_technical(run) -> None:
    section("Technical metrics",
            "How well each method answers the stakeholders' questions, then how faithful, compact and stable its "
            "explanations are. Each cell: the mean over the explained cases and its 95% bootstrap interval in "
            "brackets. ↑ higher is better, ↓ lower is better; under each table, what its columns mean.")
    table = build_metrics_table(run.technical_metrics, run.technical_metrics_long)
    for method, error in table.failed.items():
        st.error(f"**{method} failed** and has no metrics in this run: {error}", icon=":material/error:")
    with st.expander("Methods in this run (algorithm, cases, time, status)"):
        st.dataframe(overview_table(run.technical_metrics), hide_index=True, column_config={
            "Method": st.column_config.TextColumn(width="small"),
            "Compared": st.column_config.NumberColumn(
                width="small", help="Cases every method explained: the only cases methods are compared on"),
            "Explained": st.column_config.NumberColumn(width="small", help="Cases this method explained"),
            "Seconds": st.column_config.NumberColumn(width="small", format="%.2f"),
            "Status": st.column_config.TextColumn(width="small")})
        note = timing_note(run.manifest)
        if note:
            st.caption(note)
    if not table.groups:
        st.info("This run has no technical metric values.", icon=":material/info:")
        return
    parts = _fitting(table.groups)
    meanings = {g.title: g.help for g in table.groups}
    for row in _rows(parts):
        for col, group in zip(st.columns(len(row)), row):
            with col:
                if not group.continues:  # a later part sits right under the first, which carries the title
                    st.markdown(f"**{group.title}**")
                # a table whose headers and cells wrap: on a phone it fits the width instead of scrolling sideways
                # with its headers cut (a data grid keeps one line per cell)
                st.table(group.frame.rename(columns={"method": "Method"}), hide_index=True, border="horizontal")
                k = next(i for i, part in enumerate(parts) if part is group)
                following = parts[k + 1] if k + 1 < len(parts) else None
                if following is None or not following.continues:  # once per table, under its last part
                    with st.expander("What these columns mean"):
                        st.markdown("\n".join(f"- **{label}**: {text}"
                                               for label, text in meanings[group.title].items()))
    if table.any_derived:
        st.caption(f"{DERIVED_MARK} computed on a *derived* importance vector (Anchor: the features in its rule; "
                   "DiCE: the features its counterfactuals change), for reference only: methods of different kinds are "
                   "compared on the answers to the stakeholders' questions (the first table).")
    metrics = run.technical_metrics_long if len(run.technical_metrics_long) else run.technical_metrics
    _chart(fidelity_chart(metrics), "No fidelity values in this run.", "fidelity")
    fig = parsimony_chart(metrics)
    if fig is not None:
        fig.update_annotations(font_size=12)  # the panel titles, so long metric names do not collide
    _chart(fig, "No parsimony values in this run.", "parsimony")


#: Pixels the columns of one metric table may take beside the method column in the wide layout: a wider table is
#: shown in parts, so that no part squeezes its columns into narrow strips of wrapped words.
TABLE_PX = 860


def column_px(label: str) -> int:
    """The width a metric column is given: wide enough for its whole header (~8 px a character)."""
    return max(110, 6 * len(label) + 40)


def _fitting(groups) -> list:
    """Each group split into tables whose columns fit :data:`TABLE_PX`; the parts after the first are marked
    ``continues`` (shown without a title of their own, never "Stability (continued)")."""
    out = []
    for group in groups:
        chunks, current, used = [], [], 0
        for label in group.help:
            if current and used + column_px(label) > TABLE_PX:
                chunks.append(current)
                current, used = [], 0
            current.append(label)
            used += column_px(label)
        chunks.append(current)
        if len(chunks) == 1:
            out.append(group)
            continue
        first = [c for c in group.frame.columns if c not in group.help]  # the method column
        for k, labels in enumerate(chunks):
            frame = group.frame[first + labels]
            frame = frame[~frame[labels].isin([NOT_APPLICABLE, ""]).all(axis=1)]  # methods this part says nothing of
            out.append(replace(group, continues=k > 0, frame=frame,
                               help={label: group.help[label] for label in labels}))
    return out


def _rows(groups) -> list[list]:
    """Narrow tables two to a row, wide ones (many or long metric names) on a row of their own."""
    rows, pending = [], []
    continued = {g.title for g in groups if g.continues}
    for group in groups:
        chars = 10 + sum(max(len(label), 19) for label in group.help)  # ~ characters a row of the table needs
        split = group.title in continued
        if chars > HALF_WIDTH_CHARS or split:  # a table in parts keeps its parts together, in their order
            rows += [pending] if pending else []
            pending = []
            rows.append([group])
        else:
            pending.append(group)
            if len(pending) == 2:
                rows.append(pending)
                pending = []
    return rows + ([pending] if pending else [])


def _chart(fig, empty: str, key: str) -> None:
    if fig is None:
        st.info(empty, icon=":material/info:")
    else:
        st.plotly_chart(fig, key=f"chart_{key}")
