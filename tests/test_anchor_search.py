"""HEXEval's Anchor beam search finds the library's anchors: same rules, precision and coverage."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from anchor.anchor_base import AnchorBaseBeam

from hexeval_engine.explainers import anchor_explainer as ae
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
        found = []
        label = int(classes[i])
        for search in (lambda fn: AnchorBaseBeam.anchor_beam(_library_sample_fn(fn), **settings),
                       lambda fn: anchor_beam(fn, **settings,  # as AnchorExplainer runs it: pooled labelling
                                              label_fn=lambda raw: (classify(raw) == label).astype(int))):
            sample_fn, _ = explainer._anchor.get_sample_fn(M[i], classify, desired_label=int(classes[i]))
            np.random.seed(1000 + i)
            found.append(search(sample_fn))
        want, got = found
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
