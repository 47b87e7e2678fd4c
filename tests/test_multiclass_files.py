"""A 3-class iris model as users bring it: a skops pipeline and an ONNX export (skl2onnx), from the API and
the CLI; and the clear refusals when the model's task does not match the target (issue 21)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from skl2onnx import to_onnx
from sklearn.datasets import load_iris
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from hexeval_engine import ModelError, evaluate
from hexeval_engine.cli.main import main as cli
from hexeval_engine.models.model_loading import load_model
from small_runs import QUICK


@pytest.fixture(scope="module")
def iris(tmp_path_factory):
    folder = tmp_path_factory.mktemp("iris")
    d = load_iris(as_frame=True)
    frame = d.frame.rename(columns=lambda c: c.replace(" (cm)", "").replace(" ", "_"))
    frame["species"] = frame.pop("target").map(dict(enumerate(d.target_names)))
    csv = folder / "iris.csv"
    frame.to_csv(csv, index=False)
    return frame.drop(columns="species"), frame["species"], csv, folder


def _species_named(run_dir) -> dict:
    manifest = json.loads((run_dir / "run.json").read_text())
    assert manifest["task"]["description"] == "3-class classification"
    assert set(manifest["task"]["explained_classes"].values()) <= {"setosa", "versicolor", "virginica"}
    return manifest


def test_skops_pipeline_from_the_api_and_the_cli(iris, tmp_path, capsys):
    X, y, csv, _ = iris
    path = tmp_path / "iris.skops"
    sio.dump(make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(X, y), path)
    result = evaluate(path, csv, "species", output_dir=tmp_path / "api", config_overrides=QUICK, rater="simulated")
    assert (result.technical.metrics["error"].fillna("") == "").all()
    assert result.persona_ratings is not None and (result.persona_ratings["status"] == "ok").all()
    manifest = _species_named(result.output_path)
    assert len(manifest["model"]["performance"]["confusion_matrix"]) == 3
    code = cli(["evaluate", str(path), str(csv), "--target", "species", "--no-personas",
                "--output", str(tmp_path / "cli")])
    shown = capsys.readouterr().out
    assert code == 0, shown
    assert "3-class classification" in shown
    (run_dir,) = [p.parent for p in (tmp_path / "cli").rglob("run.json")]
    _species_named(run_dir)


def test_onnx_export_of_a_three_class_model(iris, tmp_path):
    X, y, csv, _ = iris
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X.to_numpy(np.float32), y)
    path = tmp_path / "iris.onnx"
    path.write_bytes(to_onnx(forest, X.to_numpy(np.float32)[:1]).SerializeToString())  # with ZipMap (labels)
    model = load_model(path)
    assert model.n_classes == 3 and list(model.estimator.classes_) == ["setosa", "versicolor", "virginica"]
    expected = forest.predict_proba(X.to_numpy(np.float32))
    np.testing.assert_allclose(model.class_probabilities(X), expected, atol=1e-5)
    result = evaluate(path, csv, "species", output_dir=tmp_path / "runs", config_overrides=QUICK,
                      rater="simulated")
    assert (result.technical.metrics["error"].fillna("") == "").all()
    predicted = forest.predict(result.data.X_test.iloc[result.technical.instance_ids].to_numpy(np.float32))
    assert list(result.technical.explained_classes.values()) == list(predicted)
    _species_named(result.output_path)


def test_task_mismatches_name_both_sides_and_the_fix(iris, tmp_path, capsys):
    X, y, csv, _ = iris
    two = tmp_path / "two.skops"
    sio.dump(LogisticRegression(max_iter=500).fit(X, y == "setosa"), two)
    with pytest.raises(ModelError) as err:
        evaluate(two, csv, "species", save=False)
    assert "2 classes (False and True)" in str(err.value)
    assert "the target 'species' has 3 classes ('setosa', 'versicolor' and 'virginica')" in str(err.value)
    assert "Use a model trained on this 3-class target" in str(err.value)
    regressor = tmp_path / "reg.skops"
    sio.dump(RandomForestRegressor(n_estimators=3).fit(X, y.astype("category").cat.codes), regressor)
    code = cli(["validate", str(regressor), str(csv), "--target", "species"])
    message = capsys.readouterr().err
    assert code == 1 and "is a regressor" in message and "the target 'species' has 3 classes" in message
    measured = tmp_path / "measured.csv"
    X.to_csv(measured, index=False)
    with pytest.raises(ModelError, match=r"is a classifier of 2 classes \(False and True\), but the target "
                                         r"'sepal_length' is a number \(35 different values from 4.3 to 7.9\)\. "
                                         "Train a regressor on this target"):
        evaluate(two, measured, "sepal_length", save=False)
