"""Results → case explorer: one instance, its values and prediction, and all four explanations side by side."""

from __future__ import annotations

import html
import json

import pandas as pd
import streamlit as st

from hexeval_engine.charts import DIMENSIONS, method_color
from hexeval_engine.metrics.table import method_order
from hexeval_engine.vocabulary import dimension_label

from .case_data import CaseDataUnavailable, case_values
from .components import section
from .narrative_view import render_case_narratives
from .ratings_view import escape_markdown
from .run_summary import has_ratings, is_simulated

ALL_PERSONAS = "All personas"
WIDE_CASE = 30  # more features than this: the ones this case's explanations mention are listed first
PER_ROW = 3  # explanations side by side: ~400 px each at 1440 px, one per row on a phone
TOP_ATTRIBUTIONS = 5  # attribution numbers shown with plain labels
#: What each method gives, in words, under its name (the library's class name goes in the technical form).
METHOD_GIVES = {
    "SHAP": "How much each value pushed this prediction (feature weights).",
    "LIME": "Feature weights from a simple model fitted around this case.",
    "Anchor": "An if-then rule under which the model keeps this prediction.",
    "DiCE": "Changes to this case that would flip the prediction.",
    "Narrative": "SHAP's feature weights retold as a short story.",
    "Random": "Random feature weights: a baseline every method should beat.",
}


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
                         format_func=lambda i: f"Case {i}" + _explained_for(by_case[i])
                         + (" · rated by personas" if i in rated else ""))
    personas = _persona_options(run.persona_ratings, iid) if has_ratings(run) else []
    persona = right.selectbox("Ratings of", [*personas, ALL_PERSONAS], key="case_persona",
                              disabled=not personas, help="One persona's ratings of this case, or every persona's.")
    _prediction(by_case[iid], domain)
    labels = _feature_values(run, iid)
    methods = method_order(by_case[iid])
    for start in range(0, len(methods), PER_ROW):  # readable columns: three per row (stacked on a phone)
        cols = st.columns(PER_ROW)
        for col, method in zip(cols, methods[start:start + PER_ROW]):
            with col.container(border=True):
                _explanation(by_case[iid][method], _case_ratings(run, iid, method, persona), is_simulated(run),
                             labels=labels, persona=persona)
    render_case_narratives(run, iid)


def _feature_values(run, iid: int) -> dict[str, str]:
    """Show the case's values (always visible) and return each feature's readable label."""
    try:
        values = case_values(run, [iid])
    except CaseDataUnavailable as err:
        st.caption(f"Feature values are not available: {err}.")
        return {}
    # one line per feature (fits a phone), named by its meaning, never by its column
    order = list(values.index)
    if len(order) > WIDE_CASE:  # hundreds of columns: what this case's explanations mention comes first
        mentioned = _mentioned_features(run, iid)
        order = [f for f in order if f in mentioned] + [f for f in order if f not in mentioned]
        st.caption(f"{len(order):,} features; the {len(mentioned):,} that this case's explanations mention come first.")
    shown = pd.DataFrame({"Feature": values.loc[order, "label"].to_numpy(), "Value": values.loc[order, iid].to_numpy()})
    st.markdown(f"**Values of case {iid}**")
    # A table whose cells wrap (a data grid keeps one line per cell and cut the Value column off at 390 px);
    # every row of a usual case in view, hundreds of features in a box that scrolls.
    st.table(shown, hide_index=True, border="horizontal",
             height="content" if len(shown) <= WIDE_CASE else 36 * (WIDE_CASE + 1))
    return {str(f): str(values.loc[f, "label"]) for f in values.index}


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
    value = (exp.get("extra") or {}).get("value_view")
    if value:  # a regressor: every explanation is of why the prediction is this high (or low)
        side = "high" if value["direction"] > 0 else "low"
        st.markdown(f"**Model prediction:** {escape_markdown(value['prediction_text'])}. Every explanation below "
                    f"explains why the prediction is this {side} ({escape_markdown(value['side'])}).")
        return
    view = (exp.get("extra") or {}).get("class_view")
    if view:  # a multi-class model: every explanation is of the predicted class against its rivals
        st.markdown(f"**Model prediction:** {escape_markdown(view['name'])}, with probability "
                    f"**{float(view['probability']):.0%}**. Every explanation below explains why "
                    f"{escape_markdown(view['name'])} rather than {escape_markdown(view['rivals'])}.")
        return
    cls = int(exp.get("predicted_class", 1))
    outcome = domain.get("positive_outcome" if cls == 1 else "negative_outcome") or ("positive" if cls else "negative")
    prob = float(exp.get("probability", float("nan")))
    st.markdown(f"**Model prediction:** {escape_markdown(outcome)}, with probability **{prob:.0%}**. Every "
                "explanation below explains this prediction.")


