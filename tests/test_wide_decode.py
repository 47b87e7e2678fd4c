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


def test_decoded_frames_share_one_index_and_the_model_still_checks_its_columns():
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from hexeval_engine.models.model_wrapper import HexevalModel

    X = _frame(rows=60, wide=120).astype(float)
    coder = FeatureCoder.fit(X, [])
    M = coder.encode(X)
    first, second = coder.decode(M[:30]), coder.decode(M[30:])
    assert first.columns is second.columns and list(first.columns) == list(X.columns)
    y = (X["m000"] > 0).astype(int)
    model = HexevalModel.from_artefact(make_pipeline(SimpleImputer(), LogisticRegression(max_iter=500)).fit(X, y))
    oracle = model.estimator.predict_proba(second)  # scikit-learn's own path (same frame: same memory order)
    model.predict_proba(first)
    assert np.array_equal(model.predict_proba(second), oracle)
    # the same index object, but the model now wants another order: the frame is reordered, not taken as it is
    model.feature_names = list(reversed(model.feature_names))
    assert list(model._columns(second).columns) == model.feature_names
    # another fitted imputer whose columns differ: the shared index is compared again, not trusted
    other = make_pipeline(SimpleImputer(), LogisticRegression(max_iter=500)).fit(X.iloc[:, ::-1], y)
    assert np.array_equal(HexevalModel.from_artefact(other).predict_proba(second),
                          other.predict_proba(second[list(reversed(X.columns))]))
