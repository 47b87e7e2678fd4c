"""HEXEval's Anchor beam search finds the library's anchors: same rules, precision and coverage."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from anchor.anchor_base import AnchorBaseBeam

from hexeval_engine.explainers import anchor_explainer as ae
from hexeval_engine.explainers.anchor_sampling import AnchorSampler
from hexeval_engine.explainers.anchor_search import anchor_beam, dlow_bernoulli, dup_bernoulli
from hexeval_engine.explainers.base import explained_classes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def _library_sample_fn(sample_fn):
    """The library pre-allocates in the sample function's dtypes; int8 flags keep the test's memory small."""
    def compact(present, num_samples, compute_labels=True):
        raw, data, labels = sample_fn(present, num_samples, compute_labels=compute_labels)
        if compute_labels:
            labels = np.asarray(labels, dtype=np.int8)
        return np.empty((len(raw), 0), dtype=np.float32), np.asarray(data, dtype=np.int8), labels
    return compact


def _compare(model, data, config, rows):
    explainer = ae.AnchorExplainer(model, data, config)
    X = data.X_test.iloc[rows][list(data.feature_names)].reset_index(drop=True)
    classes, _ = explained_classes(model, X)
    M, _ = explainer.space.encode(X)
    settings = dict(delta=ae.DELTA, epsilon=ae.TAU, batch_size=ae.BATCH_SIZE, desired_confidence=explainer.threshold,
                    beam_size=ae.BEAM_SIZE, min_samples_start=ae.MIN_SAMPLES_START,
                    max_anchor_size=ae.MAX_ANCHOR_SIZE)

    def classify(Z):
        return (explainer.predictor.positive(Z) >= model.threshold).astype(int)

    lengths = []
    for i in range(len(M)):
        label = int(classes[i])
        sample_fn, mapping = explainer._anchor.get_sample_fn(M[i], classify, desired_label=label)
        np.random.seed(1000 + i)
        want = AnchorBaseBeam.anchor_beam(_library_sample_fn(sample_fn), **settings)
        sampler = AnchorSampler(explainer._anchor, M[i])  # as AnchorExplainer runs it
        assert sampler.mapping == mapping
        np.random.seed(1000 + i)
        got = anchor_beam(sampler, lambda raw: (classify(raw) == label).astype(int), **settings)
        assert got["feature"] == want["feature"]
        assert got["precision"] == want["precision"]
        assert got["coverage"] == want["coverage"]
        assert got["all_precision"] == want["all_precision"]
        lengths.append(len(got["feature"]))
    return lengths


def test_same_anchors_as_the_library_on_heart(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    lengths = _compare(model, data, config, [0, 1, 2, 3, 4])
    assert max(lengths) >= 2  # multi-predicate rules: the beam extension step was exercised


def test_same_anchors_as_the_library_on_credit_risk(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    _compare(model, data, config, [0, 3])


def test_same_anchors_as_the_library_on_30_synthetic_columns():
    from workloads import load_workload

    model, data, config, _ = load_workload("synthetic:30", 10)
    lengths = _compare(model, data, config, [0, 1])
    assert max(lengths) == ae.MAX_ANCHOR_SIZE


@pytest.mark.parametrize("p", [0.0, 0.05, 0.5, 0.93, 1.0])
def test_vectorised_bounds_equal_the_library_scalar_bounds(p):
    levels = np.array([1e-4, 0.01, 0.3, 2.0, 40.0])
    up = dup_bernoulli(np.full(len(levels), p), levels)
    low = dlow_bernoulli(np.full(len(levels), p), levels)
    for k, level in enumerate(levels):
        assert up[k] == AnchorBaseBeam.dup_bernoulli(p, level)
        assert low[k] == AnchorBaseBeam.dlow_bernoulli(p, level)


def _same_draws(anchor_explainer, row, rules, seed=7):
    """``AnchorSampler.draw`` gives the library ``sample_fn``'s rows and predicate flags, and leaves the RNG alike."""
    sample_fn, _ = anchor_explainer.get_sample_fn(row, lambda Z: np.zeros(len(Z), dtype=int), desired_label=0)
    sampler = AnchorSampler(anchor_explainer, row)
    for present in rules:
        np.random.seed(seed)
        raw, data, _ = sample_fn(list(present), 300, compute_labels=False)
        after = np.random.random()
        np.random.seed(seed)
        draw = sampler.draw(list(present), 300)
        assert np.random.random() == after
        assert np.array_equal(draw.raw, raw)
        keys = sampler.train_keys[draw.rows]
        keys[:, draw.features] = draw.keys
        flags = sampler.table[np.arange(sampler.n_predicates), keys[:, sampler.features]]
        assert np.array_equal(flags, data.astype(bool))


def test_sampler_draws_the_library_samples_on_both_use_cases(usecase_bundle):
    for name, rows in (("heart", [0, 5]), ("credit_risk", [0, 3])):
        _, config, data, model = usecase_bundle(name)
        explainer = ae.AnchorExplainer(model, data, config)
        X = data.X_test.iloc[rows][list(data.feature_names)].reset_index(drop=True)
        M, _ = explainer.space.encode(X)
        for row in M:
            n = AnchorSampler(explainer._anchor, row).n_predicates
            rng = np.random.default_rng(n)
            rules = [()] + [tuple(sorted(rng.choice(n, size, replace=False)))
                            for size in (1, 2, 3, 4) for _ in range(6)]
            _same_draws(explainer._anchor, row, rules)


def test_sampler_draws_the_library_samples_where_no_training_row_meets_the_rule():
    """An empty quartile bin: the library then draws replacement values uniformly; so does the sampler."""
    from anchor.anchor_tabular import AnchorTabularExplainer

    rng = np.random.default_rng(0)
    train = np.column_stack([np.repeat([0.0, 2.0], 50), rng.integers(0, 3, 100).astype(float), rng.normal(size=100)])
    explainer = AnchorTabularExplainer(["0", "1"], ["gap", "colour", "x"], train, {1: ["red", "green", "blue"]})
    row = np.array([0.5, 1.0, 0.0])   # its "gap" value lies in the empty bin (0, 1]
    sampler = AnchorSampler(explainer, row)
    gap = [j for j, (f, _, _) in sampler.mapping.items() if f == 0]
    assert [sampler.mapping[j][1] for j in gap] == ["geq", "leq", "leq"]
    assert ((explainer.d_train[:, 0] > 0) & (explainer.d_train[:, 0] <= 1)).sum() == 0
    rules = [tuple(gap[:2]), (gap[0],), (gap[1],), tuple(gap[:2]) + (0,), tuple(range(sampler.n_predicates))]
    _same_draws(explainer, row, rules)


def test_argmax_of_upper_bounds_computed_on_few_arms_equals_the_full_argmax():
    from hexeval_engine.explainers.anchor_search import argmax_upper

    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(2, 400))
        means = rng.choice([0.0, 1.0, 0.9, 0.5], n) if rng.random() < 0.3 else rng.random(n)
        level = 20.0 / rng.integers(1, 5000, n)
        full = dup_bernoulli(means, level)
        k, bound = argmax_upper(means, level)
        assert k == int(np.argmax(full)) and bound == full[k]
