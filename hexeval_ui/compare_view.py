"""The compare view of two saved runs: metric and rating differences, and changed recommendations.

The differences come from ``hexeval_engine.runs.compare_runs``; here they are only coloured: a
change in a metric's better direction is green, in its worse direction red (directions are read
from the metric table, never assumed).
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from hexeval_engine import runs
from hexeval_engine.charts import DIMENSIONS
from hexeval_engine.charts.labels import ARROWS, metric_title

from .runs_view import load_cached

BETTER = "color: #1a7f37; font-weight: 600"
WORSE = "color: #cf222e; font-weight: 600"


def change_style(difference, direction: str) -> str:
    """CSS for a difference: green when it moves in the metric's better direction, red otherwise."""
    if difference is None or (isinstance(difference, float) and math.isnan(difference)) or difference == 0:
        return ""
    improved = difference > 0 if direction == "higher" else difference < 0
    return BETTER if improved else WORSE


def _fmt(value, pattern: str) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else pattern.format(value)


def _metrics(diff: pd.DataFrame):
    table = diff.reset_index(drop=True)
    styles = [change_style(v, d) for v, d in zip(table["difference"], table["direction"])]
    shown = pd.DataFrame({
        "method": table["method"],
        "metric": [f"{metric_title(m)} {ARROWS.get(d, '')}" for m, d in zip(table["metric"], table["direction"])],
        "A": [_fmt(v, "{:.3f}") for v in table["a"]], "B": [_fmt(v, "{:.3f}") for v in table["b"]],
        "difference": [_fmt(v, "{:+.3f}") for v in table["difference"]]})
    return shown.style.apply(lambda col: styles if col.name == "difference" else [""] * len(col), axis=0)


def _ratings(diff: pd.DataFrame):
    table = diff.reset_index(drop=True)
    shown = pd.DataFrame({"persona": table["persona_role"], "method": table["explanation_type"]})
    styles = {}
    for d in DIMENSIONS:
        label = d.replace("_", " ")
        shown[label] = [_fmt(v, "{:+.2f}") for v in table[f"{d}_difference"]]
        styles[label] = [change_style(v, "higher") for v in table[f"{d}_difference"]]
    return shown.style.apply(lambda col: styles.get(col.name, [""] * len(col)), axis=0)


def render_compare(path_a: str, path_b: str, *, labels: dict[str, str]) -> None:
    a, b = sorted((load_cached(path_a), load_cached(path_b)), key=lambda r: r.manifest.get("created", ""))
    result = runs.compare_runs(a, b)
    with st.container(border=True):
        st.markdown(f"#### Run A `{a.run_id}` → run B `{b.run_id}`")
        st.caption(f"A: {labels.get(str(a.path), a.run_id)}  ·  B: {labels.get(str(b.path), b.run_id)}. "
                   "Differences are B − A; :green[green] = better in the metric's direction, :red[red] = worse.")
        for warning in result["warnings"]:
            st.warning(warning, icon=":material/warning:")
        changes = result["recommendation_changes"]
        st.markdown("**Recommendation changes**")
        if changes:
            st.markdown("\n".join(f"- **{who}**: {old or 'none'} → **{new or 'none'}**" for who, (old, new) in changes.items()))
        else:
            st.caption("Every stakeholder gets the same method in both runs.")
        st.markdown("**Technical metrics**")
        if result["metrics"].empty:
            st.caption("One of the runs has no metric table to compare.")
        else:
            st.dataframe(_metrics(result["metrics"]), hide_index=True)
        st.markdown("**Mean persona ratings** (change on the 1–5 scale)")
        if result["ratings"].empty:
            st.caption("One of the runs has no persona ratings.")
        else:
            st.dataframe(_ratings(result["ratings"]), hide_index=True)
