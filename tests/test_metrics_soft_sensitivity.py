"""Soft sufficiency / comprehensiveness and the sensitivity-based stability metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from metrics_synthetic import relevance_case

from hexeval_engine.config import HexevalConfig
from hexeval_engine.explanation import Explanation
from hexeval_engine.metrics import compute_instance_metrics, local_lipschitz, make_baseline, max_sensitivity, \
    soft_removal_scores
from hexeval_engine.metrics.sensitivity import standardised_distances
from hexeval_engine.metrics.soft_removal import keep_probabilities
from hexeval_engine.metrics.stability import noisy_copies

TRUTH = [1.0, 1.0, 0, 0, 0, 0, 0, 0]


@pytest.fixture(scope="module")
def lr():
    return relevance_case("lr")


@pytest.mark.parametrize("kind", ["lr", "gb"])
def test_known_relevance_beats_random_on_soft_metrics(kind):
    case = relevance_case(kind)
    X = case.data.X_test.iloc[:60]
    cls = case.model.predict(X)
    base = make_baseline(case.data)
    ids = np.arange(len(X))
    good = soft_removal_scores(case.model, X, np.tile(TRUTH, (len(X), 1)), cls, base, instance_ids=ids)
    bad = soft_removal_scores(case.model, X, np.random.default_rng(2).normal(size=(len(X), 8)), cls, base,
                              instance_ids=ids)
    assert np.nanmean(good["soft_sufficiency"]) < np.nanmean(bad["soft_sufficiency"]) - 0.2
    assert np.nanmean(good["soft_comprehensiveness"]) > np.nanmean(bad["soft_comprehensiveness"]) + 0.2
    for values in (good, bad):
        finite = np.concatenate([v[np.isfinite(v)] for v in values.values()])
        assert ((finite >= 0) & (finite <= 1)).all()


def test_binary_relevance_gives_the_hard_masks(lr):
    """With relevance 1 on x0, x1 and 0 elsewhere every draw keeps exactly x0, x1 (sufficiency) / drops them."""
    X = lr.data.X_test.iloc[:5]
    cls = lr.model.predict(X)
    base = make_baseline(lr.data)
    values = soft_removal_scores(lr.model, X, np.tile(TRUTH, (5, 1)), cls, base, draws=3, min_gap=0.0)
    keep = X.copy()
    drop = X.copy()
    for col in X.columns[2:]:
        keep[col] = base.at[0, col]
    for col in X.columns[:2]:
        drop[col] = base.at[0, col]
    f_x = lr.model.predict_proba(X)[np.arange(5), cls]
    f_b = lr.model.predict_proba(base)[0, cls]
    f_keep = lr.model.predict_proba(keep)[np.arange(5), cls]
    f_drop = lr.model.predict_proba(drop)[np.arange(5), cls]
    gap = f_x - f_b
    expected_suff = np.where(gap > 0, np.clip(np.maximum(0, f_x - f_keep) / gap, 0, 1), np.nan)
    expected_comp = np.where(gap > 0, np.clip(np.maximum(0, f_x - f_drop) / gap, 0, 1), np.nan)
    np.testing.assert_allclose(values["soft_sufficiency"], expected_suff, atol=1e-12)
    np.testing.assert_allclose(values["soft_comprehensiveness"], expected_comp, atol=1e-12)


def test_undefined_cases_are_nan(lr):
    X = lr.data.X_test.iloc[:4]
    cls = lr.model.predict(X)
    base = make_baseline(lr.data)
    scores = np.array([np.ones(8), np.zeros(8), TRUTH, TRUTH])
    values = soft_removal_scores(lr.model, X, scores, cls, base, min_gap=1.0)  # no gap can reach 1
    assert np.isnan(values["soft_sufficiency"]).all() and np.isnan(values["soft_comprehensiveness"]).all()
    q = keep_probabilities(scores)
    assert np.isnan(q[:2]).all() and q[2].tolist() == TRUTH  # all-equal scores tell no feature apart


def test_masks_do_not_depend_on_column_order_and_are_shared_by_methods(lr):
    X = lr.data.X_test.iloc[:8]
    cls = lr.model.predict(X)
    base = make_baseline(lr.data)
    scores = np.random.default_rng(4).random((8, 8))
    ids = np.arange(100, 108)
    forward = soft_removal_scores(lr.model, X, scores, cls, base, random_state=3, instance_ids=ids)
    cols = list(X.columns)[::-1]
    backward = soft_removal_scores(lr.model, X[cols], scores[:, ::-1], cls, base[cols], random_state=3,
                                   instance_ids=ids)
    for name in forward:
        np.testing.assert_allclose(forward[name], backward[name], atol=1e-12)
    other_seed = soft_removal_scores(lr.model, X, scores, cls, base, random_state=4, instance_ids=ids)
    assert not np.allclose(forward["soft_sufficiency"], other_seed["soft_sufficiency"], equal_nan=True)


def test_max_sensitivity_and_local_lipschitz_known_values():
    e = np.array([1.0, 0.0])
    copies = np.array([[1.0, 0.1], [0.8, 0.0], [np.nan, np.nan]])  # the last copy's explanation failed
    assert max_sensitivity(e, copies) == pytest.approx(0.2)
    assert local_lipschitz(e, copies, [0.05, 0.5, 0.1]) == pytest.approx(max(0.1 / 0.05, 0.2 / 0.5))
    assert math.isnan(max_sensitivity(np.zeros(2), copies))  # nothing to be relative to
    assert math.isnan(local_lipschitz(e, copies[2:], [0.1]))
    assert math.isnan(local_lipschitz(e, copies[:1], [0.0]))  # an unchanged input says nothing
    assert max_sensitivity(e, np.tile(e, (3, 1))) == 0.0
    with pytest.raises(ValueError, match="distance"):
        local_lipschitz(e, copies, [0.1])


def test_standardised_distance_divides_by_the_scale_and_ignores_missing():
    d = standardised_distances([1.0, 10.0, np.nan], [[2.0, 14.0, 3.0]], [1.0, 2.0, 5.0])
    assert d[0] == pytest.approx(math.sqrt(1 + 4))


def _with_copies(case, config, method, iid, vector_of, base_vector):
    """An explanation of case ``iid`` and of its noisy copies (rebuilt as the technical evaluation does)."""
    ev = config.evaluation
    features = case.data.feature_names
    row = case.data.X_test.iloc[[iid]]
    cls = int(case.model.predict(row)[0])
    original = Explanation(method, iid, cls, float(case.model.predict_proba(row)[0, cls]),
                           attributions=dict(zip(features, base_vector)))
    copies = []
    for r in range(3):
        copy = noisy_copies(case.data, row, [iid], noise_std=ev.stability.noise_std, repeat=r,
                            random_state=ev.random_state)
        copies.append(Explanation(method, iid, cls, float(case.model.predict_proba(copy)[0, cls]),
                                  attributions=dict(zip(features, vector_of(copy)))))
    return original, copies


def test_a_constant_explainer_is_perfectly_stable_but_not_faithful(lr):
    """Stability alone cannot reward an explanation: one that ignores the input never moves."""
    config = HexevalConfig()
    config.evaluation.stability.noise_std = 0.1
    features = lr.data.feature_names
    constant = np.arange(1, 9, dtype=float)  # always the same ranking, x7 first and x0 last, whatever the case

    def truth_of(frame):
        x = frame.iloc[0]
        cls = int(lr.model.predict(frame)[0])
        sign = 1.0 if cls == 1 else -1.0
        return [sign * 2.5 * x["x0"], -sign * 2.0 * x["x1"], *([0.0] * 6)]

    explanations, perturbed = [], {}
    for iid in range(30):
        for method, vector_of, base in (("Constant", lambda f: constant, constant),
                                        ("Truth", truth_of, truth_of(lr.data.X_test.iloc[[iid]]))):
            original, copies = _with_copies(lr, config, method, iid, vector_of, base)
            explanations.append(original)
            perturbed[(method, iid)] = copies
    long = compute_instance_metrics(lr.model, lr.data, explanations, config, perturbed=perturbed)
    means = long.groupby(["metric", "method"])["value"].mean()
    assert means[("max_sensitivity", "Constant")] == 0.0 and means[("local_lipschitz", "Constant")] == 0.0
    assert means[("max_sensitivity", "Truth")] > 0 and np.isfinite(means[("local_lipschitz", "Truth")])
    # ... yet the constant explainer is clearly less faithful than the one that follows the model
    assert means[("fidelity_combined", "Constant")] < means[("fidelity_combined", "Truth")] - 0.1


def test_copies_that_cannot_be_rebuilt_are_left_out_of_local_lipschitz(lr):
    config = HexevalConfig()
    original, copies = _with_copies(lr, config, "SHAP", 0, lambda f: np.ones(8) + f.iloc[0].to_numpy(),
                                    np.ones(8))
    for c in copies:
        c.probability = 0.123456  # not what the model says for the rebuilt copy
    long = compute_instance_metrics(lr.model, lr.data, [original], config, perturbed={("SHAP", 0): copies})
    values = long.set_index("metric")["value"]
    assert math.isnan(values["local_lipschitz"]) and np.isfinite(values["max_sensitivity"])
