"""Real-browser end-to-end test: ``streamlit run app.py`` driven by Debian's Chromium via Playwright.

Screenshots go to ``test-artifacts/`` (git-ignored) so a person can look at what the browser saw.
Skipped when Chromium or the Playwright package is missing on a developer machine; with ``CI=true``
either one missing fails the run instead (a CI job must not pass by skipping its browser test).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from browser_env import ARTIFACTS, browser_marks, choose_option, choose_saved_run, playwright_sync_api, settle
from local_server import streamlit_app

# Skipped only on a developer machine without Chromium or Playwright; in CI (CI=true) either missing fails.
pytestmark = browser_marks()
sync_api = playwright_sync_api()
_settle = settle  # the name the other browser tests import


@pytest.fixture(scope="module")
def outputs_dir(tmp_path_factory) -> Path:
    """The server's runs root, seeded with two saved heart runs (the second one with a failed LIME)."""
    from ui_run_fixtures import save_fixture_run

    root = tmp_path_factory.mktemp("outputs")
    save_fixture_run(root, created="2026-01-02T09:30:00+00:00")
    save_fixture_run(root, shift=-1, failed="LIME", created="2026-01-03T09:30:00+00:00")
    return root


@pytest.fixture(scope="module")
def app_url(tmp_path_factory, outputs_dir):
    with streamlit_app(outputs_dir, tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url


@pytest.fixture(scope="module")
def page(app_url, chromium):
    context = chromium.new_context(viewport={"width": 1440, "height": 1600})
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.goto(app_url)  # the app opens on Start; these tests begin on Configure & Run
    pg.get_by_test_id("stSidebarNav").get_by_text("Configure & Run", exact=True).click()
    yield pg
    context.close()


def _shot(page, name: str) -> None:
    """A screenshot of the whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it."""
    _settle(page)
    size = page.viewport_size
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height), 8000))})
    _settle(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    page.set_viewport_size(size)


def _no_exception(page) -> None:
    shown = page.locator("[data-testid='stException']")
    assert shown.count() == 0, shown.all_inner_texts()


def _goto(page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
    page.get_by_role("heading", name=title, level=1).wait_for()


def test_app_loads_on_configure_and_run(page):
    page.get_by_role("heading", name="Configure & Run", level=1).wait_for()
    page.get_by_text("Evaluation settings").wait_for()
    _no_exception(page)
    _shot(page, "01_configure_run")


def test_use_case_details_shows_model_card(page):
    _goto(page, "Use Case Details")
    _shot(page, "02_usecase_details")
    page.get_by_role("tab", name="Model card").click()
    page.get_by_text("Test ROC-AUC").first.wait_for()
    _no_exception(page)
    _shot(page, "03_usecase_model_card")
    page.get_by_role("tab", name="Personas").click()
    page.get_by_test_id("stExpander").first.click()
    page.get_by_text("Priorities").first.wait_for()
    _shot(page, "04_usecase_personas")
    page.get_by_role("tab", name="Data quality").click()
    page.get_by_text("Data-quality report").wait_for()
    _shot(page, "05_usecase_data_quality")


def test_documentation_renders_docs(page):
    _goto(page, "Documentation")
    page.get_by_role("heading", name="How HEXEval works").first.wait_for()
    _no_exception(page)
    _shot(page, "06_documentation")


def test_results_without_a_run_of_this_session_offers_the_saved_ones(page):
    _goto(page, "Results")  # no run made in this session, but saved runs of heart on the server
    page.get_by_text("No run was made in this session yet, but 2 saved runs of this use case are on this server"
                     ).wait_for()
    page.get_by_role("button", name="Open the newest saved run").wait_for()
    _no_exception(page)
    _shot(page, "07_results_empty")


def test_sidebar_use_case_survives_navigation(page):
    _goto(page, "Configure & Run")
    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name="Credit Risk (Finance)").click()
    page.get_by_text("Predict whether a consumer loan will default").first.wait_for()
    _goto(page, "Use Case Details")
    page.get_by_role("heading", name="Credit Risk (Finance)").wait_for()
    _no_exception(page)
    _shot(page, "08_credit_risk_details")
    _goto(page, "Documentation")
    _goto(page, "Use Case Details")
    page.get_by_role("heading", name="Credit Risk (Finance)").wait_for()


def _pick_usecase(page, title: str) -> None:
    page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=title).click()
    _settle(page)


