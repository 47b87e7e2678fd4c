"""The data-quality report (``Dataset.quality``) as metrics, warnings and small tables."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hexeval_engine import HexevalError

from .components import bullet_list


def render_quality(report, *, class_labels: tuple | None = None, target: str | None = None,
                   shown_above: tuple = ()) -> None:
    """The data-quality report; ``shown_above`` are notes the page already shows outside it (not repeated)."""
    cols = st.columns(5)
    cols[0].metric("Rows", f"{report.n_rows:,}", border=True)
    cols[1].metric("Columns", report.n_columns, border=True)
    cols[2].metric("Duplicate rows", f"{report.duplicate_rows:,}",
                   help="Exact duplicate rows in the file, before any are dropped.", border=True)
    cols[3].metric("Leaking test rows", report.duplicates_crossing_split,
                   help="Test rows whose feature values also appear among the training rows.", border=True)
    if report.class_balance:
        cols[4].metric("Minority class", f"{report.minority_share:.0%}", help="Share of the rarest class.", border=True)
    else:  # a regression target has no classes to balance
        cols[4].metric("Target", "a number", help="The model predicts a measured quantity (regression).", border=True)
    notes = [n for n in getattr(report, "notes", []) if n not in shown_above]
    if notes:
        st.info(bullet_list(notes), icon=":material/info:")  # how the file was read: encoding, column kinds
    if report.warnings:
        st.warning(bullet_list(report.warnings), icon=":material/warning:")
    else:
        st.success("No data-quality issues found.", icon=":material/check_circle:")
    left, middle, right = st.columns(3)
    with left:
        st.markdown(f"**Class balance** (`{target}`)" if target else "**Class balance**")
        if report.class_balance:
            st.dataframe(_class_table(report.class_balance, class_labels), hide_index=True)
        else:
            st.caption("None: the target is a measured quantity (regression), not classes.")
    with middle:
        st.markdown("**Missing values**")
        if report.missing_values:
            st.dataframe(pd.DataFrame({"Column": list(report.missing_values), "Missing": list(report.missing_values.values())}),
                         hide_index=True)
        else:
            st.caption("None.")
    with right:
        st.markdown("**Implausible values**")
        if report.outliers:
            st.dataframe(pd.DataFrame([{"Column": c, "Rows": o.get("count"), "Lowest": o.get("min"), "Highest": o.get("max"),
                                        "Why": o.get("reason")} for c, o in report.outliers.items()]), hide_index=True)
        else:
            st.caption("None found.")


def _class_table(balance: dict, class_labels: tuple | None) -> pd.DataFrame:
    total = sum(balance.values()) or 1
    rows = [{"Value": k, "Rows": v, "Share": f"{v / total:.0%}"} for k, v in balance.items()]
    if class_labels is not None and len(class_labels) == 2:  # with three classes or more none is "positive"
        positive = str(class_labels[1])
        for r in rows:
            r["Class"] = "positive" if r["Value"] == positive else "negative"
    return pd.DataFrame(rows)


def render_bundled_checks(usecase) -> bool:
    """Above Run for a bundled use case: what its config does about its data problems. Never blocks (False)."""
    from .engine import dataset_for

    try:
        q = dataset_for(usecase).quality
    except HexevalError as err:
        st.error(str(err), icon=":material/error:")
        return False
    done = [f"{what}: {how}" for what, how in q.remedies.items()]
    leak = q.duplicates_crossing_split
    if leak:
        st.warning(f"{leak:,} test rows also appear among the training rows; this use case's config keeps them.",
                   icon=":material/content_copy:")
    if done:
        st.caption("Data checks: this use case's config applies these remedies before splitting — "
                   + "; ".join(done) + ".")
    elif not leak:
        st.caption("Data checks: no leaking test rows.")
    return False