def read_texts(exp: dict, ratings: pd.DataFrame) -> list[tuple[str, list[str]]]:
    """The texts the rating personas actually read, each with the roles that read it (in rating order).

    A narrative is written for each persona's audience, so a patient and a cardiologist read
    different texts of the same case; ``persona_ratings.csv`` records the text each one read.
    Falls back to the explanation's own text when no rating records one.
    """
    texts: dict[str, list[str]] = {}
    if len(ratings) and "explanation_text" in ratings.columns:
        for row in ratings.itertuples(index=False):
            text = str(row.explanation_text or "") if not pd.isna(row.explanation_text) else ""
            if text:
                roles = texts.setdefault(text, [])
                if str(row.persona_role) not in roles:
                    roles.append(str(row.persona_role))
    if not texts and exp.get("text"):
        texts[str(exp["text"])] = []
    return list(texts.items())


def attribution_lines(exp: dict, labels: dict[str, str], top: int = TOP_ATTRIBUTIONS) -> list[str]:
    """The largest attributions as ``label: +0.123 (towards the prediction)``, by the feature's readable label."""
    attributions = {k: v for k, v in (exp.get("attributions") or {}).items() if v is not None and not pd.isna(v)}
    ranked = sorted(attributions, key=lambda k: -abs(float(attributions[k])))[:top]
    return [f"{labels.get(f, f.replace('_', ' '))}: {float(attributions[f]):+.3f} "
            f"({'towards' if float(attributions[f]) > 0 else 'away from'} the prediction)" for f in ranked]


def _explanation(exp: dict, ratings: pd.DataFrame, simulated: bool, *, labels: dict[str, str] | None = None,
                 persona: str = ALL_PERSONAS) -> None:
    method = exp["method"]
    st.markdown(f"<span style='color:{method_color(method)};font-size:1.25rem;font-weight:700'>■</span> "
                f"**{html.escape(str(method))}**", unsafe_allow_html=True)
    if METHOD_GIVES.get(method):
        st.caption(METHOD_GIVES[method])
    if exp.get("error"):
        st.error(f"{method} failed on this case: {exp['error']}", icon=":material/error:")
        return
    texts = read_texts(exp, ratings)
    if not texts:
        st.markdown("*No plain-language text.*")
    for text, roles in texts:
        if persona != ALL_PERSONAS and roles:
            st.markdown(f"**As {escape_markdown(persona)} read it**")
        elif roles:
            st.markdown(f"**As {escape_markdown(', '.join(roles))} read it**")
        else:
            st.markdown("**As the personas saw it**" if exp.get("shown_to_personas")
                        else "**Plain language** (not shown to personas)")
        st.markdown(escape_markdown(text))
    numbers = attribution_lines(exp, labels or {})
    if numbers:
        st.markdown("**Weights of the largest features**\n" + "\n".join(f"- {escape_markdown(n)}" for n in numbers),
                    help="How much each feature's value moved this prediction, in the model's probability units.")
    with st.expander("Technical form"):
        if exp.get("algorithm"):
            st.caption(f"Algorithm: {exp['algorithm']}")
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


def _explained_for(methods: dict) -> str:
    """`` · explained for cultivar 1`` for a multi-class run's case, else ``""``."""
    view = next(((e.get("extra") or {}).get("class_view") for e in methods.values()
                 if (e.get("extra") or {}).get("class_view")), None)
    return f" · explained for {view['name']}" if view else ""
