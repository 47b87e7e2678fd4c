"""Regression: SHAP and LIME explain the prediction once for every case, mapped onto each case's band view
(issue 21, second pass).

Oracles: the per-case computation (each case's own band view explained by its own explainer, as the first
pass did) and, for SHAP on a linear regressor, the closed-form Shapley values of a linear model
``coef_j (x_j - mean_B x_j)`` times the view's slope, from scikit-learn's fitted coefficients.
"""

from __future__ import annotations

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression

from hexeval_engine import evaluate
from hexeval_engine.explainers.base import explained_classes, instance_seed
from hexeval_engine.explainers.registry import build_explainer
from hexeval_engine.technical.class_groups import case_groups

FEATURES = ["a", "b", "c", "d"]
SETTINGS = {"evaluation": {"sample_size": 6, "bootstrap_resamples": 100,
                           "explainers": {"shap": {"background_size": 40}, "anchor": {"max_instances": 6},
                                          "dice": {"max_instances": 6},
                                          "lime": {"num_samples": 300, "stability_subset": 2}},
                           "stability": {"repeats": 2}, "sanity": {"randomisation_cases": 2}},
            "personas": {"enabled": False}}


def _run(tmp_path, estimator):
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=FEATURES)
    y = 3 * X["a"] - 2 * X["b"] + 0.5 * X["c"] * X["a"] + 0.1 * rng.normal(size=300) + 20
    X.assign(y=y).to_csv(tmp_path / "data.csv", index=False)
    model = estimator.fit(X, y)
    joblib.dump(model, tmp_path / "m.joblib")
    result = evaluate(tmp_path / "m.joblib", tmp_path / "data.csv", "y", output_dir=tmp_path / "runs",
                      allow_pickle=True, config_overrides=SETTINGS)
    return model, result


def _per_case(result, method):
    """Each case explained on its own band view by a fresh explainer, as in the per-case path."""
    data, config = result.data, result.config
    seed_state = config.evaluation.random_state
    out = {}
    ids = [e.instance_id for e in result.technical.explanations if e.method == method and e.ok]
    for group in case_groups(result.model, data, config, ids):
        X = data.X_test.iloc[group.ids][FEATURES].reset_index(drop=True)
        classes, probabilities = explained_classes(group.model, X)
        explainer = build_explainer(method, group.model, group.data, group.config,
                                    seed=instance_seed(seed_state, -1, f"{method}:explainer"))
        seeds = [instance_seed(seed_state, i, method) for i in group.ids]
        (e,) = explainer.explain(X, group.ids, classes, probabilities, seeds)
        out[e.instance_id] = (e, group)
    return out


@pytest.mark.parametrize("estimator", [LinearRegression(), RandomForestRegressor(n_estimators=20, max_depth=4,
                                                                                 random_state=0)],
                         ids=["linear", "forest"])
def test_shared_explanations_equal_the_per_case_ones(tmp_path, estimator):
    _, result = _run(tmp_path, estimator)
    for method, keys in (("SHAP", ("base_value",)), ("LIME", ("intercept", "local_prediction"))):
        mapped = [e for e in result.technical.explanations if e.method == method and e.ok]
        assert len(mapped) == 6
        directions = set()
        for e in mapped:
            own, group = _per_case(result, method)[e.instance_id]
            directions.add(group.direction)
            assert own.predicted_class == e.predicted_class == 1
            assert e.probability == pytest.approx(own.probability, abs=1e-9)
            for f in FEATURES:
                assert e.attributions[f] == pytest.approx(own.attributions[f], abs=1e-9)
            for key in keys:
                assert e.extra[key] == pytest.approx(own.extra[key], abs=1e-9)
        assert directions == {-1, 1}  # cases explained as "this high" and as "this low" were both mapped


def test_shap_of_a_linear_regressor_is_exact_and_mapped(tmp_path):
    model, result = _run(tmp_path, LinearRegression())
    groups = {g.ids[0]: g for g in case_groups(result.model, result.data, result.config,
                                                  result.technical.instance_ids)}
    X_test = result.data.X_test[FEATURES]
    for e in (e for e in result.technical.explanations if e.method == "SHAP" and e.ok):
        assert "linear" in e.algorithm.lower()
        group = groups[e.instance_id]
        slope = group.direction / (2 * group.scale)
        phi = np.array([e.attributions[f] for f in FEATURES]) / slope
        x = X_test.iloc[e.instance_id].to_numpy(dtype=float)
        # closed form: phi_j = coef_j (x_j - m_j) for the background mean m, so the gaps between features
        # x_j - phi_j / coef_j are the background means: equal to the training rows' means up to sampling
        background_mean = x - phi / model.coef_
        train_mean = result.data.X_train[FEATURES].mean().to_numpy()
        assert np.all(np.abs(background_mean - train_mean) < 0.4)
        prediction = float(model.predict(X_test.iloc[[e.instance_id]])[0])
        base_prediction = (e.extra["base_value"] - 0.5) / slope + group.edge
        assert phi.sum() == pytest.approx(prediction - base_prediction, abs=1e-8)


def test_instance_metrics_say_which_side_each_case_is_explained_on(tmp_path):
    model, result = _run(tmp_path, LinearRegression())
    table = pd.read_csv(result.output_path / "instance_metrics.csv")
    X_test, y_train = result.data.X_test[FEATURES], result.data.y_train.to_numpy(dtype=float)
    band = 0.25 * float(np.std(y_train))  # the default data.regression_band times the target's spread
    middle = float(np.mean(model.predict(result.data.X_train[FEATURES])))
    for i, words in table.groupby("instance_id")["explained_class"].first().items():
        value = float(model.predict(X_test.iloc[[int(i)]])[0])
        side, edge = ("at least", value - band) if value >= middle else ("at most", value + band)
        assert words.startswith(f"y {side} ")
        assert float(words.rsplit(" ", 1)[1].replace(",", "")) == pytest.approx(edge, abs=0.01 * abs(edge) + 0.01)
