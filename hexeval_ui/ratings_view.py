"""Results → persona ratings: summary, radar (all personas or one), and each persona's ratings and comments."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from hexeval_engine.charts import DIMENSIONS, radar_chart, ratings_summary_chart
from hexeval_engine.explanation import ALL_METHODS
from hexeval_engine.metrics.table import method_order
from hexeval_engine.ratings_summary import comment_groups
from hexeval_engine.vocabulary import dimension_label, plural

from .components import section
from .run_summary import has_ratings, is_simulated, missing_rating_columns, rater_badge

ALL_PERSONAS = "All personas"


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
    """Every comment in full, one expander per persona, filterable by method and persona."""
    st.markdown("**What each persona said**" + (" — *simulated ratings*" if simulated else ""))
    ok = ratings[ratings["status"] == "ok"].copy()
    ok["method"] = ok["explanation_type"].astype(str)
    methods = method_order(ok["method"])
    roles = [role for role, _ in personas]
    left, right = st.columns(2)
    shown_methods = left.multiselect("Methods", methods, default=methods, key="comments_methods",
                                     help="Show the comments on these methods' explanations.")
    shown_roles = right.multiselect("Personas", roles, default=roles, key="comments_personas",
                                    help="Show the comments of these personas.")
    names = dict(personas)
    for role in shown_roles:
        rows = ok[(ok["persona_role"].astype(str) == role) & ok["method"].isin(shown_methods)]
        rows = rows.sort_values([c for c in ("method", "instance_index", "run") if c in rows.columns], key=_method_order)
        label = f"**{names[role]}** — {role} · {plural(len(rows), 'rating')}" + (" (simulated)" if simulated else "")
        with st.expander(label, expanded=len(shown_roles) == 1):
            if rows.empty:
                st.caption("No successful ratings from this persona for the methods chosen.")
                continue
            groups = comment_groups(rows, dimensions=tuple(DIMENSIONS))
            if len(groups) < len(rows):
                st.caption(f"{plural(len(rows), 'rating')} shown as {plural(len(groups), 'comment')}: a method's "
                           "identical comments are shown once with their count and mean scores.")
            for row in groups.to_dict("records"):
                _comment_card(row)


def _method_order(col: pd.Series) -> pd.Series:
    if col.name != "method":
        return col
    order = {m: i for i, m in enumerate(ALL_METHODS)}
    return col.map(lambda m: order.get(m, len(order)))


def _comment_card(row: dict) -> None:
    """One comment (identical ones collapsed): method, cases and count, the six (mean) scores, the comment in full."""
    cases = row.get("cases") or []
    where = (f"case {cases[0]}" if len(cases) == 1 else f"cases {', '.join(str(c) for c in cases)}")
    if row.get("count", 1) > 1:
        where += f" · said {row['count']}×"
    with st.container(border=True):
        st.markdown(f"**{escape_markdown(row['method'])}** · {where}")
        st.markdown(" · ".join(f"{dimension_label(d)} **{_score(row.get(d))}**" for d in DIMENSIONS),
                    help="Each score from 1 (poor) to 5 (excellent).")
        comment = str(row.get("comment") or "").strip()
        st.markdown(escape_markdown(comment) if comment else "*No comment.*")


def _score(value) -> str:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return "–"
    if value != value:  # NaN: no score
        return "–"
    return str(int(value)) if value.is_integer() else f"{value:.1f}"


def escape_markdown(text) -> str:
    """Text shown as itself in ``st.markdown``: no emphasis, code, links, HTML, tables or maths from its
    characters, and no heading or list from the start of a line."""
    escaped = re.sub(r"([\\`*_\[\]<>|~$])", r"\\\1", str(text))
    return re.sub(r"(?m)^(\s*)([#+\-]|\d+\.)", lambda m: m.group(1) + "\\" + m.group(2), escaped)
