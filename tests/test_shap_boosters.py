"""Tree SHAP on boosted classifiers: the path-dependent option (never additive in probability for a model whose
trees sum to a log-odds margin) is not built; the interventional result is the one the old order chose."""

from __future__ import annotations

import numpy as np
import pytest
import shap

from hexeval_engine.explainers import shap_explainer
from hexeval_engine.explainers.shap_explainer import INTERVENTIONAL, PATH_DEPENDENT, ShapExplainer, margin_booster


@pytest.fixture(scope="module")
def credit(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    return config, data, model


@pytest.fixture(scope="module")
def heart(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    return config, data, model


def _explain(model, data, config, rows):
    X = data.X_test.iloc[rows][list(data.feature_names)].reset_index(drop=True)
    proba = model.predict_proba(X)[:, 1]
    classes = (proba >= 0.5).astype(int)
    explainer = ShapExplainer(model, data, config, seed=7)
    phi, base = explainer.attributions(X, classes, proba)
    return explainer, phi, base, proba, classes


def _recording_tree_explainer(monkeypatch):
    """Record the ``feature_perturbation`` of every ``shap.TreeExplainer`` built (shap's own class still builds it)."""
    built = []
    real = shap.TreeExplainer

    def recording(*args, **kwargs):
        built.append(kwargs.get("feature_perturbation"))
        return real(*args, **kwargs)

    monkeypatch.setattr(shap, "TreeExplainer", recording)
    return built


def test_credit_builds_no_path_dependent_explainer(credit, monkeypatch):
    config, data, model = credit
    built = _recording_tree_explainer(monkeypatch)
    explainer, *_ = _explain(model, data, config, [0, 1, 2])
    assert explainer.algorithm == INTERVENTIONAL
    assert built == ["interventional"]


def test_credit_values_and_algorithm_as_with_the_path_dependent_try(credit, monkeypatch):
    """The old order (path-dependent tried, rejected, then interventional) gives the very same numbers."""
    config, data, model = credit
    rows = [0, 9, 20, 31, 57]
    now, phi, base, proba, classes = _explain(model, data, config, rows)
    monkeypatch.setattr(shap_explainer, "margin_booster", lambda estimator: False)
    built = _recording_tree_explainer(monkeypatch)
    before, phi_before, base_before, _, _ = _explain(model, data, config, rows)
    assert built == ["tree_path_dependent", "interventional"]  # the old order really ran
    assert before.algorithm == now.algorithm == INTERVENTIONAL
    np.testing.assert_array_equal(phi, phi_before)
    np.testing.assert_array_equal(base, base_before)
    signed = np.where(classes == 1, proba, 1 - proba)
    np.testing.assert_allclose(phi.sum(axis=1) + base, signed, atol=1e-4)  # additive in probability


def test_random_forest_still_gets_the_path_dependent_option(heart, monkeypatch):
    config, data, model = heart
    built = _recording_tree_explainer(monkeypatch)
    explainer, phi, base, proba, classes = _explain(model, data, config, [0, 1, 2])
    assert explainer.algorithm == PATH_DEPENDENT
    assert built == ["tree_path_dependent"]
    np.testing.assert_allclose(phi.sum(axis=1) + base, np.where(classes == 1, proba, 1 - proba), atol=1e-6)


def test_margin_boosters_are_named_by_class_and_subclass():
    from sklearn.ensemble import (ExtraTreesClassifier, GradientBoostingClassifier, GradientBoostingRegressor,
                                  HistGradientBoostingClassifier, RandomForestClassifier)
    from sklearn.tree import DecisionTreeClassifier
    from xgboost import XGBClassifier, XGBRegressor

    class MyBooster(XGBClassifier):
        pass

    assert margin_booster(XGBClassifier()) and margin_booster(MyBooster())
    lookalike = type("XGBClassifier", (RandomForestClassifier,), {"__module__": "xgboost_forks.forest"})
    assert not margin_booster(lookalike())  # same class name, another package: not assumed a margin booster
    assert margin_booster(GradientBoostingClassifier()) and margin_booster(HistGradientBoostingClassifier())
    for other in (RandomForestClassifier(), ExtraTreesClassifier(), DecisionTreeClassifier(), XGBRegressor(),
                  GradientBoostingRegressor()):
        assert not margin_booster(other), type(other).__name__


def test_boosted_sklearn_classifier_gets_what_the_old_order_gave(heart, monkeypatch):
    """A scikit-learn gradient-boosting pipeline: same algorithm and values with and without the path-dependent try."""
    from sklearn.base import clone
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.pipeline import Pipeline

    from hexeval_engine.models.model_wrapper import HexevalModel

    config, data, forest = heart
    steps = list(forest.estimator.steps[:-1]) + [("gb", GradientBoostingClassifier(n_estimators=20, random_state=0))]
    pipe = clone(Pipeline(steps)).fit(data.X_train[list(data.feature_names)], data.y_train)
    model = HexevalModel.from_artefact(pipe)
    now, phi, base, _, _ = _explain(model, data, config, [0, 1, 2, 3])
    monkeypatch.setattr(shap_explainer, "margin_booster", lambda estimator: False)
    before, phi_before, base_before, _, _ = _explain(model, data, config, [0, 1, 2, 3])
    assert now.algorithm == before.algorithm
    np.testing.assert_array_equal(phi, phi_before)
    np.testing.assert_array_equal(base, base_before)
