"""Results → persona ratings: summary, radar (all personas or one), and each persona's ratings and comments."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from hexeval_engine.charts import DIMENSIONS, radar_chart, ratings_summary_chart

from .components import section
from .run_summary import has_ratings, is_simulated, missing_rating_columns, rater_badge

ALL_PERSONAS = "All personas"
SCORE_COLUMNS = {d: st.column_config.NumberColumn(d.replace("_", " ").capitalize(), format="%d", width="small",
                                                  help="1 (poor) – 5 (excellent)") for d in DIMENSIONS}


def personas_of(ratings: pd.DataFrame) -> list[tuple[str, str]]:
    """(role, name) of every persona in the ratings, in order of appearance."""
    pairs = ratings[["persona_role", "persona_name"]].astype(str).drop_duplicates()
    return list(pairs.itertuples(index=False, name=None))


def render_ratings(run) -> None:
    section("Persona ratings", "Each persona rated each method's explanation of the same cases on six dimensions "
                               "(1 = poor, 5 = excellent).")
    rater_badge(run)
    missing = missing_rating_columns(run)
    if missing:
        st.error(f"persona_ratings.csv of this run lacks the columns {', '.join(missing)}, so its ratings cannot be "
                 "shown. Re-run the evaluation to get a complete ratings table.", icon=":material/error:")
        return
    if not has_ratings(run):
        st.info("This run has no persona ratings (personas were switched off or none are defined), so its "
                "recommendations are technical-only.", icon=":material/group_off:")
        return
    ratings = run.persona_ratings
    failed = ratings[ratings["status"] != "ok"]
    if len(failed):
        reasons = failed["error"].replace("", "no reason recorded").value_counts().head(3)
        st.warning(f"{len(failed)} of {len(ratings)} ratings failed and are left out (never filled in). Most common: "
                   + "; ".join(f"{reason} ({n}×)" for reason, n in reasons.items()), icon=":material/warning:")
    who = "simulated persona" if is_simulated(run) else "persona"
    radar_col, summary_col = st.columns(2)
    with radar_col:
        personas = personas_of(ratings)
        options = [ALL_PERSONAS] + [role for role, _ in personas]
        names = dict(personas)
        pick = st.selectbox("Radar for", options, key="radar_persona",
                            format_func=lambda r: r if r == ALL_PERSONAS else f"{r} ({names[r]})",
                            help=f"Average of every {who} rating, or the ratings of one persona.")
        fig = radar_chart(ratings, None if pick == ALL_PERSONAS else pick)
        if fig is None:
            st.info(f"{pick} has no successful ratings in this run.", icon=":material/info:")
        else:
            fig.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.08, "x": 0.5, "xanchor": "center"})
            st.plotly_chart(fig, key="chart_radar")
    with summary_col:
        fig = ratings_summary_chart(ratings, None if pick == ALL_PERSONAS else pick,
                                    confidence_level=_confidence(run))
        if fig is not None:
            st.plotly_chart(fig, key="chart_ratings_summary")
    _persona_expanders(ratings, personas, simulated=is_simulated(run))


def _confidence(run) -> float:
    return float(((run.manifest.get("config") or {}).get("evaluation") or {}).get("confidence_level", 0.95))


def _persona_expanders(ratings: pd.DataFrame, personas: list[tuple[str, str]], *, simulated: bool) -> None:
    st.markdown("**What each persona said**" + (" — *simulated ratings*" if simulated else ""))
    columns = ["explanation_type", "instance_index", "run", *DIMENSIONS, "comment"]
    for role, name in personas:
        rows = ratings[(ratings["persona_role"].astype(str) == role) & (ratings["status"] == "ok")]
        label = f"**{name}** — {role} · {len(rows)} ratings" + (" (simulated)" if simulated else "")
        with st.expander(label):
            if rows.empty:
                st.caption("No successful ratings from this persona.")
                continue
            shown = rows[[c for c in columns if c in rows.columns]].sort_values(["explanation_type", "instance_index"])
            st.dataframe(shown, hide_index=True, column_config={
                "explanation_type": st.column_config.TextColumn("Method", width="small"),
                "instance_index": st.column_config.NumberColumn("Case", width="small"),
                "run": st.column_config.NumberColumn("Repeat", width="small"),
                **SCORE_COLUMNS,
                "comment": st.column_config.TextColumn("Comment", width="large"),
            })
