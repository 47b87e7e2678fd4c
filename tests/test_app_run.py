"""Real evaluations from the dashboard (AppTest): Run on Heart with the simulated rater and with an LLM rater
against the local OpenAI-compatible test server, and a real saved run through Results, Recommendations and
Compare. Settings are kept small (5 instances, few LIME samples, 2 Anchor/DiCE instances) so each run takes
a few seconds.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from app_helpers import ROOT, app, button, chart_titles, frame_with, open_page, texts
from hexeval_ui.ratings_view import escape_markdown
from ui_run_fixtures import save_fixture_run

SMALL = {"evaluation": {"sample_size": 5, "explainers": {"lime": {"num_samples": 200}, "anchor": {"max_instances": 2},
                                                        "dice": {"max_instances": 2}}},
         "personas": {"sample_instances": 1}}




@pytest.fixture(scope="session")
def real_run(tmp_path_factory) -> Path:
    """One small real heart evaluation with the simulated rater, saved under a session temp folder."""
    from hexeval_engine import evaluate

    root = tmp_path_factory.mktemp("real-runs")
    return evaluate(usecase="heart", rater="simulated", output_dir=root, config_overrides=SMALL).output_path


def _small_settings(at) -> None:
    """Shrink the run through the Configure & Run widgets, as a user would."""
    at.slider(key="heart:sample_size").set_value(5)
    at.number_input(key="heart:lime:samples").set_value(200)
    at.number_input(key="heart:anchor:max").set_value(2)
    at.number_input(key="heart:dice:max").set_value(2)
    at.number_input(key="heart:personas:instances").set_value(1)
    at.run()


def _run(at) -> None:
    button(at, "Run evaluation").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    saved = [s.value for s in at.success if s.value.startswith("Saved: ")]
    # the run as a person names it (its time, rater and cases), never its id or the server's folder layout
    assert saved and "/" not in saved[0] and re.search(r"\d{4}, \d{2}:\d{2} · [^·]+ · \d+ cases?\.$", saved[0]), \
        saved
    assert not re.search(r"\d{8}-\d{6}-[0-9a-f]{6}", saved[0]), saved


def test_run_heart_with_the_simulated_rater_shows_results_and_recommendations(tmp_path):
    at = app(usecase="heart")
    _small_settings(at)
    _run(at)
    run_dir = Path(at.session_state["session_runs"]["heart"])
    assert run_dir.parent.parent == tmp_path / "outputs" and (run_dir / "run.json").exists()
    open_page(at, "app_pages/results.py")
    assert not at.error, [e.value for e in at.error]
    assert "Ratings on six dimensions (all personas)" in chart_titles(at)
    assert "Simulated ratings" in texts(at) and "5 cases sampled" in texts(at)
    open_page(at, "app_pages/recommendations.py")
    assert sorted(m.value for m in at.markdown if m.value.startswith("#### ")) == [
        "#### Hospital Administrator", "#### Lead Cardiologist", "#### Medical Researcher and Data Scientist",
        "#### Patient"]
    assert any(t.startswith("Skill on each stakeholder's questions") for t in chart_titles(at))
    # Switching pages never re-runs the evaluation: still exactly one run on disk.
    open_page(at, "app_pages/configure_run.py")
    open_page(at, "app_pages/results.py")
    assert len([p for p in run_dir.parent.iterdir() if not p.name.startswith(".")]) == 1


def test_run_with_the_llm_rater_against_a_local_server(llm_server):
    at = app(usecase="heart", rater_kind="compatible", llm_base_url=llm_server.url, llm_model="test-model",
             llm_api_key="sk-test-sentinel")
    assert "test-model" in texts(at)  # the sidebar's status line names the active rater
    _small_settings(at)
    at.toggle(key="heart:narratives:enabled").set_value(False)  # this fake server answers ratings only
    at.run()
    _run(at)
    assert len(llm_server.requests) >= 16  # 4 personas x 4 methods x 1 instance
    open_page(at, "app_pages/results.py")
    page = texts(at)
    assert "LLM personas: test-model via http://127.0.0.1" in page
    assert "Simulated ratings" not in page
    assert "Ratings on six dimensions (all personas)" in chart_titles(at)
    run_dir = Path(at.session_state["session_runs"]["heart"])
    ratings = pd.read_csv(run_dir / "persona_ratings.csv")
    assert ratings["comment"].str.len().gt(0).all()
    assert escape_markdown(ratings["comment"].iloc[0]) in texts(at)  # every comment is shown in full
    assert not any("sk-test-sentinel" in p.read_text(errors="ignore") for p in run_dir.iterdir())


def test_a_real_saved_run_renders_every_section_and_compares(real_run, tmp_path):
    root = tmp_path / "outputs"
    copy = root / "heart" / real_run.name
    shutil.copytree(real_run, copy)
    other = save_fixture_run(root, created="2000-01-01T00:00:00+00:00")
    at = app(usecase="heart")
    at.selectbox(key="saved_run_choice").set_value(str(copy)).run()  # nothing is preselected: Load waits for a choice
    button(at, "Load").click().run()
    assert not at.exception and at.session_state["viewed_run"] == str(copy)
    open_page(at, "app_pages/results.py")
    assert not at.error, [e.value for e in at.error]
    assert {"Fidelity: deletion vs insertion", "Parsimony (↑ higher is better, ↓ lower is better)",
            "Ratings on six dimensions (all personas)"} <= {t.split("<br>")[0] for t in chart_titles(at)}
    # the case's values are a table (cells wrap on a phone); the narrative's claims are a data grid
    values = next(t.value for t in at.table if {"Feature", "Value"} <= set(t.value.columns)).set_index("Feature")["Value"]
    assert values["Chest pain type"] in {"typical angina", "atypical angina", "non-anginal pain", "asymptomatic"}
    open_page(at, "app_pages/recommendations.py")
    assert not at.error and len(at.metric) == 4
    open_page(at, "app_pages/compare.py")
    at.selectbox(key="compare_a").set_value(str(copy)).run()
    at.selectbox(key="compare_b").set_value(str(other)).run()
    button(at, "Compare").click().run()
    assert not at.exception and "Recommendation changes" in texts(at)
    assert len(frame_with(at, "Difference (95% interval)")) > 0 and "Settings that differ" in texts(at)