def _tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    _settle(page)


def _set_number(page, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    _settle(page)


def _small_settings(page) -> None:
    """The smallest run Configure & Run allows: 5 cases, 200 perturbation samples, 2 Anchor and DiCE cases,
    1 case per persona."""
    page.get_by_role("slider").first.focus()
    page.keyboard.press("Home")  # the smallest sample size (5)
    _settle(page)
    _set_number(page, "Perturbation samples", 200)
    for k in (0, 1):
        box = page.get_by_label("Max instances", exact=True).nth(k)
        box.fill("2")
        box.press("Enter")
        _settle(page)
    _set_number(page, "Instances per persona", 1)


def _run_small_and_open_results(page, usecase: str, *, timeout: int) -> None:
    """Run ``usecase`` at :func:`_small_settings` from Configure & Run and open its Results."""
    _goto(page, "Configure & Run")
    _pick_usecase(page, usecase)
    _small_settings(page)
    page.get_by_role("button", name="Run evaluation").click()
    page.get_by_text("See the results").wait_for(timeout=timeout)
    _no_exception(page)
    page.get_by_text("See the results").click()
    page.get_by_role("heading", name="Results", level=1).wait_for()


def test_run_heart_disease_then_results_and_recommendations(page):
    _goto(page, "Configure & Run")
    _pick_usecase(page, "Heart Disease (Healthcare)")
    _small_settings(page)
    page.get_by_role("button", name="Run evaluation").click()
    page.get_by_text("See the results").wait_for(timeout=120_000)
    _no_exception(page)
    # the sidebar, drawn before the run started, names the finished run at once (no click needed)
    viewed = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Run being viewed")
    sync_api.expect(viewed).to_have_value("Latest run of this session", timeout=5_000)
    _shot(page, "09_run_complete")
    page.get_by_text("See the results").click()
    page.get_by_role("heading", name="Results", level=1).wait_for()
    page.get_by_text("5 cases sampled", exact=False).first.wait_for()
    _tab(page, "Persona ratings")
    page.get_by_text("Ratings on six dimensions (all personas)").wait_for()
    page.locator(".js-plotly-plot .polar").first.wait_for()
    _no_exception(page)
    _shot(page, "09a_run_results_radar")
    _goto(page, "Recommendations")
    page.get_by_text("Who should see what").wait_for()
    _no_exception(page)
    _shot(page, "09b_run_recommendations")


def test_run_wine_three_classes_names_the_explained_class(page):
    """A 3-class use case in the same browser session: the run, results, case explorer and recommendations
    name the task and the class each case is explained for."""
    _run_small_and_open_results(page, "Wine Cultivars (Food chemistry, 3 classes)", timeout=120_000)
    page.get_by_text("3-class classification").first.wait_for()
    _tab(page, "Case explorer")
    page.get_by_text(re.compile(r"explains why cultivar \d rather than the other two")).first.wait_for()
    _no_exception(page)
    _shot(page, "09c_wine_case_explorer")
    _goto(page, "Recommendations")
    page.get_by_text("Who should see what").wait_for()
    page.get_by_text("3-class classification").first.wait_for()
    _no_exception(page)


def test_run_diabetes_regression_names_the_quantity_and_the_side(page):
    """A regression use case in the same browser session: the run, results, case explorer and recommendations
    say it is a regression and explain why each prediction is this high or this low."""
    _run_small_and_open_results(page, "Diabetes Progression (Endocrinology, regression)", timeout=180_000)
    page.get_by_text(re.compile(r"Regression of .*each case is explained on one side of a band")).first.wait_for()
    _tab(page, "Case explorer")
    page.get_by_text(re.compile(r"explains why the prediction is this (high|low) \((at least|at most) ")).first.wait_for()
    _no_exception(page)
    _shot(page, "09d_diabetes_case_explorer")
    _goto(page, "Recommendations")
    page.get_by_text("Who should see what").wait_for()
    _no_exception(page)


def test_saved_run_loads_into_results_and_recommendations(page):
    _goto(page, "Configure & Run")
    _pick_usecase(page, "Heart Disease (Healthcare)")
    page.get_by_text("Load previous results").wait_for()
    _shot(page, "10_saved_runs")
    choose_saved_run(page)
    page.get_by_role("button", name="Load", exact=True).click()
    page.get_by_role("heading", name="Results", level=1).wait_for()
    page.get_by_text("Rules (Anchor)", exact=True).first.wait_for()
    page.get_by_text("Technical metrics").first.wait_for()
    _no_exception(page)
    _shot(page, "11_results_technical")
    _tab(page, "Persona ratings")
    page.get_by_text("Ratings on six dimensions (all personas)").wait_for()
    _shot(page, "12_results_ratings")
    _tab(page, "Case explorer")
    page.get_by_text(re.compile(r"^As .* read it$")).first.wait_for()  # the heading names who read it
    _shot(page, "13_results_case_explorer")
    _goto(page, "Recommendations")
    page.get_by_text("Who should see what").wait_for()
    page.locator(".js-plotly-plot").first.wait_for()
    _no_exception(page)
    _shot(page, "14_recommendations")


def test_two_saved_runs_compare(page):
    _goto(page, "Compare runs")  # its own page since issue 23
    page.get_by_role("combobox", name="Run A", exact=True).wait_for()
    for label, day in (("Run A", "2 Jan,"), ("Run B", "3 Jan,")):  # exactly two runs, chosen explicitly
        page.get_by_role("combobox", name=label, exact=True).click()
        page.keyboard.type(day)  # the list holds every saved run (other use cases too); typing filters it
        page.get_by_role("option", name=re.compile(day)).first.click()
        _settle(page)
    page.get_by_role("button", name="Compare", exact=True).click()
    page.get_by_text("Settings that differ").wait_for()
    page.get_by_text("Recommendation changes").wait_for()
    _no_exception(page)
    _shot(page, "15_compare_runs")


def test_the_run_being_viewed_stays_when_its_label_changes(page, outputs_dir):
    """A study created on the run being viewed adds "with a study" to its label. The picker kept the label it showed
    as its value, so on the next rerun it matched no run and fell back to "No run yet in this session"; Results then
    said no run had been made. (The picker now shows a short label and the full one under it.)"""
    viewed_run = next(p for p in (outputs_dir / "heart").iterdir()
                      if json.loads((p / "run.json").read_text(encoding="utf-8"))["created"].startswith("2026-01-02"))
    _goto(page, "Results")
    picker = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Run being viewed")
    choose_option(page, picker, name=re.compile("2 Jan"))
    page.get_by_text("run of 2 January 2026", exact=False).first.wait_for()
    from ui_run_fixtures import mark_with_study
    marker = mark_with_study(viewed_run)
    try:
        for _ in range(2):  # a rerun draws the new label; the next one used to lose the run
            _goto(page, "Recommendations")
            _goto(page, "Results")
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_text(re.compile(r"^2 Jan 2026, 09:30 · .* · with a study$")).wait_for()  # the full label
        sync_api.expect(picker).to_have_value(re.compile("2 Jan"))
        page.get_by_text("run of 2 January 2026", exact=False).first.wait_for()
        assert page.get_by_text("No run was made in this session yet").count() == 0
        _no_exception(page)
    finally:
        shutil.rmtree(marker.parent)
