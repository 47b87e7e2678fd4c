"""The reference row features are "removed" to, for fidelity curves.

Public interface (stable)
-------------------------
``make_baseline(data) -> pd.DataFrame``  one raw row, same columns and dtypes as ``data.X_train``
``make_class_baselines(data, predicted_train) -> pd.DataFrame``  two raw rows: row ``c`` is the
baseline used when explaining class ``c`` (the average of the training rows predicted as the other class)
``BASELINES``  the names ``evaluation.fidelity.baseline`` accepts
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)

#: ``training_average``: one row for every case; ``other_class_average``: one row per explained class.
BASELINES = ("training_average", "other_class_average")


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


def make_class_baselines(data, predicted_train) -> pd.DataFrame:
    """Two raw rows: row ``c`` is the average of the training rows the model predicts as ``1 - c``.

    A contrastive reference (Sturmfels, Lundberg & Lee 2020, *Visualizing the impact of feature
    attribution baselines*, Distill; Covert et al. 2021): removing a feature gives it the value typical
    of the *other* class, so the prediction for the all-baseline row is far from the explained class
    for almost every case, and normalised fidelity is defined where a training-average baseline
    already predicts the class. Averages as in :func:`make_baseline`. When the model predicts no
    training row as ``1 - c``, row ``c`` falls back to the training average (logged).

    Parameters
    ----------
    data : Dataset
    predicted_train : array-like of int, shape (len(data.X_train),)
        The model's predicted class of each training row.
    """
    predicted_train = np.asarray(predicted_train, dtype=int).reshape(-1)
    if len(predicted_train) != len(data.X_train):
        raise ValueError(f"One predicted class per training row is needed; got {len(predicted_train)} "
                         f"for {len(data.X_train)}.")
    rows = []
    for explained in (0, 1):
        others = predicted_train == 1 - explained
        if not others.any():
            log.warning("No training row is predicted as class %d; cases of class %d are compared with the "
                        "training average instead.", 1 - explained, explained)
            rows.append(make_baseline(data))
            continue
        subset = type(data)(**{**data.__dict__, "X_train": data.X_train[others].reset_index(drop=True)})
        rows.append(make_baseline(subset))
    return pd.concat(rows, ignore_index=True)
