"""Configure & Run's evaluation settings: widgets seeded from the config, returned as config overrides.

Widget keys carry the use case's name and persist for the session, so switching pages or use
cases and coming back keeps what the user chose.
"""

from __future__ import annotations

import streamlit as st

from hexeval_engine.config.loader import deep_merge, validate_config
from hexeval_engine.explainers.registry import method_specs
from hexeval_engine.explanation import BASELINE_METHOD, NARRATIVE_METHOD
from hexeval_engine.raters.run import MIN_CASES_PER_CELL, persona_plan

from .components import section
from .rater import RaterChoice



def render_settings(scope: str, config, *, max_sample: int, n_personas: int, rater: RaterChoice) -> dict:
    """Draw the settings for use case ``scope`` and return ``config_overrides`` for ``evaluate``."""
    ev, pe = config.evaluation, config.personas

    def key(name: str) -> str:
        return f"{scope}:{name}"

    section("Evaluation settings", "Defaults come from the use case's config; changes apply to the next run only.")
    sample = st.slider("Instances to explain (sample size)", min_value=min(5, max_sample), max_value=max_sample,
                       value=min(ev.sample_size, max_sample), key=key("sample_size"), persist_state="session",
                       help="Test rows drawn for the technical metrics. More rows: tighter confidence intervals, longer runs.")
    explainers = {}
    specs = [s for s in method_specs(config) if s.recommendable and s.settings_key]
    for row in range(0, len(specs), 4):
        cols = st.columns(4)
        for col, spec in zip(cols, specs[row:row + 4]):
            settings = spec.settings(config)
            with col.container(border=True):
                enabled = st.toggle(spec.name, value=settings.enabled, key=key(f"{spec.name}:enabled"),
                                    persist_state="session", help=spec.blurb)
                explainers[spec.settings_key] = {"enabled": enabled,
                                                 **_method_params(spec.name, settings, key, not enabled)}
    section("Persona ratings", "Stakeholder personas rate a few cases' explanations on six 1–5 dimensions.")
    left, middle, right = st.columns(3)
    personas_on = left.toggle("Rate with personas", value=pe.enabled, key=key("personas:enabled"), persist_state="session")
    instances = middle.number_input("Instances per persona", 1, 20, value=pe.sample_instances, disabled=not personas_on,
                                    key=key("personas:instances"), persist_state="session")
    repeats = right.number_input("Ratings per explanation", 1, 5, value=pe.runs_per_method, disabled=not personas_on,
                                 key=key("personas:runs"), persist_state="session",
                                 help="Repeat each rating to measure how consistent the rater is.")
    nar = config.narratives
    narratives_on = st.toggle(
        f"Narratives: also tell {nar.source}'s explanation as a short story, checked for faithfulness",
        value=nar.enabled, key=key("narratives:enabled"), persist_state="session",
        help="Each rated case gets a narrative of its top attributions, written for the persona's audience "
             "(offline: a built-in template narrator; with an LLM rater: the LLM). Each narrative is read back and "
             "its ranks, directions and values are checked against the attributions; a narrative that misstates "
             "them is flagged and cannot be recommended. Personas rate narratives like the other methods.")
    persona_overrides = {"enabled": personas_on, "sample_instances": int(instances), "runs_per_method": int(repeats),
                         "rater": rater.engine_name}
    if rater.uses_llm:
        persona_overrides |= {"llm_model": rater.model, "base_url": rater.base_url}
    overrides = {"evaluation": {"sample_size": int(sample), "explainers": explainers}, "personas": persona_overrides,
                 "narratives": {"enabled": bool(narratives_on and personas_on),
                                "narrator": "openai" if rater.uses_llm else "simulated"}}
    planned = validate_config(deep_merge(config.model_dump(), overrides))
    _estimate(personas_on, persona_plan(planned, n_personas=n_personas), int(instances), rater)
    return overrides


def _method_params(method: str, s, key, disabled: bool) -> dict:
    if method == "SHAP":
        return {"background_size": st.number_input("Background rows", 10, 1000, value=s.background_size, step=10,
                                                   disabled=disabled, key=key("shap:bg"), persist_state="session")}
    if method == "LIME":
        return {"num_samples": st.number_input("Perturbation samples", 100, 5000, value=s.num_samples, step=100,
                                               disabled=disabled, key=key("lime:samples"), persist_state="session")}
    if method == "Anchor":
        return {"precision_threshold": st.slider("Precision threshold", 0.5, 1.0, value=float(s.precision_threshold),
                                                 step=0.05, disabled=disabled, key=key("anchor:prec"), persist_state="session"),
                "max_instances": st.number_input("Max instances", 1, 100, value=s.max_instances, disabled=disabled,
                                                 key=key("anchor:max"), persist_state="session")}
    if method != "DiCE":  # a plugin or a method without widgets here: its config settings apply as they are
        return {}
    return {"num_counterfactuals": st.number_input("Counterfactuals per case", 1, 10, value=s.num_counterfactuals,
                                                   disabled=disabled, key=key("dice:n"), persist_state="session"),
            "max_instances": st.number_input("Max instances", 1, 100, value=s.max_instances, disabled=disabled,
                                             key=key("dice:max"), persist_state="session")}


def _estimate(personas_on: bool, plan: dict, instances: int, rater: RaterChoice) -> None:
    """The ratings and LLM calls the run will make (``persona_plan``), shown before the run."""
    if not personas_on:
        st.caption("Persona ratings are off: recommendations will be technical-only.")
        return
    if plan["personas"] == 0:
        st.caption("No personas are defined for this use case, so no ratings will be made.")
        return
    methods = plan["methods"]
    extras = [text for method, text in ((NARRATIVE_METHOD, "the written narrative"),
                                        (BASELINE_METHOD, "the Random baseline as a sanity reference"))
              if method in methods]
    baseline = f" (including {' and '.join(extras)})" if extras else ""
    formula = (f"{_count(plan['personas'], 'persona')} × {_count(len(methods), 'method')}{baseline} × "
               f"{_count(plan['cases'], 'case')} × {_count(plan['runs'], 'rating')} per explanation = "
               f"**{_count(plan['ratings'], 'rating')}**")
    if rater.uses_llm:
        st.markdown(f"{formula} → up to **{_count(plan['calls'], 'LLM call')}** to `{rater.model}` "
                    "(cached answers are not re-sent).")
    else:
        st.markdown(f"{formula}, made offline by the simulated rater (no LLM calls).")
    if plan["cases"] < instances:
        st.caption(f"Only {_count(plan['cases'], 'case')} will be explained by every method (Anchor and DiCE "
                   f"explain at most their “Max instances”), so each persona rates {plan['cases']} per method, "
                   f"not {instances}.")
    if plan["cases"] < MIN_CASES_PER_CELL:
        st.caption(f":material/warning: Each persona rates {_count(plan['cases'], 'case')} per method: fewer than "
                   f"{MIN_CASES_PER_CELL} makes the persona intervals too wide to tell methods apart. Raise “Instances "
                   "per persona” and the Anchor and DiCE “Max instances” to at least 8.")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun if n == 1 else noun + 's'}"
