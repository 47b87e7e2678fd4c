"""Running an evaluation from the dashboard: progress per stage in ``st.status``, then a summary."""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from hexeval_engine import HexevalError
from hexeval_engine.paths import generic_personas_path

from . import state
from .class_names_view import class_name_overrides
from .components import RESULTS_PAGE, show_error
from .engine import outputs_root
from .rater import RaterChoice, key_settings
from .runs_view import load_cached, run_label, saved_runs
from .settings import pickle_uploads_allowed
from .verdict_view import render_verdict

log = logging.getLogger(__name__)


class _StageProgress:
    """The engine's ``on_progress(done, total, message)`` drawn as a bar plus one line per finished stage."""

    def __init__(self) -> None:
        self.bar = st.progress(0.0, text="Starting…")
        self.stage = None

    def __call__(self, done: int, total: int, message: str) -> None:
        stage = message.split(":", 1)[0]
        if self.stage is not None and stage != self.stage:
            st.write(f":material/check: {self.stage}")
        self.stage = stage
        self.bar.progress(min(done / total, 1.0) if total else 1.0, text=message)


def run_evaluation(usecase, rater: RaterChoice, overrides: dict, upload=None) -> None:
    """Run ``evaluate`` with live progress and remember the run for the other pages.

    ``usecase`` is a bundled ``UseCase``, or None for a validated custom ``upload``.
    """
    from hexeval_engine.evaluate import evaluate

    inputs = _inputs(usecase, upload, overrides)
    # evaluate builds the rater from the overridden config and closes it (HTTP client, LLM cache).
    result = with_progress("Running the evaluation…", "Evaluation complete",
                           lambda progress: evaluate(**inputs, **key_settings(rater), on_progress=progress))
    if result is not None:
        state.remember_run(state.current_usecase(), str(result.output_path), result.run_id)
        st.rerun()  # redraw the sidebar (drawn before the run) so "Run being viewed" shows this run at once


def resume_evaluation(run_id: str, rater: RaterChoice) -> None:
    """Continue an interrupted run (its own inputs and settings) with live progress, then show it like a new run."""
    from hexeval_engine.evaluate import evaluate

    result = with_progress("Resuming the evaluation…", "Evaluation complete",
                           lambda progress: evaluate(output_dir=outputs_root(), resume=run_id, **key_settings(rater),
                                                     allow_pickle=pickle_uploads_allowed(), on_progress=progress))
    if result is not None:
        state.remember_run(state.current_usecase(), str(result.output_path), result.run_id)
        st.rerun()


def with_progress(running: str, finished: str, call):
    """``call(on_progress)`` inside ``st.status`` with a bar per stage; its result, or None after an error (shown)."""
    with st.status(running, expanded=True) as status:
        progress = _StageProgress()
        try:
            result = call(progress)
        except HexevalError as err:
            status.update(label="The evaluation stopped", state="error")
            show_error(err)
            return None
        except Exception:  # a bug, not a user error: say so on the page (the traceback goes to the server log)
            log.exception("The evaluation failed with an internal error")
            status.update(label="The evaluation failed", state="error")
            st.error("HEXEval hit an internal error and stopped; earlier runs are untouched and what it had finished "
                     "can be resumed. The details are in the server log — please report them.",
                     icon=":material/bug_report:")
            return None
        status.update(label=finished, state="complete", expanded=False)
    return result


def render_finished_run() -> None:
    """The summary of the run that finished just before this rerun (shown once)."""
    finished = state.take_finished_run()
    if finished is None:
        return
    _, folder = finished
    try:
        render_verdict(load_cached(folder), link=True)
    except HexevalError as err:
        show_error(err)
    # the run as the pickers name it (time, rater, cases); its id, for the command line, is in the tooltip of the
    # run's line on Results
    info = next((r for r in saved_runs(Path(folder).parent.name) if str(r.path) == str(folder)), None)
    saved = f"Saved: {run_label(info, with_title=True)}." if info is not None else "The run is saved."
    st.success(saved, icon=":material/check_circle:")
    st.page_link(RESULTS_PAGE, label="See the results", icon=":material/monitoring:")


def _inputs(usecase, upload, overrides: dict) -> dict:
    if usecase is not None:
        return {"usecase": usecase.name, "config_path": usecase.config_path, "config_overrides": overrides}
    # Without an uploaded persona file the generic personas rate (the Configure page names them).
    persona_file = {"file": str(upload.personas_path or generic_personas_path())}
    overrides = overrides | {"personas": overrides["personas"] | persona_file,
                             "data": overrides.get("data", {}) | upload.data_options}  # remedies, encoding
    named = class_name_overrides(upload)  # what the user called the target's codes ("0" -> "benign")
    for section, names in named.items():  # domain (binary) or data.class_names (multi-class)
        overrides[section] = overrides.get(section, {}) | names
    name = str(st.session_state.get(state.UPLOAD_RUN_NAME) or "").strip() or None
    return {"model_path": upload.model_path, "data_path": upload.data_path, "target_column": upload.target,
            "config_path": upload.config_path, "config_overrides": overrides, "allow_pickle": pickle_uploads_allowed(),
            "output_dir": outputs_root(),  # the server's outputs folder, whatever an uploaded config says
            "run_name": name, "keep_inputs": True}  # the run keeps copies of the uploaded files
