"""Custom upload: data problems that would mislead sit above Run with their counts and a one-click remedy;
the choice reaches the run; wrong file types are named with the accepted formats and never "Ready to run"."""

from __future__ import annotations

import json
import pickle

import pandas as pd

from app_helpers import app, button, open_page, texts
from hexeval_engine import get_usecase

HEART = get_usecase("heart")


def _upload(at, model=("heart_model.skops", None), csv=("heart.csv", None), target="target"):
    at.file_uploader(key="upload_model").set_value((model[0], model[1] or HEART.model_path.read_bytes(),
                                                    "application/octet-stream"))
    at.file_uploader(key="upload_csv").set_value((csv[0], csv[1] or HEART.data_path.read_bytes(), "text/csv"))
    at.run()
    picker = next((s for s in at.selectbox if s.label == "Target column"), None)
    if picker is not None and target:
        picker.set_value(target).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _run_button(at):
    return button(at, "Run evaluation")


def test_heart_csv_as_is_shows_the_leak_above_run_and_one_click_drops_the_duplicates():
    at = _upload(app(usecase="custom"))
    assert not any("Ready to run" in s.value for s in at.success)
    assert any("202 of the 205 test rows also appear among the training rows" in e.value for e in at.error), texts(at)
    assert _run_button(at).disabled  # the leak gates the run
    button(at, "Drop duplicate rows before splitting").click().run()
    assert any("Ready to run" in s.value for s in at.success) and not _run_button(at).disabled
    assert any("Duplicate rows are dropped before splitting (723 rows)" in s.value for s in at.success)
    check = at.session_state["upload"]
    assert check.data_options == {"drop_duplicates": True}
    assert check.performance["leaking_test_rows"] == 0 and check.performance["n_test"] == 61
    from hexeval_ui.run_view import _inputs

    inputs = _inputs(None, check, {"personas": {"enabled": True}})
    assert inputs["config_overrides"]["data"] == {"drop_duplicates": True}  # recorded in the run's config
    assert inputs["keep_inputs"] is True


def test_accepting_the_leak_enables_run_without_hiding_it():
    at = _upload(app(usecase="custom"))
    next(c for c in at.checkbox if c.label.startswith("Run anyway")).check().run()
    assert not _run_button(at).disabled
    assert any("202 of the 205 test rows" in e.value for e in at.error)


def test_implausible_values_can_be_excluded_or_clipped_with_one_click():
    frame = pd.read_csv(HEART.data_path).drop_duplicates()
    frame.loc[frame.index[:3], "chol"] = 99999  # impossible cholesterol
    at = _upload(app(usecase="custom"), csv=("odd.csv", frame.to_csv(index=False).encode()))
    assert any("3 rows have implausible values: chol (3" in w.value for w in at.warning), texts(at)
    button(at, "Exclude these rows").click().run()
    check = at.session_state["upload"]
    assert check.data_options == {"implausible_values": "exclude"} and check.quality.implausible_rows_excluded == 3
    button(at, "Keep implausible values").click().run()
    button(at, "Clip to the nearest plausible value").click().run()
    assert at.session_state["upload"].quality.implausible_values_clipped == 3


def test_a_pickle_is_refused_with_the_accepted_formats_and_never_sits_beside_ready_to_run(tmp_path):
    at = app(usecase="custom")
    _upload(at, model=("model.pkl", pickle.dumps({"not": "loaded"})))
    errors = " ".join(e.value for e in at.error)
    assert "pickle/joblib file, which this server does not accept" in errors and "skops.io.dump" in errors
    assert not any("Ready to run" in s.value for s in at.success)
    assert not any(b.label == "Run evaluation" for b in at.button)


def test_an_excel_workbook_and_an_unknown_model_type_are_named():
    at = app(usecase="custom")
    _upload(at, model=("model.onnx", b"onnx"), csv=("data.xlsx", b"PK\x03\x04 workbook"), target=None)
    errors = " ".join(e.value for e in at.error)
    assert "spreadsheet workbook" in errors and "export the sheet as CSV" in errors
    assert not any("Ready to run" in s.value for s in at.success)


def test_a_bare_label_encoded_model_runs_from_the_dashboard_with_the_encoding_choice(tmp_path):
    from label_encoded_model import label_encoded_credit_model

    model_path, data_path = label_encoded_credit_model(tmp_path, rows=1500)
    at = app(usecase="custom")
    _upload(at, model=(model_path.name, model_path.read_bytes()), csv=(data_path.name, data_path.read_bytes()),
            target="loan_status")
    assert any("data.categorical_encoding: label" in e.value for e in at.error), texts(at)
    at.radio(key="upload_encoding").set_value("label").run()
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["upload"].data_options == {"categorical_encoding": "label"}


