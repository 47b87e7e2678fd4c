"""Resume an interrupted run (Configure & Run) and add to a loaded run (Results): "Rate this run with an LLM",
"Add a method", "Add people's ratings" (people_view). The engine does the work (``evaluate(resume=...)``, ``extend_run``); pages only call it."""

from __future__ import annotations

import streamlit as st

from hexeval_engine.explanation import METHODS
from hexeval_engine.plain_values import show_time
from hexeval_engine.runs.resumable import resumable_runs
from hexeval_engine.vocabulary import plural

from . import state
from .components import section
from .engine import outputs_root
from .people_view import render_add_people
from .rater import current_choice, key_settings
from .run_view import resume_evaluation, with_progress
from .runs_view import CUSTOM_PREFIX
from .settings import pickle_uploads_allowed

EXTEND_NOTICE = "extend_notice"


def render_resumable(usecase: str) -> None:
    """The use case's interrupted runs, each with a Resume button (nothing when there are none)."""
    custom = usecase == state.CUSTOM
    infos = [r for r in resumable_runs(outputs_root()) if not r.running
             and (r.usecase.startswith(CUSTOM_PREFIX) if custom else r.usecase == usecase)]
    if not infos:
        return
    section("Interrupted runs", "Runs that stopped before they finished. Resuming one continues where it stopped, "
                                "with the settings it was started with, and gives the results a whole run gives.")
    for info in infos:
        started = show_time(info.started) if info.started else "an unknown time"
        text, button = st.columns([4, 1], vertical_alignment="center")
        text.markdown(f"Run started {started}, stopped in {info.stage_words} "
                      f"({plural(info.pieces, 'finished piece')} kept).")
        if button.button("Resume", icon=":material/resume:", key=f"resume_{info.run_id}", width="stretch"):
            resume_evaluation(info.run_id, current_choice())


def render_extend(run) -> None:
    """On a loaded run: rate it with the LLM chosen in the sidebar, add a method it lacks, or add people's ratings."""
    notice = st.session_state.pop(EXTEND_NOTICE, None)
    if notice:
        st.success(notice, icon=":material/check_circle:")
    with st.expander("Add to this run", icon=":material/add_circle:"):
        st.caption("Only what the addition changes is computed: the explanations already made are reused. The run "
                   "keeps its earlier ratings and recommendations for comparison.")
        _rate_with_llm(run)
        _add_method(run)
        render_add_people(run)


def _rate_with_llm(run) -> None:
    rater = current_choice()
    st.markdown("**Rate this run with an LLM**")
    if not rater.uses_llm:
        st.caption("Choose an LLM rater in the sidebar (OpenAI or an OpenAI-compatible server) to rate this run's "
                   "explanations with it.")
        return
    blocker = rater.problem()
    if blocker:
        st.info(blocker, icon=":material/block:")
    if st.button(f"Rate with {rater.model}", icon=":material/smart_toy:", disabled=blocker is not None,
                 key="extend_llm"):
        _extend(run, f"The run was rated by {rater.model}", rater=rater.engine_name, llm_model=rater.model,
                llm_base_url=rater.endpoint, **key_settings(rater))


def _add_method(run) -> None:
    have = set(run.technical_metrics["method"])
    missing = [m for m in METHODS if m not in have]
    st.markdown("**Add a method**")
    if not missing:
        st.caption("This run already has every explanation method.")
        return
    pick, go = st.columns([3, 1], vertical_alignment="bottom")
    chosen = pick.multiselect("Methods to add", missing, key="extend_methods")
    if go.button("Add", icon=":material/add:", disabled=not chosen, key="extend_add", width="stretch"):
        _extend(run, f"{' and '.join(chosen)} {'was' if len(chosen) == 1 else 'were'} added to the run", methods=chosen, **key_settings(current_choice()))


def _extend(run, done: str, **asked) -> None:
    """Run ``extend_run`` with progress; on success say what it did (``done``) and what it reused, then redraw."""
    from hexeval_engine.evaluate import extend_run  # the engine's pipeline loads when an extension runs

    outcome = with_progress("Adding to the run…", "Run extended",
                            lambda progress: extend_run(run.path, on_progress=progress,
                                                        allow_pickle=pickle_uploads_allowed(), **asked))
    if outcome is None:
        return
    reuse = outcome["reuse"]
    changes = "; ".join(f"{role}: {a or 'none'} → {b or 'none'}" for role, (a, b) in
                        outcome["recommendation_changes"].items())
    st.session_state[EXTEND_NOTICE] = (
        f"{done}: {plural(int(reuse.get('explanations_reused', 0)), 'explanation')} reused, "
        f"{int(reuse.get('explanations_computed', 0))} computed. "
        + (f"Recommendations changed — {changes}." if changes else "The recommendations did not change."))
    st.rerun()
