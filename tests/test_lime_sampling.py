"""LIME's bin -> value step drawn in one call gives the library's values, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from lime.lime_tabular import LimeTabularExplainer

from hexeval_engine.data.dataset import load_data
from hexeval_engine.explainers.base import ExplainerSpace
from hexeval_engine.explainers.lime_sampling import batched_undiscretize


@pytest.mark.parametrize("name, declared", [("heart", True), ("heart", False), ("credit_risk", True)])
def test_batched_undiscretize_equals_the_library(usecase_bundle, name, declared):
    """Heart with and without categorical features declared (6 or 13 discretised features), and credit risk
    (missing values filled, wide-ranged incomes): the per-bin terms give scipy's draws bit for bit."""
    uc, _, data, _ = usecase_bundle(name)
    if not declared:
        data = load_data(uc.data_path, "target", random_state=42)
    train = ExplainerSpace.from_data(data).train
    lime = LimeTabularExplainer(train, mode="classification", categorical_features=data.coder.categorical_indices,
                                discretize_continuous=True, random_state=0)
    discretizer = lime.discretizer
    rng = np.random.default_rng(5)
    bins = discretizer.discretize(train[rng.integers(0, len(train), 400)])
    batched = batched_undiscretize(discretizer)
    for seed in (1, 2, 99):
        discretizer.random_state.seed(seed)
        want = discretizer.undiscretize(bins)
        after_library = discretizer.random_state.random_sample()
        discretizer.random_state.seed(seed)
        got = batched(bins)
        assert discretizer.random_state.random_sample() == after_library  # the same draws were consumed
        np.testing.assert_array_equal(got, want)
        assert not np.array_equal(got, bins)  # values were drawn, not the codes handed back


def test_lime_explanations_are_unchanged_by_the_batched_draw(usecase_bundle):
    """The whole explanation (upload-path heart, 13 discretised features) with the library's own undiscretize."""
    from hexeval_engine.explainers.base import explained_classes, instance_seed
    from hexeval_engine.explainers.lime_explainer import LimeExplainer

    uc, config, _, model = usecase_bundle("heart")
    data = load_data(uc.data_path, "target", random_state=42)
    X = data.X_test.iloc[:6][list(data.feature_names)].reset_index(drop=True)
    ids = list(range(len(X)))
    classes, proba = explained_classes(model, X)
    seeds = [instance_seed(3, i, "LIME") for i in ids]
    fast = LimeExplainer(model, data, config)
    library = LimeExplainer(model, data, config)
    del library._lime.discretizer.undiscretize  # the instance attribute: back to the class's method
    for g, w in zip(fast.explain(X, ids, classes, proba, seeds), library.explain(X, ids, classes, proba, seeds)):
        assert g.ok and w.ok
        assert g.attributions == w.attributions
        assert g.extra["local_r2"] == w.extra["local_r2"]