def test_a_custom_run_is_listed_in_a_new_session_and_opens_with_its_case_values(tmp_path, monkeypatch):
    import shutil

    from app_helpers import open_page
    from hexeval_engine import evaluate
    from test_evaluate_e2e import SMALL

    monkeypatch.setenv("HEXEVAL_OUTPUTS", str(tmp_path / "runs"))
    files = tmp_path / "upload"
    files.mkdir()
    model, csv = shutil.copy(HEART.model_path, files / "m.skops"), shutil.copy(HEART.data_path, files / "ward.csv")
    result = evaluate(model, csv, "target", config_overrides=SMALL | {"personas": {"enabled": False}},
                      run_name="Ward check", keep_inputs=True)
    shutil.rmtree(files)  # the upload's temporary files are gone; the run kept copies
    at = app(usecase="custom")  # a new session, as after a server restart
    at.session_state["viewed_run"] = str(result.output_path)  # picked in the sidebar
    at.run()
    picker = next(s for s in at.sidebar.selectbox if s.label == "Run being viewed")
    assert picker.value == str(result.output_path) and "Ward check" in picker.format_func(picker.value)
    size = json.loads((result.output_path / "run.json").read_text())["counts"]["sample_size"]
    full = [c.value for c in at.sidebar.caption if "Ward check" in c.value]  # the whole label, under the picker
    assert len(full) == 1 and full[0].endswith(f" · {size} cases") and "n=" not in full[0], full
    assert any("Ward check" in str(name) for name in at.dataframe[0].value["Name"])  # Load previous results
    at = open_page(at, "app_pages/results.py")
    assert not at.error, [e.value for e in at.error]
    assert "Feature values are not available" not in texts(at)


def test_coded_classes_of_an_upload_can_be_named_and_say_class_1_otherwise():
    """The earlier walk: an upload whose target is coded 0/1 read "The model predicts: 1"."""
    from hexeval_ui.class_names_view import KEYS, class_name_overrides

    at = _upload(app(usecase="custom"))
    button(at, "Drop duplicate rows before splitting").click().run()
    inputs = {t.label: t for t in at.text_input if t.label.startswith("Class ")}
    assert list(inputs) == ["Class 0 means", "Class 1 means"]
    assert any("“class 1 of target”" in c.value for c in at.caption)  # what texts say without names
    inputs["Class 0 means"].set_value("no heart disease")
    inputs["Class 1 means"].set_value("heart disease").run()
    check = at.session_state["upload"]
    named = class_name_overrides(check, [at.session_state[k] for k in KEYS])
    assert named == {"domain": {"negative_outcome": "no heart disease", "positive_outcome": "heart disease"}}
    from hexeval_engine.inputs import load_inputs

    # the names reach the run's wording exactly as the run view passes them
    loaded = load_inputs(check.model_path, check.data_path, check.target, None,
                         {"data": {"target": check.target, **check.data_options}, **named})
    assert (loaded.config.domain.positive_outcome, loaded.config.domain.negative_outcome) == \
        ("heart disease", "no heart disease")
    assert class_name_overrides(check, ["", ""]) == {}


def test_a_multi_class_upload_with_coded_classes_gets_a_name_for_each_class_and_the_run_uses_them(tmp_path):
    """The earlier walk: a multi-class upload (wine's cultivars coded 1, 2, 3) had no name inputs, the "Ready" line
    called class 2 its "positive class", and names typed for a binary target were not shown there either."""
    wine = get_usecase("wine")
    at = _upload(app(usecase="custom"), model=("wine_model.skops", wine.model_path.read_bytes()),
                 csv=("wine.csv", wine.data_path.read_bytes()), target="cultivar")
    inputs = {t.label: t for t in at.text_input if t.label.startswith("Class ")}
    assert list(inputs) == ["Class 1 means", "Class 2 means", "Class 3 means"], texts(at)
    ready = next(s.value for s in at.success if "Ready to run" in s.value)
    assert "3 classes: `1`, `2`, `3`" in ready and "positive class" not in ready
    # the caption says how an unnamed class reads, as the run then writes it (said "class 3 of cultivar" before)
    assert any("otherwise they read \u201ccultivar 3\u201d" in c.value for c in at.caption), texts(at)
    inputs["Class 1 means"].set_value("Barolo")
    inputs["Class 3 means"].set_value("  Barbera ").run()
    ready = next(s.value for s in at.success if "Ready to run" in s.value)
    assert "3 classes: `1` “Barolo”, `2`, `3` “Barbera”" in ready
    assert not at.exception
    from hexeval_ui.class_names_view import class_name_overrides
    from hexeval_engine.inputs import load_inputs
    from hexeval_engine.models.task import task_of

    at = open_page(at, "app_pages/usecase_details.py")  # the upload's model card, per class
    assert not at.exception and "**Target:** `cultivar` (3 classes: `1` “Barolo”, `2`, `3` “Barbera”)" in texts(at)
    check = at.session_state["upload"]
    named = class_name_overrides(check, ["Barolo", "", "Barbera"])  # as the run view reads the three inputs
    assert named == {"data": {"class_names": {"1": "Barolo", "3": "Barbera"}}}
    loaded = load_inputs(check.model_path, check.data_path, check.target, None,
                         {"data": {"target": check.target, **check.data_options, **named["data"]}})
    task = task_of(loaded.data, loaded.config)
    assert task.class_names[0] == "Barolo" and task.class_names[2] == "Barbera"
    assert task.class_names[1] == "cultivar 2"  # the unnamed one reads as the caption said


def test_names_typed_for_a_binary_target_show_in_the_ready_line():
    at = _upload(app(usecase="custom"))
    button(at, "Drop duplicate rows before splitting").click().run()
    assert any("(positive class = `1`)" in s.value for s in at.success)
    next(t for t in at.text_input if t.label == "Class 1 means").set_value("heart disease").run()
    assert any("(positive class = `1`, named “heart disease”)" in s.value for s in at.success), texts(at)
