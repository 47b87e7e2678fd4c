"""Running an evaluation from the dashboard: progress per stage in ``st.status``, then a summary."""

from __future__ import annotations

import streamlit as st

import hexeval_engine
from hexeval_engine import HexevalError

from . import state
from .components import RESULTS_PAGE, show_error
from .rater import RaterChoice, build_rater


class _StageProgress:
    """The engine's ``on_progress(done, total, message)`` drawn as a bar plus one line per finished stage."""

    def __init__(self) -> None:
        self.bar = st.progress(0.0, text="Starting…")
        self.stage = None

    def __call__(self, done: int, total: int, message: str) -> None:
        stage = message.split(":", 1)[0] if ":" in message else message
        if self.stage is not None and stage != self.stage:
            st.write(f":material/check: {self.stage}")
        self.stage = stage
        self.bar.progress(min(done / total, 1.0) if total else 1.0, text=message)


def run_evaluation(usecase: str, rater: RaterChoice, overrides: dict, upload=None) -> None:
    """Run ``hexeval_engine.evaluate`` with live progress and remember the run for the other pages."""
    with st.status("Running the evaluation…", expanded=True) as status:
        progress = _StageProgress()
        try:
            inputs = _inputs(usecase, upload, overrides)
            result = hexeval_engine.evaluate(**inputs, rater=build_rater(rater), on_progress=progress)
        except HexevalError as err:
            status.update(label="The evaluation stopped", state="error")
            show_error(err)
            return
        status.update(label="Evaluation complete", state="complete", expanded=False)
    state.remember_run(usecase, str(result.output_path))
    st.success(f"Run saved to `{result.output_path}`.", icon=":material/check_circle:")
    st.page_link(RESULTS_PAGE, label="See the results", icon=":material/monitoring:")


def _inputs(usecase: str, upload, overrides: dict) -> dict:
    if usecase != state.CUSTOM:
        return {"usecase": usecase, "config_overrides": overrides}
    if upload.personas_path is not None:
        overrides = overrides | {"personas": overrides["personas"] | {"file": str(upload.personas_path)}}
    return {"model_path": str(upload.model_path), "data_path": str(upload.data_path), "target_column": upload.target,
            "config_path": str(upload.config_path) if upload.config_path else None, "config_overrides": overrides}
