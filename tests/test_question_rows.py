"""``questions.rows.RowPool``: composed rows, and the distinct rows the model is asked about once."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.metrics.questions.rows import RowPool


def _pool():
    train = pd.DataFrame({
        "n": [1.0, 0.0, -0.0, np.nan, 1.0, np.nan],
        "i": [3, 3, 4, 4, 5, 3],
        "b": [True, False, True, True, False, True],
        "t": pd.Series(["x", "y", None, "x", None, "y"], dtype="str"),
        "c": pd.Categorical(["a", "b", "a", None, "b", "a"]),
        "o": pd.Series([1, "1", 1.0, None, 1, "1"], dtype=object),
    })
    data = SimpleNamespace(feature_names=list(train.columns), X_train=train)
    return RowPool(data, train.iloc[[0, 3]].reset_index(drop=True)), train


def _same(a: pd.Series, b: pd.Series, pick_a, pick_b) -> bool:
    """Oracle: two rows are the same when every value is (numbers bit for bit: -0.0 is not 0.0; missing equals
    missing of the same column); an object column's values only when they come from the same pool row."""
    for f in a.index:
        x, y = a[f], b[f]
        if f == "o":
            if pick_a[5] != pick_b[5]:
                return False
        elif f == "n":
            if np.float64(x).tobytes() != np.float64(y).tobytes():
                return False
        elif not ((pd.isna(x) and pd.isna(y)) or (not pd.isna(x) and not pd.isna(y) and x == y)):
            return False
    return True


@pytest.mark.parametrize("seed", range(5))
def test_distinct_rows_are_the_rows_with_the_same_owner_and_values(seed):
    pool, train = _pool()
    rng = np.random.default_rng(seed)
    # mostly the first case's row, a few values from other rows: many rows repeat
    pick = np.where(rng.random((40, 6)) < 0.25, rng.integers(0, pool.train_rows + 2, size=(40, 6)), pool.train_rows)
    owner = rng.integers(0, 2, size=40)
    first, inverse = pool.distinct(pick, owner)
    rows = pool.compose(pick)
    assert len(first) < len(rows)
    assert sorted(first.tolist()) == first.tolist()  # in the order they first come
    assert len(set(inverse.tolist())) == len(first)
    for i in range(len(rows)):
        same = [j for j in range(len(rows)) if owner[j] == owner[i] and _same(rows.iloc[i], rows.iloc[j], pick[i], pick[j])]
        assert first[inverse[i]] == same[0]  # the first row with the same owner and values stands for row i
    pd.testing.assert_frame_equal(rows.iloc[first[inverse]].reset_index(drop=True), rows)  # same values back


def test_a_negative_zero_and_other_objects_stay_apart():
    pool, _ = _pool()
    base = [pool.train_rows, 0, 0, 0, 0, 0]
    zero, negative, one_text, one_number = (list(base) for _ in range(4))
    zero[0], negative[0] = 1, 2  # 0.0 and -0.0
    one_text[5], one_number[5] = 1, 0  # "1" and 1 in an object column
    first, inverse = pool.distinct(np.array([zero, negative, one_text, one_number, zero]), [0, 0, 0, 0, 0])
    assert inverse.tolist() == [0, 1, 2, 3, 0] and first.tolist() == [0, 1, 2, 3]
