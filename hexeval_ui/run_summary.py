"""The header of a run on Results and Recommendations: what was run, when, and who rated it."""

from __future__ import annotations

import streamlit as st

from hexeval_engine.charts import DIMENSIONS
from hexeval_engine.explainers.plugin_warnings import plugin_messages
from hexeval_engine.metrics.table import method_order
from hexeval_engine.plain_values import show_time
from hexeval_engine.recommend.ratings_source import RatingsSource, ratings_source
from hexeval_engine.vocabulary import plural


def is_simulated(run) -> bool:
    return (run.manifest.get("rater") or {}).get("kind") == "simulated"


def source_of(run) -> RatingsSource:
    """Who rated the explanations behind the run's recommendations (people after a study, else the personas)."""
    return ratings_source(run.manifest, getattr(run, "recommendations", None))


#: Columns of persona_ratings.csv the pages read.
RATING_COLUMNS = ("persona_name", "persona_role", "explanation_type", "instance_index", "status", "comment",
                  *DIMENSIONS)


def missing_rating_columns(run) -> list[str]:
    if run.persona_ratings is None or run.persona_ratings.empty:
        return []
    return [c for c in RATING_COLUMNS if c not in run.persona_ratings.columns]


def has_ratings(run) -> bool:
    """True when the run has persona ratings in the shape the pages read."""
    return (run.persona_ratings is not None and not run.persona_ratings.empty
            and not missing_rating_columns(run))


def rater_badge(run) -> None:
    """Say prominently who produced the persona ratings; simulated ratings are never unlabelled."""
    source = source_of(run)
    if source.kind == "people":
        st.badge(source.label, icon=":material/groups:", color="green",
                 help="The recommendations use the ratings of the people who took this run's study.")
    elif not has_ratings(run):
        st.badge("No persona ratings", icon=":material/group_off:", color="gray")
    elif is_simulated(run):
        st.badge("Simulated ratings", icon=":material/smart_toy:", color="orange",
                 help="Made by HEXEval's built-in simulated rater: deterministic rules, not an LLM or real people.")
    else:
        st.badge(run.rater_label, icon=":material/forum:", color="blue",
                 help="Ratings written by an LLM playing each persona.")


def render_run_summary(run, *, explain_simulated: bool = True) -> None:
    m = run.manifest
    sample = (m.get("counts") or {}).get("sample_size", "?")
    title = m.get("usecase_title") or m.get("usecase", "?")
    # the run is named by its time; its id (for the command line) only in the tooltip
    st.markdown(f"**{title}** · run of {show_time(m.get('created', ''))} · {sample} cases sampled · {_who_rated(run)}",
                help=f"Run id {run.run_id}, for the command line (hexeval runs show).")
    integrity = getattr(run, "integrity", None)
    if integrity is not None and integrity.warning:  # edited, or not verifiable: said where "as written" would be
        st.warning(integrity.warning, icon=":material/gpp_maybe:")
    for message in plugin_messages(m.get("warnings")):  # explainer plugins left out or failed in this run
        st.warning(message, icon=":material/extension_off:")
    counts = cases_per_method(run)
    shared = (getattr(run, "recommendations", None) or {}).get("n_shared_cases")
    if counts:
        st.caption((f"Methods are compared on the **{shared} cases every method explained**. " if shared else "")
                   + "Cases explained per method: " + " · ".join(f"{m} {n}" for m, n in counts.items()) + ".")
    task = m.get("task") or {}
    if task.get("kind") == "regression":
        st.caption(f"**Regression** of {task.get('quantity', 'the target')}: each case is explained on one side of a "
                   "band around its prediction (why it is this high, or this low).")
    if task.get("kind") == "multiclass":
        st.caption(f"**{task.get('description', 'Multi-class classification')}** "
                   f"({', '.join(task.get('class_names', []))}): each case is explained for the class the model "
                   "predicts, against its strongest rival.")
    rater_badge(run)
    source = source_of(run)
    if source.kind == "people":
        st.caption(source.sentence)
    elif explain_simulated and has_ratings(run) and is_simulated(run):
        st.caption("Persona ratings in this run come from the **simulated** rater, not from an LLM or real people: "
                   "read them as a demonstration of the method, not as evidence about real stakeholders.")


def _who_rated(run) -> str:
    """The header's word on the ratings: people's (with the personas beside them) or the personas'."""
    source = source_of(run)
    if source.kind == "people":
        return f"{source.label}; personas: {run.rater_label}"
    return run.rater_label


def cases_per_method(run) -> dict[str, int]:
    """Method -> number of distinct cases it explained successfully, in display order."""
    seen: dict[str, set] = {}
    for e in getattr(run, "explanations", None) or []:
        if e.get("method") and not e.get("error"):
            seen.setdefault(str(e["method"]), set()).add(e.get("instance_id"))
    order = method_order(seen)
    return {m: len(seen[m]) for m in order}


def cases_text(run, method: str) -> str:
    """``"10 cases"`` for a method of the run, or an empty string when unknown."""
    n = cases_per_method(run).get(method)
    return plural(n, "case") if n is not None else ""
