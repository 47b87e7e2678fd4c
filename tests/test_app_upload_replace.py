"""Custom upload after a first validated upload: a page revisit keeps it (and says so); a new,
incomplete or broken upload is never shown as "Ready to run" with the earlier files."""

from __future__ import annotations

import re

from app_helpers import app, texts
from hexeval_engine import get_usecase

HEART = get_usecase("heart")
JUNK_CSV = bytes(range(256)) * 4


def _validated() -> "AppTest":  # noqa: F821 - streamlit.testing type
    at = app(usecase="custom")
    at.file_uploader(key="upload_model").set_value(("churn.skops", HEART.model_path.read_bytes(),
                                                    "application/octet-stream"))
    at.file_uploader(key="upload_csv").set_value(("patients.csv", HEART.data_path.read_bytes(), "text/csv"))
    at.run()
    next(s for s in at.selectbox if s.label == "Target column").set_value("target").run()
    # heart.csv as is leaks duplicates into the test split: one click drops them before splitting.
    next(b for b in at.button if b.label == "Drop duplicate rows before splitting").click().run()
    assert any("Ready to run" in s.value and "positive class = `1`" in s.value for s in at.success), texts(at)
    return at


def _run_offered(at) -> bool:
    return any(s.label.startswith("Instances to explain") for s in at.slider)


def test_replacing_the_csv_with_a_broken_file_withdraws_the_earlier_validation():
    at = _validated()
    at.file_uploader(key="upload_model").set_value(None)  # as after a page switch
    at.file_uploader(key="upload_csv").set_value(("not_a_csv.csv", JUNK_CSV, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("is not a CSV" in e.value for e in at.error), [e.value for e in at.error]
    assert not any("Ready to run" in s.value for s in at.success)
    assert not _run_offered(at)
    assert "missing: model file" in texts(at)


def test_empty_form_keeps_the_validated_upload_and_names_its_files():
    at = _validated()
    at.file_uploader(key="upload_model").set_value(None)
    at.file_uploader(key="upload_csv").set_value(None).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Ready to run" in s.value for s in at.success) and _run_offered(at)
    shown = texts(at)
    assert "validated earlier in this session" in shown and "churn.skops" in shown and "patients.csv" in shown


def test_data_quality_warnings_are_counted_on_the_collapsed_report():
    at = _validated()  # heart.csv: 723 duplicate rows, dropped by the remedy
    report = next(e for e in at.expander if e.label.startswith("Data-quality report"))
    assert re.fullmatch(r"Data-quality report \(\d+ warnings?\)", report.label), report.label
    assert "Dropped 723 duplicate rows before splitting" in texts(at)


def test_without_a_persona_file_the_page_names_the_generic_personas_and_the_run_uses_them():
    from hexeval_engine.paths import generic_personas_path
    from hexeval_ui.run_view import _inputs

    at = _validated()
    shown = texts(at)
    assert "generic, domain-neutral personas rate" in shown
    for name in ("Emery Nakamura", "Quinn Okonkwo (Affected End User)"):
        assert name in shown
    upload = at.session_state["upload"]
    inputs = _inputs(None, upload, {"personas": {"enabled": True}})
    assert inputs["config_overrides"]["personas"] == {"enabled": True, "file": str(generic_personas_path())}
