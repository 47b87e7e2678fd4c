"""Regressors end to end: each case is explained on one side of a band around its prediction (issue 21).

Oracles never reuse the code under test: the known generating features of a synthetic regression,
the scikit-learn model itself (re-predicting counterfactual and held-out rows), scikit-learn's metrics
for the model card, and the band computed here from the training target.
"""

from __future__ import annotations

import json
import shutil

import joblib
import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from scipy.stats import wilcoxon
from skl2onnx import to_onnx
from sklearn.datasets import load_diabetes
from sklearn.dummy import DummyRegressor
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from app_helpers import app, open_page, texts
from hexeval_engine import ModelError, evaluate
from hexeval_engine.cli.main import main as cli
from hexeval_engine.config import load_config
from hexeval_engine.data.dataset import load_data
from hexeval_engine.models.model_loading import load_model
from hexeval_engine.models.model_wrapper import HexevalModel
from hexeval_engine.technical.class_groups import case_groups
from hexeval_engine.technical.sanity import signal_check

FEATURES = ["a", "b", "c", "d", "e"]
SETTINGS = {"evaluation": {"sample_size": 16, "bootstrap_resamples": 200,
                           "explainers": {"shap": {"background_size": 50}, "anchor": {"max_instances": 16},
                                          "dice": {"max_instances": 16},
                                          "lime": {"num_samples": 400, "stability_subset": 3}},
                           "stability": {"repeats": 2}, "sanity": {"randomisation_cases": 3}},
            "personas": {"enabled": False}}


