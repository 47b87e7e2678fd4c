"""Results → case explorer: one instance, its values and prediction, and all four explanations side by side."""

from __future__ import annotations

import html
import json

import pandas as pd
import streamlit as st

from hexeval_engine.charts import DIMENSIONS, method_color
from hexeval_engine.explanation import ALL_METHODS as METHODS
from hexeval_engine.vocabulary import dimension_label

from .case_data import CaseDataUnavailable, case_values
from .components import section
from .narrative_view import render_case_narratives
from .ratings_view import escape_markdown
from .run_summary import has_ratings, is_simulated

ALL_PERSONAS = "All personas"
WIDE_CASE = 30  # more features than this: the ones this case's explanations mention are listed first


def case_ids(explanations: list[dict]) -> list[int]:
    """Instances with explanations, those shown to personas first (in run order)."""
    shown = [e["instance_id"] for e in explanations if e.get("shown_to_personas")]
    rest = [e["instance_id"] for e in explanations]
    return list(dict.fromkeys(int(i) for i in shown + rest))


def render_case_explorer(run) -> None:
    section("Case explorer", "One explained case: its feature values, the model's prediction, and every method's "
                             "explanation exactly as the personas read it, with their ratings.")
    if not run.explanations:
        st.info("This run saved no explanations, so there is no case to explore.", icon=":material/info:")
        return
    ids = case_ids(run.explanations)
    by_case = {i: {e["method"]: e for e in run.explanations if int(e["instance_id"]) == i} for i in ids}
    rated = {int(i) for i in run.persona_ratings["instance_index"]} if has_ratings(run) else set()
    domain = ((run.manifest.get("config") or {}).get("domain") or {})
    left, right = st.columns([1, 2])
    iid = left.selectbox("Case (test-set row)", ids, key="case_pick",
                         format_func=lambda i: f"Case {i}" + (" · rated by personas" if i in rated else ""))
    personas = _persona_options(run.persona_ratings, iid) if has_ratings(run) else []
    persona = right.selectbox("Ratings of", [*personas, ALL_PERSONAS], key="case_persona",
                              disabled=not personas, help="One persona's ratings of this case, or every persona's.")
    _prediction(by_case[iid], domain)
    _feature_values(run, iid)
    cols = st.columns(len([m for m in METHODS if m in by_case[iid]]) or 1)
    for col, method in zip(cols, [m for m in METHODS if m in by_case[iid]]):
        with col.container(border=True):
            _explanation(by_case[iid][method], _case_ratings(run, iid, method, persona), is_simulated(run))
    render_case_narratives(run, iid)


def _feature_values(run, iid: int) -> None:
    try:
        values = case_values(run, [iid])
    except CaseDataUnavailable as err:
        st.caption(f"Feature values are not available: {err}.")
        return
    # one line per feature (fits a phone), named by its meaning, never by its column
    order = list(values.index)
    if len(order) > WIDE_CASE:  # hundreds of columns: what this case's explanations mention comes first
        mentioned = _mentioned_features(run, iid)
        order = [f for f in order if f in mentioned] + [f for f in order if f not in mentioned]
        st.caption(f"{len(order):,} features; the {len(mentioned):,} that this case's explanations mention come first.")
    shown = pd.DataFrame({"Feature": values.loc[order, "label"].to_numpy(), "Value": values.loc[order, iid].to_numpy()})
    with st.expander(f"Feature values of case {iid}", expanded=False):
        st.dataframe(shown, hide_index=True, key="case_values", width="stretch",
                     height=min(36 * (len(shown) + 1), 420),
                     column_config={"Feature": st.column_config.TextColumn("Feature", width="large"),
                                    "Value": st.column_config.TextColumn("Value", width="medium")})


def _mentioned_features(run, iid: int) -> list[str]:
    """Features named by this case's explanations (attributions, rule conditions, changed values), in that order."""
    seen: dict[str, None] = {}
    for exp in run.explanations:
        if int(exp.get("instance_id", -1)) != iid:
            continue
        attributions = exp.get("attributions") or {}
        for f in sorted(attributions, key=lambda k: -abs(attributions[k] or 0))[:10]:
            seen.setdefault(f)
        for cond in ((exp.get("rule") or {}).get("conditions") or []):
            seen.setdefault(cond.get("feature"))
        for cf in exp.get("counterfactuals") or []:
            for f in (cf.get("changes") or {}):
                seen.setdefault(f)
    return [f for f in seen if f]


def _persona_options(ratings: pd.DataFrame, iid: int) -> list[str]:
    return list(dict.fromkeys(ratings.loc[ratings["instance_index"] == iid, "persona_role"].astype(str)))


def _case_ratings(run, iid: int, method: str, persona: str) -> pd.DataFrame:
    if not has_ratings(run):
        return pd.DataFrame()
    r = run.persona_ratings
    rows = r[(r["instance_index"] == iid) & (r["explanation_type"] == method)]
    if persona != ALL_PERSONAS:
        rows = rows[rows["persona_role"].astype(str) == persona]
    return rows


def _prediction(methods: dict, domain: dict) -> None:
    exp = next(iter(methods.values()))
    cls = int(exp.get("predicted_class", 1))
    outcome = domain.get("positive_outcome" if cls == 1 else "negative_outcome") or ("positive" if cls else "negative")
    prob = float(exp.get("probability", float("nan")))
    st.markdown(f"**Model prediction:** {escape_markdown(outcome)}, with probability **{prob:.0%}**. Every "
                "explanation below explains this prediction.")


def _explanation(exp: dict, ratings: pd.DataFrame, simulated: bool) -> None:
    method = exp["method"]
    st.markdown(f"<span style='color:{method_color(method)};font-size:1.25rem;font-weight:700'>■</span> "
                f"**{html.escape(str(method))}**", unsafe_allow_html=True)
    st.caption(exp.get("algorithm") or "")
    if exp.get("error"):
        st.error(f"{method} failed on this case: {exp['error']}", icon=":material/error:")
        return
    st.markdown("**As the personas saw it**" if exp.get("shown_to_personas") else "**Plain language** (not shown to personas)")
    st.markdown(escape_markdown(exp["text"]) if exp.get("text") else "*No plain-language text.*")
    with st.expander("Technical form"):
        st.code(exp.get("technical_text") or json.dumps(_structure(exp), indent=1, default=str), language=None,
                wrap_lines=True)
    ok = ratings[ratings["status"] == "ok"] if len(ratings) else ratings
    if ok is None or ok.empty:
        st.caption("No ratings of this explanation.")
        return
    st.markdown("**Ratings**" + (" · *simulated*" if simulated else ""))
    for row in ok.itertuples(index=False):
        scores = " · ".join(f"{dimension_label(d)} **{int(getattr(row, d))}**" for d in DIMENSIONS)
        st.markdown(f"*{escape_markdown(row.persona_role)}*"
                    + (f" (repeat {row.run})" if getattr(row, "run", 1) not in (1, None) else "") + f"  \n{scores}")
        if row.comment:
            st.markdown(f"“{escape_markdown(row.comment)}”")


def _structure(exp: dict) -> dict:
    return {k: exp[k] for k in ("attributions", "rule", "counterfactuals") if exp.get(k)}
