"""Real-browser acceptance test of a custom upload's whole life: upload a model and a CSV, remedy the leak,
run, restart the server, reopen the run from the sidebar, open the case explorer, compare it with a bundled
run, and delete it. The server comes from ``local_server``, the browser from the session's ``chromium``
fixture; screenshots go to test-artifacts/."""

from __future__ import annotations

import re
from contextlib import contextmanager

from browser_env import browser_marks, playwright_sync_api
from local_server import streamlit_app
from test_browser_e2e import _goto, _no_exception, _settle, _shot, _small_settings

pytestmark = browser_marks()
sync_api = playwright_sync_api()


@contextmanager
def _session(chromium, url):
    """A new browser session (its own cookies and storage) on Configure & Run."""
    context = chromium.new_context(viewport={"width": 1440, "height": 1600})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(url)  # the app opens on Start; these steps begin on Configure & Run
    page.get_by_test_id("stSidebarNav").get_by_text("Configure & Run", exact=True).click()
    page.get_by_role("heading", name="Configure & Run", level=1).wait_for()
    try:
        yield page
    finally:
        context.close()


def _pick(page, label: str, option) -> None:
    page.get_by_test_id("stSidebar").get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option).first.click()
    _settle(page)


def _upload(page, label: str, path) -> None:
    page.get_by_test_id("stFileUploader").filter(has_text=label).locator("input[type=file]").set_input_files(str(path))
    _settle(page)


def test_custom_upload_run_survives_a_restart_and_compares_and_deletes(tmp_path, chromium):
    from hexeval_engine import get_usecase
    from hexeval_engine.runs.store import list_runs
    from ui_run_fixtures import save_fixture_run

    outputs = tmp_path / "outputs"
    bundled = save_fixture_run(outputs, created="2026-01-02T09:30:00+00:00")  # a bundled heart run to compare with
    heart = get_usecase("heart")
    upload = tmp_path / "files"
    upload.mkdir()
    model, csv = upload / "ward_model.skops", upload / "ward_patients.csv"
    model.write_bytes(heart.model_path.read_bytes())
    csv.write_bytes(heart.data_path.read_bytes())
    log = tmp_path / "server.log"

    with streamlit_app(outputs, log) as url, _session(chromium, url) as page:
        _pick(page, "Use case", "Custom Upload")
        _upload(page, "Model file", model)
        _upload(page, "Data (CSV", csv)
        page.get_by_text("202 of the 205 test rows also appear among the training rows").wait_for()
        assert page.get_by_role("button", name="Run evaluation").is_disabled()  # the leak gates the run
        _shot(page, "20_upload_leak_above_run")
        page.get_by_role("button", name="Drop duplicate rows before splitting").click()
        page.get_by_text("Ready to run").wait_for()
        # the forest's own pipeline one-hot encodes heart's number-coded columns: the check says they are categories
        page.get_by_test_id("stAlert").filter(has_text="sex, cp, fbs, restecg, exang, slope and thal hold numbers, but "
                                              "the model's own preprocessing encodes them as categories").wait_for()
        assert page.get_by_text("Random forest (ColumnTransformer → RandomForestClassifier)").count() >= 1
        _shot(page, "20b_upload_categories_note")
        name = page.get_by_role("textbox", name="Run name (optional)")
        name.fill("Ward check")
        name.press("Enter")
        _settle(page)
        _small_settings(page)
        page.get_by_role("button", name="Run evaluation").click()
        page.get_by_text("See the results").wait_for(timeout=180_000)
        _no_exception(page)
        _shot(page, "21_upload_run_complete")
    (custom,) = [r for r in list_runs(root=outputs) if r.usecase.startswith("custom-")]
    assert custom.usecase == "custom-ward-check" and (custom.path / "input_data.csv").is_file()

    with streamlit_app(outputs, log) as url, _session(chromium, url) as page:  # a restarted server, a new session
        _pick(page, "Use case", "Custom Upload")
        _pick(page, "Run being viewed", re.compile("Ward check"))
        _goto(page, "Results")
        page.get_by_role("tab", name="Case explorer").click()
        _settle(page)
        page.get_by_text(re.compile(r"^As .* read it$")).first.wait_for()  # the heading names who read it
        page.get_by_text(re.compile("^Values of case")).first.wait_for()  # always shown since issue 23 (no expander)
        page.locator("[data-testid='stTable']:visible").first.wait_for()  # the case's feature values (a table that wraps)
        _settle(page)
        assert page.get_by_text("Feature values are not available").count() == 0  # read from the run's copy
        _no_exception(page)
        _shot(page, "22_upload_case_explorer_after_restart")

        _goto(page, "Compare runs")  # its own page since issue 23
        page.get_by_role("combobox", name="Run A", exact=True).wait_for()
        # exactly two runs, chosen explicitly: the upload's run as A, the bundled heart run as B
        for label, option in (("Run A", "Ward check"), ("Run B", "2 Jan,")):
            page.get_by_role("combobox", name=label, exact=True).click()
            page.keyboard.type(option)  # typing filters the list of every saved run
            page.get_by_role("option", name=re.compile(option)).first.click()
            _settle(page)
        page.get_by_role("button", name="Compare", exact=True).click()
        page.get_by_text("Recommendation changes").wait_for()
        page.get_by_text("The runs belong to different use cases").wait_for()
        _no_exception(page)
        _shot(page, "23_upload_compared_with_bundled")

        _goto(page, "Configure & Run")
        assert page.get_by_role("button", name="Delete…").is_disabled()  # nothing is chosen for the user
        page.get_by_role("combobox", name="Saved run", exact=True).click()
        page.get_by_role("option", name=re.compile("Ward check")).first.click()
        _settle(page)
        page.get_by_role("button", name="Delete…").click()
        page.get_by_role("button", name="Delete permanently").click()
        page.get_by_text(re.compile(r"^Deleted the run Ward check \(")).wait_for()  # named as listed, not by its id
        _no_exception(page)
        _shot(page, "24_upload_run_deleted")
    assert not custom.path.exists() and bundled.exists()
