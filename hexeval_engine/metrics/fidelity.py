"""Deletion and insertion fidelity: does removing what the explanation calls important matter?

Public interface (stable)
-------------------------
``deletion_insertion_auc(model, X_raw, importances, explained_class, baseline_row, steps, *, chunk_rows=50_000)
-> (deletion, insertion)``, each an ``(n,)`` float array
``deletion_insertion_auc_loop(...)``  same arguments and values, one model call per masked row
(reference implementation for tests and benchmarks only)
``step_counts(p, steps) -> ndarray``  the numbers of features removed at each point of the curve

Definitions (Petsiuk et al. 2018, RISE; Covert, Lundberg & Lee 2021, *Explaining by Removing*)
------------------------------------------------------------------------------------------
Features are ordered by importance, largest first (ties keep the order of ``feature_names``).
For ``k`` in ``step_counts(p, steps)``:

* deletion: the top-``k`` features take the baseline value, the rest keep the instance's values;
* insertion: the top-``k`` features take the instance's values, the rest the baseline value.

Each curve is the model's probability of the *explained* class; its area is computed with the
trapezoidal rule over ``x = k / p`` in ``[0, 1]``, so both areas lie in ``[0, 1]``. A faithful
ranking makes the deletion curve fall fast (low area) and the insertion curve rise fast (high).

An importance vector that is all zero (or not finite), e.g. the derived vector of an empty
Anchor rule, ranks no feature: any order would be arbitrary, so both areas are ``NaN`` and the
instance is left out of the mean (the row count ``n`` in the summary shows it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def step_counts(p: int, steps: int) -> np.ndarray:
    """Numbers of features masked along a curve: ``steps`` points from 0 to ``p`` (rounded, unique).

    With ``steps >= p + 1`` every ``k = 0..p`` is used.
    """
    if p < 1:
        raise ValueError(f"Fidelity needs at least one feature; got p={p}.")
    if steps < 2:
        raise ValueError(f"Fidelity needs at least 2 steps (0 and all features); got steps={steps}.")
    return np.unique(np.rint(np.linspace(0, p, int(steps))).astype(int))


def deletion_insertion_auc(model, X_raw: pd.DataFrame, importances, explained_class, baseline_row: pd.DataFrame,
                           steps: int, *, chunk_rows: int = 50_000) -> tuple[np.ndarray, np.ndarray]:
    """Deletion and insertion AUC for many instances with a few large model calls.

    Parameters
    ----------
    model : HexevalModel
        Anything with ``predict_proba(raw DataFrame) -> (m, 2)``.
    X_raw : pandas.DataFrame
        The ``n`` instances in raw columns; its columns are the features, in the order the
        importance columns refer to.
    importances : array-like, shape (n, p)
        Importance of each feature for each instance (larger = more important). Pass absolute
        attributions or derived non-negative vectors.
    explained_class : array-like of int, shape (n,)
        The class (0 or 1) whose probability is traced for each instance.
    baseline_row : pandas.DataFrame
        One raw row (see :func:`make_baseline`) with the same columns.
    steps : int
        Number of points on each curve (``evaluation.fidelity.steps``).
    chunk_rows : int
        Largest number of rows sent to the model in one call.

    Returns
    -------
    deletion, insertion : numpy.ndarray, shape (n,)
        Areas in ``[0, 1]``; ``NaN`` for instances whose importance ranks no feature.
    """
    plan = _plan(X_raw, importances, explained_class, baseline_row, steps)
    if plan.valid.sum() == 0:
        return plan.empty(), plan.empty()
    frame = _masked_frame(plan)
    cls = np.repeat(plan.cls[plan.valid], 2 * len(plan.ks))
    proba = np.empty(len(frame))
    for start in range(0, len(frame), chunk_rows):
        part = frame.iloc[start:start + chunk_rows].reset_index(drop=True)
        p = model.predict_proba(part)
        proba[start:start + len(part)] = p[np.arange(len(part)), cls[start:start + len(part)]]
    curves = proba.reshape(int(plan.valid.sum()), 2, len(plan.ks))
    return plan.areas(curves)


def deletion_insertion_auc_loop(model, X_raw: pd.DataFrame, importances, explained_class, baseline_row: pd.DataFrame,
                                steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Reference implementation of :func:`deletion_insertion_auc`: one model call per masked row.

    Same arguments and values; kept only to test and benchmark the vectorised version.
    """
    plan = _plan(X_raw, importances, explained_class, baseline_row, steps)
    n_valid = int(plan.valid.sum())
    curves = np.empty((n_valid, 2, len(plan.ks)))
    for slot, i in enumerate(np.flatnonzero(plan.valid)):
        instance = X_raw.iloc[[i]].reset_index(drop=True)
        for s, k in enumerate(plan.ks):
            top = plan.order[i, :k]
            for curve, (masked_from, rest_from) in enumerate(((baseline_row, instance), (instance, baseline_row))):
                row = rest_from.copy()
                for j in top:
                    col = plan.columns[j]
                    row[col] = masked_from[col].to_numpy()
                curves[slot, curve, s] = model.predict_proba(row)[0, plan.cls[i]]
    return plan.areas(curves)


