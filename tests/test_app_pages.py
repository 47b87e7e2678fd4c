"""Dashboard pages through streamlit.testing.v1.AppTest (no browser, no network)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from hexeval_engine import get_usecase
from app_helpers import app, open_page, texts
from ui_run_fixtures import save_fixture_run

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["app_pages/configure_run.py", "app_pages/usecase_details.py", "app_pages/results.py", "app_pages/recommendations.py",
         "app_pages/documentation.py"]




@pytest.mark.parametrize("usecase", ["heart", "credit_risk", "custom"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_in_the_empty_state(page, usecase):
    at = open_page(app(usecase=usecase), page)
    assert at.title and at.title[0].value
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("page", ["app_pages/results.py", "app_pages/recommendations.py"])
def test_result_pages_say_what_to_do_when_there_is_no_run(page):
    at = open_page(app(), page)
    assert any("run an evaluation on Configure & Run" in i.value for i in at.info)
    assert any("configure_run" in str(link.proto.page) for link in at.get("page_link"))


def test_use_case_details_shows_the_heart_model_card():
    card = json.loads(get_usecase("heart").model_card_path.read_text())
    at = open_page(app(usecase="heart"), "app_pages/usecase_details.py")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Test ROC-AUC"] == f"{card['test_roc_auc']:.3f}"
    assert metrics["F1"] == f"{card['test_f1']:.3f}"
    assert metrics["Duplicate rows"] == "723"  # the data-quality report of the bundled CSV
    markdown = " ".join(m.value for m in at.markdown)
    assert "**Random forest (" in markdown and "RandomForestClassifier)" in markdown  # words first, class after
    assert len(at.expander) == 4  # the four heart personas
    assert any("sample_size" in c.value for c in at.code)  # the full config as YAML


def test_sidebar_choices_survive_page_switches():
    at = app(usecase="credit_risk", rater_kind="compatible")
    for page in PAGES:
        open_page(at, page)
        assert at.session_state["usecase"] == "credit_risk"
        assert at.session_state["rater_kind"] == "compatible"
    open_page(at, "app_pages/usecase_details.py")
    assert at.header[0].value == "Credit Risk (Finance)"


def test_documentation_renders_every_markdown_file_under_a_short_tab_name():
    """Every docs/*.md has a tab (studies.md and plugins.md too) with a name that fits a tab bar; the document's
    full title heads the tab (the earlier walk: ten long titles such as "The simulated rater (simulated-v4)")."""
    at = open_page(app(), "app_pages/documentation.py")
    tabs = [t.label for t in at.tabs]
    assert tabs == ["How it works", "Metrics", "Recommendations", "Narratives", "Simulated rater",
                    "Studies with people", "Multi-class and regression", "Configuration", "Your own explainer", "Safety"]
    headers = [h.value for h in at.header]
    for md in (ROOT / "docs").glob("*.md"):
        first = md.read_text(encoding="utf-8").splitlines()[0]
        assert first.removeprefix("# ").strip() in headers, md.name
    assert len(tabs) == len(list((ROOT / "docs").glob("*.md")))
    assert "markdown files in `docs/`" not in texts(at)  # a folder of the server is no concern of the reader


# ----- custom upload ---------------------------------------------------------------------------

HEART = get_usecase("heart")


def _upload(at: AppTest, model: tuple[str, bytes], csv: bytes, target: str = "target") -> AppTest:
    at.file_uploader(key="upload_model").set_value((model[0], model[1], "application/octet-stream"))
    at.file_uploader(key="upload_csv").set_value(("patients.csv", csv, "text/csv"))
    at.run()
    picker = next(s for s in at.selectbox if s.label == "Target column")
    picker.set_value(target).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _custom_app_with_previous_results() -> AppTest:
    return app(usecase="custom", session_runs={"heart": "/runs/earlier"})


def test_valid_upload_passes_validation_and_enables_run_settings():
    at = _custom_app_with_previous_results()
    distinct = pd.read_csv(HEART.data_path).drop_duplicates().to_csv(index=False).encode()  # no leaking rows
    _upload(at, ("model.skops", HEART.model_path.read_bytes()), distinct)
    assert not at.error, [e.value for e in at.error]
    assert any("Ready to run" in s.value for s in at.success)
    assert any(s.label.startswith("Instances to explain") for s in at.slider)


def test_single_class_csv_is_an_error_and_keeps_earlier_results():
    frame = pd.read_csv(HEART.data_path)
    one_class = frame[frame["target"] == 1].to_csv(index=False).encode()
    at = _custom_app_with_previous_results()
    _upload(at, ("model.skops", HEART.model_path.read_bytes()), one_class)
    assert any("only one class" in e.value for e in at.error), [e.value for e in at.error]
    assert not any(s.label.startswith("Instances to explain") for s in at.slider)  # Run is not offered
    assert at.session_state["session_runs"] == {"heart": "/runs/earlier"}


class _Sentinel:
    """Unpickling this creates a file: proof that a refused pickle was never loaded."""

    def __init__(self, path: Path):
        self.path = path

    def __reduce__(self):
        return (open, (str(self.path), "w"))


def test_pickle_upload_is_refused_unless_the_operator_allows_it(tmp_path):
    sentinel = tmp_path / "pickle-was-loaded"
    at = _custom_app_with_previous_results()
    # why pickles are refused, in words: the switch's name is an operator detail, kept for docs/safety.md
    assert any("Pickle uploads are turned off on this server" in c.value and "ask the operator" in c.value
               for c in at.caption)
    assert "HEXEVAL_ALLOW_PICKLE_UPLOADS" not in texts(at)
    # Every file type reaches HEXEval's own check (not Streamlit's bare "files are not allowed"), which refuses a
    # pickle by its name, before reading it, and says what to upload instead.
    at.file_uploader(key="upload_model").set_value(("model.pkl", pickle.dumps(_Sentinel(sentinel)),
                                                    "application/octet-stream"))
    at.file_uploader(key="upload_csv").set_value(("patients.csv", HEART.data_path.read_bytes(), "text/csv")).run()
    next(s for s in at.selectbox if s.label == "Target column").set_value("target").run()
    assert not sentinel.exists()
    assert any("this server does not accept" in e.value and "skops.io.dump" in e.value
               for e in at.error), [e.value for e in at.error]
    assert not at.session_state["upload"].ok and not any("Ready to run" in s.value for s in at.success)
    assert at.session_state["session_runs"] == {"heart": "/runs/earlier"}


def test_operator_switch_is_shown_when_pickle_uploads_are_allowed(monkeypatch):
    monkeypatch.setenv("HEXEVAL_ALLOW_PICKLE_UPLOADS", "1")
    at = _custom_app_with_previous_results()
    assert any("enabled by the server operator" in c.value for c in at.caption)


def test_corrupt_skops_file_is_an_error():
    at = _custom_app_with_previous_results()
    _upload(at, ("model.skops", b"this is not a zip archive"), HEART.data_path.read_bytes())
    assert any("not a skops model" in e.value for e in at.error), [e.value for e in at.error]


def test_a_saved_run_is_listed_and_loads_into_results(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXEVAL_OUTPUTS", str(tmp_path / "runs"))
    folder = save_fixture_run(tmp_path / "runs")
    at = app(usecase="heart")
    assert any(s.label == "Saved run" for s in at.selectbox)
    at.selectbox(key="saved_run_choice").set_value(str(folder)).run()
    next(b for b in at.button if b.label == "Load").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["viewed_run"] == str(folder)
    for page in ("app_pages/results.py", "app_pages/recommendations.py"):
        open_page(at, page)
        assert not at.error, [e.value for e in at.error]
        assert not any("No results yet" in i.value or "No recommendations yet" in i.value for i in at.info)
        assert any("Heart Disease (Healthcare)" in m.value for m in at.markdown[:3])
    assert at.markdown[0].value.startswith("**Verdict:** SHAP for the Lead Cardiologist (close call); DiCE for the Patient"), \
        "the answer is the first thing on Recommendations"


def test_a_deleted_run_shows_the_engine_error_not_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXEVAL_OUTPUTS", str(tmp_path / "runs"))
    at = app(usecase="heart", session_runs={"heart": str(tmp_path / "runs" / "heart" / "gone")})
    open_page(at, "app_pages/results.py")
    assert any("does not exist" in e.value for e in at.error), [e.value for e in at.error]


def test_every_table_of_use_case_details_has_capitalised_headers():
    """The walk: lower-case headers ("aspect", "in this use case", "feature", "kind", "precision")."""
    at = open_page(app(), "app_pages/usecase_details.py")
    assert not at.exception
    headers = [c for d in at.dataframe for c in d.value.columns] + [c for t in at.table for c in t.value.columns]
    lower = [c for c in headers if str(c)[:1].islower()]
    assert headers and not lower, lower
