"""Exact linear SHAP for pipelines ending in a logistic regression: log-odds units, raw features, exact."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import logit
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

from hexeval_engine import load_config
from hexeval_engine.runtime.explain import explain_instances
from hexeval_engine.explainers.shap_explainer import ShapExplainer
from hexeval_engine.models.model_wrapper import HexevalModel
from metrics_synthetic import linear_case, true_attributions


def _lr_pipeline(data):
    pre = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), data.categorical_features),
                             ("num", StandardScaler(), data.numeric_features)])
    return Pipeline([("pre", pre), ("lr", LogisticRegression(max_iter=1000))]).fit(data.X_train, data.y_train)


def _config(background):
    return load_config(overrides={"personas": {"enabled": False},
                                  "evaluation": {"explainers": {"shap": {"background_size": background}}}})


@pytest.fixture(scope="module")
def heart_lr(usecase_bundle):
    _, _, data, _ = usecase_bundle("heart")
    return data, HexevalModel.from_artefact(_lr_pipeline(data))


def test_linear_pipeline_gets_exact_log_odds_shap_that_adds_up(heart_lr):
    data, model = heart_lr
    explanations = explain_instances(model, data, _config(100), list(range(10)), ["SHAP"])
    for e in explanations:
        assert e.algorithm.startswith("Exact linear SHAP") and "log-odds" in e.algorithm
        assert e.extra["output"] == "log-odds"
        assert set(e.attributions) == set(data.feature_names)
        # towards the predicted class: attributions + base = that class's log-odds
        assert sum(e.attributions.values()) + e.extra["base_value"] == pytest.approx(logit(e.probability), abs=1e-9)


def test_linear_shap_equals_the_closed_form_on_a_bare_logistic_regression():
    case = linear_case()
    X = case.data.X_test.iloc[:20].reset_index(drop=True)
    config = _config(len(case.data.X_train))  # background = every training row: baseline = training mean
    explanations = explain_instances(case.model, case.data, config, list(range(20)), ["SHAP"])
    want = true_attributions(case, X)
    for i, e in enumerate(explanations):
        sign = 1.0 if e.predicted_class == 1 else -1.0
        got = np.array([e.attributions[f] for f in case.data.feature_names])
        np.testing.assert_allclose(got, sign * want[i], rtol=0, atol=1e-9)


def test_linear_shap_equals_exact_shapley_values_over_raw_features(heart_lr):
    """Brute force: shap's ExactExplainer over the raw (coded) columns, same background, on the log-odds."""
    import shap

    data, model = heart_lr
    config = _config(8)
    explainer = ShapExplainer(model, data, config, seed=5)
    X = data.X_test.iloc[:3][list(data.feature_names)].reset_index(drop=True)
    positive = model.predict_proba(X)[:, 1]
    phi, base = explainer.attributions(X, np.ones(3, dtype=int), positive)
    assert explainer.algorithm.startswith("Exact linear SHAP")

    coder = data.coder

    def log_odds(Z):
        return logit(np.clip(model.predict_proba(coder.decode(Z))[:, 1], 1e-300, 1 - 1e-16))

    masker = shap.maskers.Independent(coder.encode(explainer.background), max_samples=len(explainer.background))
    exact = shap.ExactExplainer(log_odds, masker)(coder.encode(X))
    np.testing.assert_allclose(phi, exact.values, rtol=0, atol=1e-8)
    np.testing.assert_allclose(base, exact.base_values, rtol=0, atol=1e-8)


def test_preprocessing_that_mixes_features_falls_back_to_permutation(heart_lr):
    data, _ = heart_lr
    cols = data.numeric_features

    def mix(X):
        X = np.asarray(X, dtype=float)
        return X + 0.5 * np.roll(X, 1, axis=1)  # every output column depends on two raw features

    pre = ColumnTransformer([("num", FunctionTransformer(mix, feature_names_out="one-to-one"), cols)])
    pipe = Pipeline([("pre", pre), ("lr", LogisticRegression(max_iter=1000))]).fit(data.X_train[cols], data.y_train)
    model = HexevalModel.from_artefact(pipe)
    explainer = ShapExplainer(model, data, _config(20), seed=1)
    X = data.X_test.iloc[:2][list(data.feature_names)].reset_index(drop=True)
    explainer.attributions(X, np.ones(2, dtype=int), model.predict_proba(X)[:, 1])
    assert explainer.algorithm.startswith("PermutationExplainer")
    assert explainer.output == "probability"


def test_linear_shap_explains_the_data_positive_label_when_it_sorts_first(tmp_path):
    """Target 'churned'/'stayed' with positive 'churned': coef_ describes 'stayed', so it must be negated."""
    from hexeval_engine import load_data, validate_model_data_compatibility

    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({"tenure": rng.integers(1, 60, n), "plan": rng.choice(["monthly", "yearly"], n),
                      "spend": rng.normal(50, 15, n).round(1)})
    churn = (X["tenure"] < 15) ^ (rng.random(n) < 0.15)
    csv = tmp_path / "churn.csv"
    X.assign(status=np.where(churn, "churned", "stayed")).to_csv(csv, index=False)
    data = load_data(csv, "status", positive_label="churned")
    pre = ColumnTransformer([("plan", OneHotEncoder(), ["plan"])], remainder="passthrough")
    y_text = np.where(data.y_train == 1, "churned", "stayed")
    model = HexevalModel.from_artefact(Pipeline([("pre", pre), ("lr", LogisticRegression(max_iter=2000))])
                                       .fit(data.X_train, y_text))
    validate_model_data_compatibility(model, data)
    assert model.positive_index == 0
    explanations = explain_instances(model, data, _config(50), [0, 1, 2, 3], methods=["SHAP"])
    for e in explanations:
        assert e.algorithm.startswith("Exact linear SHAP")
        assert sum(e.attributions.values()) + e.extra["base_value"] == pytest.approx(logit(e.probability), abs=1e-9)
    # a short tenure pushes towards churn: its attribution towards 'churned' is positive
    churner = next(e for e in explanations if e.predicted_class == 1)
    assert churner.attributions["tenure"] > 0