class _Plan:
    """Shared, validated inputs of both implementations."""

    def __init__(self, X, base, order, cls, valid, ks):
        self.X, self.base, self.order, self.cls, self.valid, self.ks = X, base, order, cls, valid, ks
        self.columns = list(X.columns)

    def empty(self) -> np.ndarray:
        return np.full(len(self.X), np.nan)

    def areas(self, curves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = self.ks / self.ks[-1]
        deletion, insertion = self.empty(), self.empty()
        deletion[self.valid] = np.trapezoid(curves[:, 0, :], x, axis=1)
        insertion[self.valid] = np.trapezoid(curves[:, 1, :], x, axis=1)
        return deletion, insertion


def _plan(X_raw, importances, explained_class, baseline_row, steps) -> _Plan:
    imp = np.asarray(importances, dtype=float)
    n, p = len(X_raw), X_raw.shape[1]
    if imp.shape != (n, p):
        raise ValueError(f"importances must have shape (n_instances, n_features) = ({n}, {p}); got {imp.shape}.")
    cls = np.asarray(explained_class, dtype=int).reshape(-1)
    if cls.shape != (n,) or not np.isin(cls, (0, 1)).all():
        raise ValueError(f"explained_class must hold one 0/1 class per instance ({n}); got {cls[:10]}...")
    if list(baseline_row.columns) != list(X_raw.columns) or len(baseline_row) != 1:
        raise ValueError("baseline_row must be one row with the same columns, in the same order, as X_raw.")
    finite = np.isfinite(imp).all(axis=1)
    valid = finite & (np.abs(np.where(np.isfinite(imp), imp, 0.0)).sum(axis=1) > 0)
    # Stable sort of the negated importance: largest first, ties in feature order.
    order = np.argsort(-np.where(finite[:, None], imp, 0.0), axis=1, kind="stable")
    X = X_raw.reset_index(drop=True)
    base = baseline_row.reset_index(drop=True)
    return _Plan(X, base, order, cls, valid, step_counts(p, steps))


def _masked_frame(plan: _Plan) -> pd.DataFrame:
    """All masked rows, ordered instance -> (deletion, insertion) -> step, as one raw frame.

    Each column is gathered with ``take`` from the instance rows plus the baseline row appended
    as the last row, so every column keeps its own dtype (strings stay strings, ints stay ints).
    """
    idx = np.flatnonzero(plan.valid)
    m, p, K = len(idx), len(plan.columns), len(plan.ks)
    ranks = np.empty((m, p), dtype=int)
    ranks[np.arange(m)[:, None], plan.order[idx]] = np.arange(p)[None, :]
    in_top = ranks[:, None, :] < plan.ks[None, :, None]  # (m, K, p): feature among the top k
    from_baseline = np.stack([in_top, ~in_top], axis=1)  # deletion masks the top k, insertion the rest
    n_base = len(plan.X)
    source = np.where(from_baseline, n_base, idx[:, None, None, None]).reshape(m * 2 * K, p)
    pool = pd.concat([plan.X, plan.base], ignore_index=True)
    cols = {}
    for j, col in enumerate(plan.columns):
        column = pool[col]
        if column.dtype != plan.X[col].dtype:
            column = column.astype(plan.X[col].dtype)
        cols[col] = pd.Series(column.array.take(source[:, j]), name=col)
    return pd.DataFrame(cols, columns=plan.columns)
