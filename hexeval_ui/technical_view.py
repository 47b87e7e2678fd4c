"""Results → technical metrics: the table with directions and intervals, failures, and the charts."""

from __future__ import annotations

import streamlit as st

from hexeval_engine.charts import fidelity_chart, parsimony_chart

from .components import section
from .metrics_table import DERIVED_MARK, build_metrics_table


def render_technical(run) -> None:
    section("Technical metrics",
            "Mean over the explained instances with its 95% bootstrap interval in brackets. ↑: higher is better; "
            "↓: lower is better. Hover a column header for what the metric means.")
    table = build_metrics_table(run.technical_metrics, run.technical_metrics_long)
    for method, error in table.failed.items():
        st.error(f"**{method} failed** and has no metrics in this run: {error}", icon=":material/error:")
    if table.frame.empty:
        st.info("This run has no technical metrics.", icon=":material/info:")
        return
    config = {"method": st.column_config.TextColumn("Method", pinned=True, width="small"),
              "status": st.column_config.TextColumn("Status", help="ok, or the error that stopped the method")}
    config |= {label: st.column_config.TextColumn(label, help=text) for label, text in table.help.items()}
    st.dataframe(table.frame, hide_index=True, column_config=config, key="technical_table")
    if table.any_derived:
        st.caption(f"{DERIVED_MARK} computed on a *derived* importance vector (Anchor: the features in its rule; "
                   "DiCE: the features its counterfactuals change), so all four methods share one fidelity axis.")
    metrics = run.technical_metrics_long if len(run.technical_metrics_long) else run.technical_metrics
    left, right = st.columns(2)
    with left:
        _chart(fidelity_chart(metrics), "No fidelity values in this run.", "fidelity")
    with right:
        _chart(parsimony_chart(metrics), "No parsimony values in this run.", "parsimony")


def _chart(fig, empty: str, key: str) -> None:
    if fig is None:
        st.info(empty, icon=":material/info:")
    else:
        st.plotly_chart(fig, key=f"chart_{key}")
