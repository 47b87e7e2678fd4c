"""The question skills' faster paths give the numbers of the plain ones (issue 32's speed acceptance).

Each test computes the same thing the simple way (one ``rng.choice`` call per draw, every job measured on its
own) and checks the faster path gives exactly the same values, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from hexeval_engine.metrics import masking
from hexeval_engine.metrics.masking import sorted_choices


def _one_by_one(rng, n, m, draws):
    return np.array([sorted(rng.choice(n, size=m, replace=False).tolist()) for _ in range(draws)],
                    dtype=np.int64).reshape(draws, m)


@pytest.mark.parametrize("n, m", [(1, 1), (2, 1), (2, 2), (5, 3), (13, 1), (13, 2), (13, 5), (13, 13), (40, 7),
                                  (10_000, 9), (20_000, 3), (3_000_000_000, 4), (2 ** 33 + 5, 3)])
@pytest.mark.parametrize("seed", [0, 7, 123])
def test_sorted_choices_are_successive_choice_calls(n, m, seed):
    # the large populations draw bounds where most 32-bit draws are rejected (and one past 32 bits)
    mine, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    for draws in (1, 24, 5):  # several batches in a row: each leaves the generator where the calls leave it
        got = sorted_choices(mine, n, m, draws)
        assert got.dtype == np.int64 and got.shape == (draws, m)
        assert np.array_equal(got, _one_by_one(theirs, n, m, draws))
    assert mine.random() == theirs.random()


@pytest.mark.parametrize("n, m", [(20_000, 500), (13, 0), (0, 0)])
def test_sorted_choices_where_choice_shuffles_the_population_or_takes_nothing(n, m):
    mine, theirs = np.random.default_rng(4), np.random.default_rng(4)
    assert np.array_equal(sorted_choices(mine, n, m, 6), _one_by_one(theirs, n, m, 6))
    assert mine.random() == theirs.random()


def test_sorted_choices_when_this_numpy_would_draw_differently(monkeypatch):
    monkeypatch.setattr(masking, "_same_as_choice", lambda: False)
    mine, theirs = np.random.default_rng(9), np.random.default_rng(9)
    assert np.array_equal(sorted_choices(mine, 13, 4, 24), _one_by_one(theirs, 13, 4, 24))
    assert mine.random() == theirs.random()
    with pytest.raises(ValueError):
        sorted_choices(mine, 3, 4, 1)


def test_the_batched_draw_is_checked_against_this_numpy():
    assert masking._same_as_choice()
