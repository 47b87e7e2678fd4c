"""The dashboard's side of issue 34 (AppTest): an interrupted run is offered with a Resume button on Configure & Run
and resumes to a saved run; a loaded run is rated with the LLM chosen in the sidebar ("Rate this run with an LLM")
and gains a method ("Add a method"), each reusing the explanations it had.
"""

from __future__ import annotations

import pandas as pd
import pytest

from app_helpers import app, button, open_page, texts
from hexeval_engine import evaluate
from hexeval_engine.runs.resumable import resumable_runs
from hexeval_engine.runs.store import list_runs, load_run

SMALL = {"evaluation": {"sample_size": 5, "explainers": {"lime": {"num_samples": 200}, "anchor": {"max_instances": 2},
                                                        "dice": {"max_instances": 2}}},
         "personas": {"sample_instances": 1}, "narratives": {"enabled": False}}


class _Stopped(Exception):
    """Stands for the dashboard's Stop (or a closed tab) in the middle of the technical stage."""


def test_an_interrupted_run_is_offered_and_resumed_from_configure_and_run(tmp_path):
    root = tmp_path / "outputs"

    def stop_midway(done, total, message):
        if message.startswith("Technical") and done >= 30:
            raise _Stopped()

    with pytest.raises(_Stopped):
        evaluate(usecase="heart", config_overrides=SMALL, on_progress=stop_midway)
    [info] = resumable_runs(root)
    at = app(usecase="heart")
    page = texts(at)
    assert "Interrupted runs" in [h.value for h in at.subheader] and "stopped in the technical stage" in page
    assert info.run_id not in page  # people see when it started and where it stopped, not an id
    button(at, "Resume").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    [saved] = list_runs(root)
    assert saved.run_id == info.run_id and resumable_runs(root) == []
    assert load_run(saved.path).manifest["reuse"]["explanations_reused"] > 0
    assert any(s.value.startswith("Saved: ") for s in at.success)
    assert "Interrupted runs" not in [h.value for h in at.subheader]


def test_a_loaded_run_is_rated_with_the_llm_chosen_in_the_sidebar(tmp_path, llm_server):
    run = evaluate(usecase="heart", rater="simulated", config_overrides=SMALL).output_path
    at = app(usecase="heart", viewed_run=str(run), rater_kind="compatible", llm_base_url=llm_server.url,
             llm_model="test-model", llm_api_key="sk-test-sentinel")
    open_page(at, "app_pages/results.py")
    assert "Simulated ratings" in texts(at)
    button(at, "Rate with test-model").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    notice = " ".join(s.value for s in at.success)
    assert "The run was rated by test-model" in notice and "0 computed" in notice
    assert len(llm_server.completion_requests()) >= 16  # 4 personas x 4 methods x 1 case
    page = texts(at)
    assert "LLM personas: test-model via http://127.0.0.1" in page and "Simulated ratings" not in page
    ratings = pd.read_csv(run / "persona_ratings.csv")
    assert set(ratings["rater"]) == {"openai"}
    assert (run / "extensions" / "1" / "persona_ratings.csv").exists()  # the simulated ratings, kept
    assert load_run(run).integrity.edited == []
    assert not any("sk-test-sentinel" in p.read_text(errors="ignore") for p in run.rglob("*") if p.is_file())


def test_a_method_is_added_to_a_loaded_run(tmp_path):
    without = {**SMALL, "evaluation": {**SMALL["evaluation"],
                                       "explainers": {**SMALL["evaluation"]["explainers"], "anchor": {"enabled": False}}}}
    run = evaluate(usecase="heart", rater="simulated", config_overrides=without).output_path
    at = app(usecase="heart", viewed_run=str(run))
    open_page(at, "app_pages/results.py")
    at.multiselect(key="extend_methods").set_value(["Anchor"]).run()
    button(at, "Add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert "Anchor was added to the run" in " ".join(s.value for s in at.success)
    assert "Anchor" in set(load_run(run).technical_metrics["method"])
    assert load_run(run).integrity.edited == []
