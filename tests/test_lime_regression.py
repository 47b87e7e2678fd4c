"""The vectorised LIME surrogate fit gives the library's features and weights (to 1e-8)."""

from __future__ import annotations

import numpy as np
import pytest
from lime.lime_base import LimeBase

from hexeval_engine.config.loader import deep_merge, validate_config
from hexeval_engine.explainers.base import explained_classes, instance_seed
from hexeval_engine.explainers.lime_explainer import LimeExplainer
from hexeval_engine.data.dataset import load_data
from hexeval_engine.explainers.lime_regression import VectorisedLimeBase, _WeightedMoments, surrogate_fit

TOL = 1e-8


def _config(config, num_features):
    raw = config.model_dump(mode="json", exclude={"source"})
    return validate_config(deep_merge(raw, {"evaluation": {"explainers": {"lime": {
        "num_samples": 500, "num_features": num_features}}}}))


def _pair(model, data, config):
    """The HEXEval explainer (vectorised) and the same explainer on the library's own LimeBase."""
    fast = LimeExplainer(model, data, config)
    library = LimeExplainer(model, data, config)
    library._lime.base = LimeBase(library._lime.base.kernel_fn, random_state=library._lime.random_state)
    return fast, library


@pytest.mark.parametrize("name", ["heart", "credit_risk"])
@pytest.mark.parametrize("num_features", [5, 8])  # LIME's "auto": forward selection (<= 6), else highest weights
def test_lime_explanations_equal_the_library_on_bundled_use_cases(usecase_bundle, name, num_features):
    _, config, data, model = usecase_bundle(name)
    config = _config(config, num_features)
    X = data.X_test.iloc[:8][list(data.feature_names)].reset_index(drop=True)
    ids = list(range(len(X)))
    classes, proba = explained_classes(model, X)
    seeds = [instance_seed(7, i, "LIME") for i in ids]
    fast, library = _pair(model, data, config)
    got = fast.explain(X, ids, classes, proba, seeds)
    want = library.explain(X, ids, classes, proba, seeds)
    assert fast._lime.base.fallbacks == 0  # the batched path, not the library, produced `got`
    for g, w in zip(got, want):
        assert g.ok and w.ok
        chosen = {f for f, v in w.attributions.items() if v != 0}
        assert {f for f, v in g.attributions.items() if v != 0} == chosen
        assert len(chosen) == min(num_features, len(data.feature_names))
        for f in data.feature_names:
            assert g.attributions[f] == pytest.approx(w.attributions[f], abs=TOL)
        for key in ("intercept", "local_r2", "local_prediction"):
            assert g.extra[key] == pytest.approx(w.extra[key], abs=TOL)
        assert g.extra["conditions"] == w.extra["conditions"]


def _neighbourhood(rng, n, p):
    """LIME-like surrogate data: binary 'same bin as the instance' columns, scaled; first row = instance."""
    Z = (rng.random((n, p)) < rng.uniform(0.2, 0.8, p)).astype(float)
    Z[0] = 1.0
    scaled = (Z - Z.mean(axis=0)) / Z.std(axis=0)
    logit = Z @ rng.normal(0, 1.5, p) + 0.5 * Z[:, 0] * Z[:, 1] - 1.0
    labels = 1 / (1 + np.exp(-logit)) + rng.normal(0, 0.01, n)
    distances = np.sqrt(((scaled - scaled[0]) ** 2).sum(axis=1))
    return scaled, np.column_stack([1 - labels, labels]), distances


@pytest.mark.parametrize("p,num_features", [(13, 5), (40, 6), (100, 3), (30, 10), (300, 12)])
def test_surrogate_fit_equals_the_library_on_synthetic_neighbourhoods(p, num_features):
    rng = np.random.default_rng(p * 31 + num_features)
    for _ in range(3):
        data, labels, distances = _neighbourhood(rng, 500, p)
        width = np.sqrt(p) * 0.75
        kernel = lambda d: np.sqrt(np.exp(-(d ** 2) / width ** 2))  # noqa: E731  LIME's default kernel
        want = LimeBase(kernel, random_state=0).explain_instance_with_data(data, labels, distances, 1, num_features)
        got = VectorisedLimeBase(kernel, random_state=0).explain_instance_with_data(data, labels, distances, 1,
                                                                                    num_features)
        assert [f for f, _ in got[1]] == [f for f, _ in want[1]]  # same features, same order
        np.testing.assert_allclose([v for _, v in got[1]], [v for _, v in want[1]], rtol=0, atol=TOL)
        assert got[0] == pytest.approx(want[0], abs=TOL)
        assert got[2] == pytest.approx(want[2], abs=TOL)
        np.testing.assert_allclose(got[3], want[3], rtol=0, atol=TOL)


def test_off_grid_binary_columns_equal_the_library_without_falling_back(usecase_bundle, monkeypatch):
    """The upload path's case: heart's 0/1 columns read as numeric (no categorical_features), and noisy copies
    (sex 1.03) put the instance in a bin no training row occupies. The "same bin" columns are then 1 only in the
    instance's row, identical, and the Gram matrix singular: scikit-learn's Cholesky fails over to its SVD solver,
    and so does the batched fit (no library fallback)."""
    uc, config, _, model = usecase_bundle("heart")
    data = load_data(uc.data_path, "target", random_state=42)  # what evaluate(model, csv) sees: no categoricals
    assert not data.categorical_features
    config = _config(config, 5)
    X = data.X_test.iloc[:10][list(data.feature_names)].reset_index(drop=True).astype(float)
    for col, shift in (("sex", 0.03), ("exang", 0.02), ("fbs", -0.02), ("thal", 0.04)):
        X[col] = X[col] + shift
    ids = list(range(len(X)))
    classes, proba = explained_classes(model, X)
    seeds = [instance_seed(11, i, "LIME") for i in ids]
    singular = []
    svd = _WeightedMoments.forward_selection_svd
    monkeypatch.setattr(_WeightedMoments, "forward_selection_svd",
                        lambda self, k: singular.append(1) or svd(self, k))
    fast, library = _pair(model, data, config)
    got = fast.explain(X, ids, classes, proba, seeds)
    assert len(singular) >= 3  # the case under test happened
    monkeypatch.undo()
    want = library.explain(X, ids, classes, proba, seeds)
    assert fast._lime.base.fallbacks == 0
    for g, w in zip(got, want):
        assert g.ok and w.ok
        assert {f for f, v in g.attributions.items() if v != 0} == {f for f, v in w.attributions.items() if v != 0}
        for f in data.feature_names:
            assert g.attributions[f] == pytest.approx(w.attributions[f], abs=TOL)
        for key in ("intercept", "local_r2", "local_prediction"):
            assert g.extra[key] == pytest.approx(w.extra[key], abs=TOL)


def test_constant_labels_are_left_to_the_library():
    """No variance to explain (R^2 undefined): the library's own implementation decides."""
    rng = np.random.default_rng(3)
    data, labels, distances = _neighbourhood(rng, 300, 8)
    labels[:] = [0.5, 0.5]
    kernel = lambda d: np.sqrt(np.exp(-(d ** 2) / 4.0))  # noqa: E731
    assert surrogate_fit(data, labels[:, 1], kernel(distances), 5, "forward_selection") is None
    base = VectorisedLimeBase(kernel, random_state=0)
    got = base.explain_instance_with_data(data, labels, distances, 1, 5)
    want = LimeBase(kernel, random_state=0).explain_instance_with_data(data, labels, distances, 1, 5)
    assert base.fallbacks == 1
    assert [f for f, _ in got[1]] == [f for f, _ in want[1]]
