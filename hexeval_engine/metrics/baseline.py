"""The reference row features are "removed" to, for fidelity curves.

Public interface (stable)
-------------------------
``make_baseline(data) -> pd.DataFrame``  one raw row, same columns and dtypes as ``data.X_train``
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def make_baseline(data) -> pd.DataFrame:
    """One raw row standing for "feature absent": training mean / training mode.

    Removing a feature means replacing its value by an uninformative reference, as in the
    baseline-replacement removal of Covert, Lundberg & Lee (2021, *Explaining by Removing*).

    Parameters
    ----------
    data : Dataset
        Uses ``X_train``, ``feature_names`` and ``categorical_features``.

    Returns
    -------
    pandas.DataFrame
        One row with the columns of ``data.feature_names`` and the dtypes of ``data.X_train``.
        Numeric features take the training mean (missing values ignored), rounded and kept as
        integers for integer columns so the row stays a value the column can hold; categorical
        features take the most frequent training value (the smallest one on ties).
    """
    X = data.X_train
    values = {}
    for col in data.feature_names:
        series = X[col]
        if col in data.categorical_features or not pd.api.types.is_numeric_dtype(series):
            mode = series.mode(dropna=True)
            value = mode.iloc[0] if len(mode) else series.iloc[0]
        else:
            mean = float(series.mean(skipna=True))
            value = int(np.rint(mean)) if pd.api.types.is_integer_dtype(series) else mean
        values[col] = pd.Series([value]).astype(series.dtype)
    return pd.DataFrame(values, columns=list(data.feature_names))
