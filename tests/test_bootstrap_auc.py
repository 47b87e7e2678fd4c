"""The bootstrap ROC-AUC of the signal check: every resample's value equals the rank-sum AUC bit for bit."""

from __future__ import annotations

import numpy as np

from hexeval_engine.technical.sanity import _auc, bootstrap_aucs


def _pairs_auc(y, score):
    """Oracle: count the positive-negative pairs directly (ties one half)."""
    pos, neg = score[y == 1], score[y == 0]
    if not len(pos) or not len(neg):
        return np.nan
    diff = pos[:, None] - neg[None, :]
    return ((diff > 0).sum() + 0.5 * (diff == 0).sum()) / (len(pos) * len(neg))


def test_every_resample_equals_the_rank_sum_auc_bit_for_bit():
    rng = np.random.default_rng(0)
    for n, levels in ((7, 3), (61, 1000), (400, 12), (2000, 10**6)):
        y = (rng.random(n) < 0.4).astype(int)
        score = np.round(rng.random(n) * levels) / levels  # ties when levels is small
        resamples = [rng.integers(0, n, n) for _ in range(60)]
        fast = bootstrap_aucs(y, score, resamples)
        slow = np.array([_auc(y[idx], score[idx]) for idx in resamples])
        assert np.array_equal(fast, slow, equal_nan=True)
        assert np.allclose(fast, [_pairs_auc(y[idx], score[idx]) for idx in resamples], rtol=0, atol=1e-12,
                           equal_nan=True)


def test_a_resample_with_one_class_is_nan():
    y = np.array([1, 0, 1])
    out = bootstrap_aucs(y, np.array([0.9, 0.1, 0.8]), [np.array([0, 0, 2]), np.array([0, 1, 2])])
    assert np.isnan(out[0]) and out[1] == 1.0
