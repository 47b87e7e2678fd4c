"""The feature coder's decode of all-numeric data, now built as one block (issue 36, item 5: 300 numeric columns).

Its speed is measured by benchmarks/wide_numeric.py. Here: the round trip ``decode(encode(X))`` gives back ``X``
exactly (values, column order, integer columns as integers); a missing value keeps its integer column as floats.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.testing import assert_frame_equal

from hexeval_engine.data.coding import FeatureCoder


def _frame(rows=50, wide=300, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(rows, wide)).round(3), columns=[f"m{i:03d}" for i in range(wide)])
    frame["count"] = rng.integers(0, 9, rows)  # int64
    frame["small"] = rng.integers(0, 3, rows).astype("int32")
    return frame


def test_numeric_round_trip_is_exact():
    X = _frame()
    coder = FeatureCoder.fit(X, [])
    back = coder.decode(coder.encode(X))
    assert_frame_equal(back, X)  # dtypes included: int64 and int32 columns come back as such


def test_integer_columns_are_rounded_not_truncated_and_missing_values_stay():
    X = _frame(rows=3, wide=2)
    coder = FeatureCoder.fit(X, [])
    M = coder.encode(X)
    M[:, 2] = [1.6, 2.4, np.nan]  # "count": one value missing
    M[:, 3] = [0.51, 1.49, 2.0]  # "small": complete, rounded
    back = coder.decode(M)
    assert back["count"].dtype == np.float64 and back["count"].tolist()[:2] == [1.6, 2.4]
    assert np.isnan(back["count"].iloc[2])
    assert back["small"].dtype == np.int32 and back["small"].tolist() == [1, 1, 2]
