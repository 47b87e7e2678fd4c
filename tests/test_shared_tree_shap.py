"""The shared-background interventional tree SHAP gives shap's own values, on every kind of tree model it takes.

The oracle is shap's C routine (``TreeExplainer(..., feature_perturbation="interventional")``), a separate
implementation: same trees, same background, one call.
"""

from __future__ import annotations

import numpy as np
import pytest
import shap
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor
from xgboost import XGBClassifier, XGBRegressor

from hexeval_engine.explainers import shap_explainer as se
from hexeval_engine.explainers import shared_tree_shap as st

#: shap sums each pair's contributions in single precision; this module in double.
AGREE = 1e-6


def _world(seed=0, n=600, missing=0.0):
    """Rows whose label needs interactions, repeated splits on one feature and (optionally) missing values."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    X[:, 5] = rng.integers(0, 3, size=n)  # a coded column: few distinct values, ties at thresholds
    logit = 1.5 * X[:, 0] - X[:, 1] * X[:, 2] + np.where(X[:, 3] > 0.5, 1.0, -0.5) + 0.4 * X[:, 5]
    y = (logit + rng.logistic(size=n) > 0).astype(int)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y, logit


def _agree(estimator, X, background, **options):
    oracle_explainer = shap.TreeExplainer(estimator, data=background, feature_perturbation="interventional", **options)
    oracle = np.asarray(oracle_explainer.shap_values(X, check_additivity=False), dtype=float)
    shared = st.shared_or_shap(shap.TreeExplainer(estimator, data=background, feature_perturbation="interventional",
                                                  **options))
    assert isinstance(shared, st.SharedTreeShap)
    got = shared.shap_values(X)
    assert got.shape == oracle.shape
    assert np.max(np.abs(got - oracle)) < AGREE
    assert np.allclose(shared.expected_value, oracle_explainer.expected_value)
    return shared, got


@pytest.mark.parametrize("depth", [1, 3, 6])
def test_xgboost_probability_output_matches_shap(depth):
    X, y, _ = _world()
    model = XGBClassifier(n_estimators=40, max_depth=depth, learning_rate=0.3, random_state=0).fit(X[:500], y[:500])
    shared, phi = _agree(model, X[500:], X[:50], model_output="probability")
    # additivity in probability units, against XGBoost's own prediction
    assert np.allclose(phi.sum(axis=1) + shared.expected_value, model.predict_proba(X[500:])[:, 1], atol=1e-5)


def test_missing_values_take_the_trees_default_side_as_shap_does():
    X, y, _ = _world(seed=1, missing=0.15)
    model = XGBClassifier(n_estimators=30, max_depth=4, random_state=0).fit(X[:500], y[:500])
    _agree(model, X[500:], X[:40], model_output="probability")


def test_scikit_learn_boosting_and_regressors_match_shap():
    X, y, logit = _world(seed=2)
    boosted = GradientBoostingClassifier(n_estimators=30, max_depth=3, random_state=0).fit(X[:500], y[:500])
    _agree(boosted, X[500:], X[:30], model_output="probability")
    regressor = GradientBoostingRegressor(n_estimators=30, max_depth=4, random_state=0).fit(X[:500], logit[:500])
    _agree(regressor, X[500:], X[:30])
    xgb_regressor = XGBRegressor(n_estimators=25, max_depth=5, random_state=0).fit(X[:500], logit[:500])
    _agree(xgb_regressor, X[500:], X[:30])


def test_values_do_not_depend_on_the_step_or_the_indicators_storage(monkeypatch):
    X, y, _ = _world(seed=3)
    model = XGBClassifier(n_estimators=30, max_depth=4, random_state=0).fit(X[:500], y[:500])
    _, whole = _agree(model, X[500:], X[:40], model_output="probability")
    monkeypatch.setattr(st, "CELLS_PER_STEP", 1)  # one row per step
    monkeypatch.setattr(st, "DENSE_INDICATOR_CELLS", 0)  # the sparse indicator
    shared, stepped = _agree(model, X[500:], X[:40], model_output="probability")
    assert shared.rows_per_call == 1 and not isinstance(shared.indicator, np.ndarray)
    assert np.allclose(stepped, whole, rtol=0, atol=1e-12)


def test_models_it_does_not_cover_stay_with_shaps_routine():
    X, y, _ = _world(seed=4)
    multi = XGBClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X[:500], np.digitize(X[:500, 0], [-0.5, 0.5]))
    explainer = shap.TreeExplainer(multi, data=X[:20], feature_perturbation="interventional")
    assert st.shared_or_shap(explainer) is explainer
    deep = XGBClassifier(n_estimators=5, max_depth=st.MAX_PATH + 3, random_state=0).fit(X[:500], y[:500])
    explainer = shap.TreeExplainer(deep, data=X[:20], feature_perturbation="interventional", model_output="probability")
    if int(explainer.model.max_depth) > st.MAX_PATH:  # the fitted trees really are that deep
        assert st.shared_or_shap(explainer) is explainer


def test_credit_risks_shap_uses_it_and_gives_shaps_values(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    explainer = se.ShapExplainer(model, data, config, seed=5)
    rows = data.X_test.iloc[:30][list(data.feature_names)].reset_index(drop=True)
    proba = model.predict_proba(rows)[:, 1]
    classes = (proba >= 0.5).astype(int)
    phi, base = explainer.attributions(rows, classes, proba)
    assert explainer.algorithm == se.INTERVENTIONAL and isinstance(explainer._tree, st.SharedTreeShap)
    background = se.dense_matrix(model.transform(explainer.background))
    oracle = shap.TreeExplainer(model.final_estimator, data=background, feature_perturbation="interventional",
                                model_output="probability")
    Xt = se.dense_matrix(model.transform(rows))
    expected = se.sum_to_raw(np.asarray(oracle.shap_values(Xt, check_additivity=False), dtype=float),
                             explainer._mapping, len(data.feature_names))
    sign = np.where(classes == 1, 1.0, -1.0)[:, None]
    assert np.max(np.abs(phi - expected * sign)) < AGREE
    assert np.allclose(phi.sum(axis=1) + base, np.where(classes == 1, proba, 1 - proba), atol=se.ADDITIVITY_TOLERANCE)
