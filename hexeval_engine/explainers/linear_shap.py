"""Exact interventional SHAP for pipelines that end in a linear (logistic) classifier.

For a model whose positive-class log-odds is linear in the columns the final estimator sees,
``f(x) = w . t(x) + b``, the interventional Shapley value of column ``k`` against a background
``B`` is ``w_k * (t_k(x) - mean_B t_k)`` (Lundberg & Lee, "A Unified Approach to Interpreting
Model Predictions", NeurIPS 2017, linear SHAP under feature independence; shap's
``LinearExplainer`` with an independent masker computes the same). When every preprocessing output
column depends on one raw feature only (one-hot encoding, scaling, imputation), ``f`` is additive
in the raw features and the sum of a raw feature's column values is that raw feature's exact
interventional Shapley value. Values are in **log-odds** (logit) units: they add up, with the
base value ``b + w . mean_B t``, to the model's log-odds of the positive class.

Public interface
----------------
``LinearShap.build(model, background_raw, mapping, check_rows, check_positive) -> LinearShap | None``
``LinearShap.values(X_raw) -> (phi (n, p_raw), base (n,))``   class-1 log-odds attributions

``build`` returns ``None`` (the caller uses another algorithm) unless both checks pass:
the model's positive-class probabilities of ``check_rows`` (``check_positive``) equal ``sigmoid(w . t(x) + b)``
(to ``PROBABILITY_TOLERANCE``), and swapping one raw feature's values between background rows
changes only the columns mapped to that feature (so the sum back to raw features is exact).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .feature_mapping import dense_matrix, sum_to_raw

log = logging.getLogger(__name__)

#: Largest |sigmoid(w . t(x) + b) - predict_proba| accepted as "this estimator is linear-logistic".
PROBABILITY_TOLERANCE = 1e-9
#: Background rows used to check that the preprocessing works column by column.
COLUMNWISE_CHECK_ROWS = 20

ALGORITHM = "Exact linear SHAP (interventional, closed form, log-odds units)"


@dataclass(frozen=True)
class LinearShap:
    """Closed-form SHAP of a linear-logistic final estimator, summed back to raw features."""

    model: object
    coef: np.ndarray        # (q,) weights of the transformed columns, towards the data's positive class
    intercept: float
    background_mean: np.ndarray  # (q,) mean transformed background row
    mapping: np.ndarray     # (q,) raw feature index of each transformed column
    n_raw: int

    @classmethod
    def build(cls, model, background_raw: pd.DataFrame, mapping, check_rows: pd.DataFrame,
              check_positive) -> "LinearShap | None":
        """The explainer for ``model``, or ``None`` when it is not a verified linear-logistic pipeline.

        ``background_raw`` has the raw feature columns in the order ``mapping`` indexes.
        """
        parts = _linear_parts(model)
        if parts is None or mapping is None:
            return None
        coef, intercept = parts
        background = dense_matrix(model.transform(background_raw))
        if background.shape[1] != len(coef) or len(mapping) != len(coef):
            return None
        checked = dense_matrix(model.transform(check_rows))
        logit = checked @ coef + intercept
        proba = np.asarray(check_positive, dtype=float)
        error = float(np.max(np.abs(_sigmoid(logit) - proba))) if len(proba) else 0.0
        if not error <= PROBABILITY_TOLERANCE:
            log.info("The final estimator is not logistic in its inputs (max error %.2e); not using linear SHAP.",
                     error)
            return None
        if not _columnwise(model, background_raw, mapping):
            log.info("The preprocessing mixes raw features in one column; not using linear SHAP.")
            return None
        return cls(model, coef, float(intercept), background.mean(axis=0), np.asarray(mapping),
                   len(background_raw.columns))

    def values(self, X_raw: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Class-1 log-odds attributions per raw feature ``(n, p)`` and base values ``(n,)``."""
        Xt = dense_matrix(self.model.transform(X_raw))
        phi = (Xt - self.background_mean) * self.coef
        base = float(self.intercept + self.background_mean @ self.coef)
        return sum_to_raw(phi, self.mapping, self.n_raw), np.full(len(Xt), base)


def _linear_parts(model):
    """``(w, b)`` of the positive class's log-odds when the final estimator is a binary linear classifier."""
    est = model.final_estimator
    coef = getattr(est, "coef_", None)
    intercept = getattr(est, "intercept_", None)
    if coef is None or intercept is None or not hasattr(est, "predict_proba"):
        return None
    coef = np.asarray(coef, dtype=float)
    intercept = np.asarray(intercept, dtype=float).reshape(-1)
    if coef.ndim != 2 or coef.shape[0] != 1 or intercept.shape != (1,):
        return None
    w, b = coef[0], float(intercept[0])
    # coef_ describes classes_[1]; when the data's positive label is classes_[0], its log-odds is the negative.
    return (-w, -b) if model.positive_index == 0 else (w, b)


def _columnwise(model, background_raw: pd.DataFrame, mapping) -> bool:
    """True when changing one raw feature changes only the transformed columns mapped to it.

    Each raw feature in turn takes another background row's values (rows rolled by one); all
    the variants are transformed in one call and compared with the untouched rows.
    """
    rows = background_raw.iloc[:COLUMNWISE_CHECK_ROWS].reset_index(drop=True)
    m = len(rows)
    if m < 2:
        return True
    base = dense_matrix(model.transform(rows))
    blocks = []
    for col in rows.columns:
        block = rows.copy()
        block[col] = np.roll(rows[col].to_numpy(), 1)
        blocks.append(block)
    changed = dense_matrix(model.transform(pd.concat(blocks, ignore_index=True))).reshape(len(blocks), m, -1)
    mapping = np.asarray(mapping)
    for i in range(len(blocks)):
        others = mapping != i
        if not np.array_equal(changed[i][:, others], base[:, others], equal_nan=True):
            return False
    return True


def _sigmoid(z):
    from scipy.special import expit  # only logistic outputs need it

    return expit(z)
