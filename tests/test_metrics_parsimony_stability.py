"""Parsimony and stability metrics: known values and monotonicity."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hexeval_engine.explanation import Explanation
from hexeval_engine.metrics import (attribution_similarity, entropy_complexity, gini_sparseness, instance_stability,
                                    num_important_features, seed_agreement)

FEATURES = ["a", "b", "c", "d", "e"]


def test_known_values():
    uniform, one_hot = np.ones(5), np.array([0, 0, 3.0, 0, 0])
    assert gini_sparseness(uniform) == pytest.approx(0.0, abs=1e-12)
    assert gini_sparseness(one_hot) == pytest.approx(1 - 1 / 5)
    assert gini_sparseness([0, 0, 1, 1]) == pytest.approx(0.5)
    assert entropy_complexity(uniform) == pytest.approx(math.log(5))
    assert entropy_complexity(one_hot) == pytest.approx(0.0)
    assert num_important_features(uniform) == 5
    assert num_important_features(one_hot) == 1
    assert num_important_features([1, 1, 1, 0, 0, 0, 0]) == 3  # derived vector: the rule's features


def test_sign_and_scale_do_not_matter():
    v = np.array([0.5, -2.0, 0.1, 0.0, 1.0])
    for fn in (gini_sparseness, entropy_complexity, num_important_features):
        assert fn(v) == pytest.approx(fn(-7 * v))


@pytest.mark.parametrize("fn", [gini_sparseness, entropy_complexity, num_important_features])
def test_all_zero_or_nan_is_undefined(fn):
    assert math.isnan(fn(np.zeros(4)))
    assert math.isnan(fn([1.0, np.nan, 0.5]))


def test_sparser_vector_scores_better_on_all_three():
    dense = np.array([1.0, 0.9, 0.8, 0.7, 0.6, 0.5])
    sparse = np.array([1.0, 0.9, 0.05, 0.02, 0.01, 0.0])
    assert gini_sparseness(sparse) > gini_sparseness(dense)
    assert entropy_complexity(sparse) < entropy_complexity(dense)
    assert num_important_features(sparse) < num_important_features(dense)


def test_similarity_bounds_and_meaning():
    a = np.array([1.0, -2.0, 0.5])
    assert attribution_similarity(a, a) == pytest.approx(1.0)
    assert attribution_similarity(a, 3 * a) == pytest.approx(1.0)
    assert attribution_similarity(a, -a) == pytest.approx(-1.0)
    assert attribution_similarity(np.zeros(3), np.zeros(3)) == 1.0
    assert attribution_similarity(a, np.zeros(3)) == 0.0
    assert math.isnan(attribution_similarity(a, [1.0, np.nan, 0.0]))
    with pytest.raises(ValueError):
        attribution_similarity(a, [1.0, 2.0])


def _lime(vec, iid=0, error=None):
    return Explanation("LIME", iid, 1, 0.8, attributions=dict(zip(FEATURES, map(float, vec))), error=error)


def test_more_noise_means_lower_stability():
    rng = np.random.default_rng(0)
    base = rng.normal(size=5)
    small = [_lime(base + rng.normal(scale=0.05, size=5)) for _ in range(5)]
    large = [_lime(base + rng.normal(scale=1.5, size=5)) for _ in range(5)]
    s_small = instance_stability(_lime(base), small, FEATURES)
    s_large = instance_stability(_lime(base), large, FEATURES)
    assert 1.0 >= s_small > s_large
    assert instance_stability(_lime(base), [_lime(base)], FEATURES) == pytest.approx(1.0)


def test_failed_runs_are_ignored_and_too_few_give_nan():
    base = np.array([1.0, 0.0, 0.5, -0.2, 0.0])
    failed = _lime(np.zeros(5), error="crashed")
    assert instance_stability(_lime(base), [failed, _lime(base)], FEATURES) == pytest.approx(1.0)
    assert math.isnan(instance_stability(_lime(base), [failed], FEATURES))
    assert math.isnan(instance_stability(_lime(base, error="x"), [_lime(base)], FEATURES))
    assert math.isnan(seed_agreement([_lime(base), failed], FEATURES))


def test_seed_agreement_is_mean_pairwise_similarity():
    runs = [_lime([1, 0, 0, 0, 0]), _lime([1, 1, 0, 0, 0]), _lime([0, 1, 0, 0, 0])]
    expected = np.mean([1 / math.sqrt(2), 0.0, 1 / math.sqrt(2)])
    assert seed_agreement(runs, FEATURES) == pytest.approx(expected)
    agreeing = [_lime([1, 0.1, 0, 0, 0]), _lime([1, 0.12, 0, 0, 0]), _lime([1, 0.09, 0, 0, 0])]
    assert seed_agreement(agreeing, FEATURES) > seed_agreement(runs, FEATURES)
