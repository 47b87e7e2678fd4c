"""Runs of your own model and CSV are first-class: named after the files (or a typed name), listed like
bundled runs, reopenable after the uploaded files are gone, with a held-out model card."""

from __future__ import annotations

import shutil

from hexeval_engine import evaluate, get_usecase
from hexeval_engine.models.model_loading import file_sha256
from hexeval_engine.runs.inputs import data_file, model_file
from hexeval_engine.runs.compare import compare_runs
from hexeval_engine.runs.store import list_runs, load_run

from test_evaluate_e2e import SMALL

FAST = SMALL | {"personas": {"enabled": False}}


def _uploaded_heart(tmp_path):
    """The bundled heart model and CSV copied to a throw-away folder, as an upload would be."""
    heart = get_usecase("heart")
    folder = tmp_path / "upload"
    folder.mkdir()
    return shutil.copy(heart.model_path, folder / "heart_model.skops"), shutil.copy(heart.data_path, folder / "heart.csv")


def test_a_custom_run_keeps_its_inputs_and_is_listed_and_reopened_after_the_upload_is_gone(tmp_path):
    model_path, data_path = _uploaded_heart(tmp_path)
    sha = file_sha256(data_path)
    result = evaluate(model_path, data_path, "target", output_dir=tmp_path / "runs", config_overrides=FAST,
                      run_name="Ward 3 check", keep_inputs=True)
    shutil.rmtree(tmp_path / "upload")  # the session's temporary files are gone
    (info,) = list_runs(root=tmp_path / "runs")
    assert info.usecase == "custom-ward-3-check" and info.path == result.output_path
    run = load_run(info.path)
    assert run.manifest["usecase_title"] == "Ward 3 check (heart_model.skops on heart.csv)"
    data, model = data_file(run.path, run.manifest), model_file(run.path, run.manifest)
    assert data == run.path / "input_data.csv" and file_sha256(data) == sha == run.manifest["data"]["sha256"]
    assert model == run.path / "input_model.skops" and run.manifest["model"]["original_name"] == "heart_model.skops"


def test_without_a_name_the_run_is_named_after_the_csv_and_compares_with_a_bundled_run(tmp_path):
    model_path, data_path = _uploaded_heart(tmp_path)
    custom = evaluate(model_path, data_path, "target", output_dir=tmp_path / "runs", config_overrides=FAST)
    bundled = evaluate(usecase="heart", output_dir=tmp_path / "runs", config_overrides=FAST)
    assert custom.usecase == "custom-heart" and custom.manifest["usecase_title"] == "Custom: heart_model.skops on heart.csv"
    assert {r.usecase for r in list_runs(root=tmp_path / "runs")} == {"custom-heart", "heart"}
    diff = compare_runs(load_run(bundled.output_path), load_run(custom.output_path))
    assert any("different use cases" in w for w in diff["warnings"]) and not diff["metrics"].empty


def test_the_run_records_per_class_performance_on_held_out_rows(tmp_path):
    model_path, data_path = _uploaded_heart(tmp_path)
    leaky = evaluate(model_path, data_path, "target", output_dir=tmp_path / "runs", config_overrides=FAST, save=False)
    clean = evaluate(model_path, data_path, "target", output_dir=tmp_path / "runs", save=False,
                     config_overrides=FAST | {"data": {"drop_duplicates": True}})
    card_leaky, card = leaky.manifest["model"]["performance"], clean.manifest["model"]["performance"]
    assert card_leaky["leaking_test_rows"] > 150  # 202 of 205 test rows were training rows
    assert card["leaking_test_rows"] == 0 and card["n_test"] == 61
    assert [c["role"] for c in card["per_class"]] == ["negative", "positive"]
    assert sum(c["support"] for c in card["per_class"]) == 61 == sum(map(sum, card["confusion_matrix"]))
    assert card["accuracy"] < card_leaky["accuracy"]  # the leak inflated accuracy
    assert clean.manifest["data"]["quality"]["remedies"]["duplicates"].startswith("dropped 723")