def _synthetic(n=500, seed=0):
    """y = 3a - 2b + small noise: only a and b move the prediction."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=FEATURES)
    return X, 3 * X["a"] - 2 * X["b"] + 0.1 * rng.normal(size=n) + 10


@pytest.fixture(scope="module")
def linear(tmp_path_factory):
    folder = tmp_path_factory.mktemp("regression")
    X, y = _synthetic()
    csv = folder / "data.csv"
    X.assign(y=y).to_csv(csv, index=False)
    model = LinearRegression().fit(X, y)
    joblib.dump(model, folder / "m.joblib")
    result = evaluate(folder / "m.joblib", csv, "y", output_dir=folder / "runs", allow_pickle=True,
                      config_overrides=SETTINGS)
    return model, result


def _explained(result, method):
    return [e for e in result.technical.explanations if e.method == method and e.ok]


def _band(result) -> float:
    return 0.25 * float(np.std(result.data.y_train.to_numpy(dtype=float)))


def test_task_and_texts_name_the_predicted_value(linear):
    model, result = linear
    assert result.manifest["task"]["description"] == "regression"
    X_test = result.data.X_test[FEATURES]
    for e in _explained(result, "SHAP"):
        value = float(model.predict(X_test.iloc[[e.instance_id]])[0])
        view = e.extra["value_view"]
        assert view["prediction"] == pytest.approx(value)
        high = value >= float(np.mean(model.predict(result.data.X_train[FEATURES])))
        assert view["edge"] == pytest.approx(value - _band(result) if high else value + _band(result))
        assert f"explains why the prediction is this {'high' if high else 'low'}" in e.text
        assert e.text.startswith("The model predicts y ")


@pytest.mark.parametrize("method", ["SHAP", "LIME"])
def test_attributions_rank_the_relevant_features_first_and_beat_random(linear, method):
    _, result = linear
    explanations = _explained(result, method)
    assert len(explanations) == 16
    top_two = [set(sorted(e.attributions, key=lambda f: -abs(e.attributions[f]))[:2]) for e in explanations]
    assert sum(t == {"a", "b"} for t in top_two) >= 0.9 * len(top_two), top_two
    per = result.technical.per_instance
    deletion = per[per.metric == "fidelity_deletion"].pivot(index="instance_id", columns="method", values="value")
    paired = deletion[[method, "Random"]].dropna()
    assert len(paired) >= 12
    assert wilcoxon(paired[method], paired["Random"], alternative="less").pvalue < 0.01


def test_counterfactuals_move_the_prediction_beyond_the_band(linear):
    model, result = linear
    X_test = result.data.X_test[FEATURES]
    moved = 0
    for e in _explained(result, "DiCE"):
        view = e.extra["value_view"]
        for cf in e.counterfactuals:
            again = float(model.predict(pd.DataFrame([cf.row])[FEATURES])[0])
            beyond = again < view["edge"] if view["direction"] > 0 else again > view["edge"]
            assert cf.flips == beyond, (again, view)
            moved += beyond
        assert float(model.predict(X_test.iloc[[e.instance_id]])[0]) == pytest.approx(view["prediction"])
    assert moved >= 12


def test_anchor_keeps_the_prediction_within_the_band_on_held_out_rows(linear):
    model, result = linear
    X_test = result.data.X_test[FEATURES]
    predicted = model.predict(X_test)
    per = result.technical.per_instance
    values = per[per.method == "Anchor"].pivot(index="instance_id", columns="metric", values="value")
    ops = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
    checked = 0
    for e in _explained(result, "Anchor"):
        view = e.extra["value_view"]
        use = np.arange(len(X_test)) != e.instance_id
        covered = use.copy()
        for c in e.rule.conditions:
            covered &= ops[c.op](X_test[c.feature].to_numpy(), float(c.value))
        inside = predicted >= view["edge"] if view["direction"] > 0 else predicted <= view["edge"]
        if covered.any() and e.instance_id in values.index:
            assert values.loc[e.instance_id, "rule_precision_test"] == pytest.approx(inside[covered].mean())
            checked += 1
    assert checked >= 8


def test_model_card_and_signal_against_the_mean(linear, tmp_path):
    model, result = linear
    X_test, y_test = result.data.X_test[FEATURES], result.data.y_test.to_numpy()
    card = result.manifest["model"]["performance"]
    predicted = model.predict(X_test)
    assert card["mae"] == pytest.approx(mean_absolute_error(y_test, predicted))
    assert card["rmse"] == pytest.approx(np.sqrt(mean_squared_error(y_test, predicted)))
    assert card["r2"] == pytest.approx(r2_score(y_test, predicted))
    assert card["residuals"]["q50"] == pytest.approx(np.median(y_test - predicted))
    assert result.sanity["signal"]["has_signal"]
    mean_only = HexevalModel(DummyRegressor().fit(result.data.X_train, result.data.y_train), regression=True,
                             feature_names=FEATURES, class_labels=())
    check = signal_check(mean_only, result.data, result.config)
    assert not check["has_signal"] and "not reliably smaller than predicting the training mean" in check["reason"]


@pytest.fixture(scope="module")
def diabetes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diabetes")
    frame = load_diabetes(as_frame=True, scaled=False).frame.rename(columns={"target": "progression"})
    csv = folder / "diabetes.csv"
    frame.to_csv(csv, index=False)
    return frame.drop(columns="progression"), frame["progression"], csv


def test_diabetes_skops_regressor_from_the_api_and_the_cli(diabetes, tmp_path, capsys):
    X, y, csv = diabetes
    path = tmp_path / "diabetes.skops"
    sio.dump(make_pipeline(StandardScaler(), LinearRegression()).fit(X, y), path)
    quick = {"evaluation": {"sample_size": 4, "bootstrap_resamples": 100,
                            "explainers": {"shap": {"background_size": 30}, "anchor": {"max_instances": 4},
                                           "dice": {"max_instances": 4},
                                           "lime": {"num_samples": 200, "stability_subset": 2}},
                            "stability": {"repeats": 2}, "sanity": {"randomisation_cases": 2}},
             "personas": {"sample_instances": 2}, "domain": {"units": {"progression": "score"},
                                                             "feature_descriptions": {"progression": "disease progression"}}}
    result = evaluate(path, csv, "progression", output_dir=tmp_path / "api", config_overrides=quick,
                      rater="simulated")
    assert (result.technical.metrics["error"].fillna("") == "").all()
    assert (result.persona_ratings["status"] == "ok").all()
    shap = _explained(result, "SHAP")[0]
    assert shap.text.startswith("The model predicts disease progression ") and "(score)" in shap.text
    manifest = json.loads((result.output_path / "run.json").read_text())
    assert manifest["task"]["kind"] == "regression" and manifest["model"]["performance"]["r2"] > 0.3
    code = cli(["evaluate", str(path), str(csv), "--target", "progression", "--no-personas",
                "--output", str(tmp_path / "cli")])
    assert code == 0
    assert "Task: regression of progression" in capsys.readouterr().out


def test_classifier_on_a_numeric_target_names_both_and_the_fix(diabetes, tmp_path):
    X, y, csv = diabetes
    path = tmp_path / "clf.skops"
    sio.dump(RandomForestClassifier(n_estimators=3).fit(X, y > 140), path)
    with pytest.raises(ModelError) as err:
        evaluate(path, csv, "progression", save=False)
    message = str(err.value)
    assert "is a classifier of 2 classes (False and True)" in message
    assert "the target 'progression' is a number (214 different values from 25 to 346)" in message
    assert "Train a regressor on this target" in message


def test_regression_band_is_configurable(tmp_path):
    X, y = _synthetic(200, seed=3)
    csv = tmp_path / "d.csv"
    X.assign(y=y).to_csv(csv, index=False)
    config = load_config(None, {"data": {"regression_band": 0.5}})
    data = load_data(csv, "y")
    fitted = LinearRegression().fit(data.X_train, data.y_train)
    model = HexevalModel(fitted, feature_names=FEATURES, regression=True, class_labels=())
    groups = case_groups(model, data, config, [0, 1, 2])
    band = 0.5 * float(np.std(data.y_train.to_numpy()))
    middle = float(np.mean(fitted.predict(data.X_train)))
    for group, value in zip(groups, fitted.predict(data.X_test.iloc[[0, 1, 2]])):
        direction = 1 if value >= middle else -1
        assert group.direction == direction and group.edge == pytest.approx(value - direction * band)


def test_dashboard_results_and_recommendations_of_a_regression_run(linear, tmp_path):
    _, result = linear
    run = tmp_path / "outputs" / result.output_path.parent.name / result.output_path.name  # the app's runs root
    shutil.copytree(result.output_path, run)
    at = app(usecase="custom")  # an upload's run: the sidebar lists it once "Custom Upload" is chosen
    at.session_state["viewed_run"] = str(run)
    at = open_page(at, "app_pages/results.py")
    shown = texts(at)
    assert "**Regression** of y: each case is explained on one side of a band around its prediction" in shown
    assert "**Model prediction:** y " in shown and "Every explanation below explains why the prediction is this" in shown
    assert "squared error smaller than predicting the training mean" in shown
    at = open_page(at, "app_pages/recommendations.py")
    assert "**Regression** of y" in texts(at)


def test_onnx_export_of_a_regressor(diabetes, tmp_path):
    X, y, csv = diabetes
    fitted = make_pipeline(StandardScaler(), LinearRegression()).fit(X.to_numpy(np.float32), y)
    path = tmp_path / "diabetes.onnx"
    path.write_bytes(to_onnx(fitted, X.to_numpy(np.float32)[:1]).SerializeToString())
    data = load_data(csv, "progression")
    model = load_model(path, data=data)
    assert model.regression
    np.testing.assert_allclose(model.predict_value(X), fitted.predict(X.to_numpy(np.float32)), rtol=1e-4)
    quick = {"evaluation": {"sample_size": 3, "bootstrap_resamples": 100,
                            "explainers": {"shap": {"background_size": 20}, "anchor": {"max_instances": 3},
                                           "dice": {"max_instances": 3},
                                           "lime": {"num_samples": 200, "stability_subset": 2}},
                            "stability": {"repeats": 2}, "sanity": {"randomisation_check": False}},
             "personas": {"enabled": False}}
    result = evaluate(path, csv, "progression", save=False, config_overrides=quick)
    assert (result.technical.metrics["error"].fillna("") == "").all()
    assert result.manifest["task"]["kind"] == "regression"
    with pytest.raises(ModelError, match="no numeric output"):
        classifier = tmp_path / "clf.onnx"
        clf = RandomForestClassifier(n_estimators=3).fit(X.to_numpy(np.float32), y > 140)
        classifier.write_bytes(to_onnx(clf, X.to_numpy(np.float32)[:1]).SerializeToString())
        load_model(classifier, data=data)
