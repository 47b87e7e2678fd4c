"""DiCE's post-hoc sparsity limits are computed once per explainer and equal the library's own."""

from __future__ import annotations

from unittest import mock

import numpy as np
from dice_ml.data_interfaces.public_data_interface import PublicData

from hexeval_engine.explainers.base import explained_classes, instance_seed
from hexeval_engine.explainers.dice_explainer import SPARSITY_QUANTILE, DiceExplainer


def test_limits_are_computed_once_and_are_the_librarys(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    explainer = DiceExplainer(model, data, config)
    X = data.X_test.iloc[:3][list(data.feature_names)].reset_index(drop=True)
    classes, proba = explained_classes(model, X)
    seeds = [instance_seed(config.evaluation.random_state, i, "DiCE") for i in range(3)]
    real = PublicData.get_quantiles_from_training_data
    with mock.patch.object(PublicData, "get_quantiles_from_training_data", autospec=True, side_effect=real) as spy:
        first = explainer.explain(X, [0, 1, 2], classes, proba, seeds)
        second = explainer.explain(X, [0, 1, 2], classes, proba, seeds)
    assert spy.call_count == 1
    found = lambda explanations: [(e.error, [(cf.row, cf.probability) for cf in e.counterfactuals or []]) for e in explanations]
    assert found(first) == found(second)  # the same seeds: the same counterfactuals with the limits reused
    assert any(e.counterfactuals for e in first)
    # oracle: the library's two computations on the same frame, as dice_ml's own sparsity step makes them
    quantiles = explainer._data.get_quantiles_from_training_data(quantile=SPARSITY_QUANTILE)
    mads = explainer._data.get_valid_mads()
    want = {f: min(quantiles[f], mads[f]) for f in quantiles}
    got = explainer.sparsity_limits()
    assert got.keys() == want.keys() and all(np.float64(got[f]) == np.float64(want[f]) for f in want)
    got.clear()  # a caller's copy: the explainer's own limits stay
    assert explainer.sparsity_limits() == want
