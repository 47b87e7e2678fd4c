"""Deletion and insertion fidelity: does removing what the explanation calls relevant matter?

Public interface (stable)
-------------------------
``deletion_insertion_auc(model, X_raw, scores, explained_class, baseline_row, steps, *, tie_draws=1,
random_state=0, instance_ids=None, baseline_of=None, chunk_rows=50_000) -> (deletion, insertion)``  raw areas
``fidelity_scores(model, X_raw, scores, explained_class, baseline_row, steps, *, min_gap=0.05, ...)
-> dict[str, ndarray]``  the five per-instance values below
(reference implementation for tests and benchmarks only)
``FidelityCurves(rows, scores, explained_class, steps, ...)``  queue the curves on a :class:`MaskedRows`
shared with other metrics, then ``.result(proba, min_gap=...)``
``step_counts(p, steps) -> ndarray``  the numbers of features removed at each point of the curve
``normalised(area, f_x, f_b, min_gap) -> ndarray``

Definitions (Petsiuk et al. 2018, RISE; Samek et al. 2017; Covert, Lundberg & Lee 2021, *Explaining
by Removing*; ordering and normalisation as in Hedström et al. 2023, Quantus)
---------------------------------------------------------------------------------------------
Features are ordered **most relevant first** by their score: the *signed* attribution towards the
explained class when the explanation has one (features arguing against the class come last), the
non-negative importance otherwise. Equal scores are ordered at random; the areas are averaged over
``tie_draws`` seeded draws (instances without ties need one). For ``k`` in ``step_counts(p, steps)``:

* deletion: the first ``k`` features take the baseline value, the rest keep the instance's values;
* insertion: the first ``k`` features take the instance's values, the rest the baseline value.

Each curve is the model's probability of the *explained* class; its area (trapezoidal rule over
``x = k / p``) lies in ``[0, 1]``: ``fidelity_deletion`` (lower is better) and ``fidelity_insertion``
(higher is better). Both curves run between ``f(x)``, the probability for the instance, and
``f(b)``, for the all-baseline row, so a baseline that already predicts the class lifts every
insertion curve. The **normalised** areas remove that offset: each point of a curve is rescaled to
the share of the way from ``f(b)`` to ``f(x)`` it has reached, clipped to ``[0, 1]``, and the area is
taken of the rescaled curve::

    fidelity_*_norm = area of clip((curve - f(b)) / (f(x) - f(b)), 0, 1)

Read on this scale, a curve that moves linearly scores 0.5, an ordering that moves all the change
into the first feature scores 0 (deletion) / 1 (insertion). Clipping bounds each point: a deletion
curve that dips *below* ``f(b)`` has removed all of the evidence (0), an insertion curve that rises
above ``f(x)`` has restored all of it (1). Without the clip a small gap ``f(x) - f(b)`` would amplify
such overshoots into values of several units and one case could dominate a mean. ``NaN`` when ``f(x) - f(b) < min_gap``:

* ``|f(x) - f(b)|`` below ``min_gap``: removing every feature barely moves the prediction, so no
  ordering can be told apart;
* ``f(b)`` above ``f(x)``: the all-baseline row predicts the explained class *more* strongly than
  the case, so the case's features taken together argue against its own class. Removing the
  features that support the class then moves the curve *away* from ``f(b)``, and dividing by the
  negative gap would score the faithful ordering as the worst. The gap is the same for every
  method explaining the case, so every method loses the same cases (comparisons stay paired).
``fidelity_combined = (insertion_norm + 1 - deletion_norm) / 2`` is higher-better and lies in
``[0, 1]``.

A score vector that is all zero (or not finite), e.g. the derived vector of an empty Anchor rule,
ranks no feature: all values are ``NaN`` and the instance is left out of the mean.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .masking import MaskedRows, feature_uniforms, instance_rng

TIE_STREAM = "fidelity ties"
FIDELITY_METRICS = ("fidelity_deletion", "fidelity_insertion", "fidelity_deletion_norm", "fidelity_insertion_norm",
                    "fidelity_combined")


def step_counts(p: int, steps: int) -> np.ndarray:
    """Numbers of features masked along a curve: ``steps`` points from 0 to ``p`` (rounded, unique).

    With ``steps >= p + 1`` every ``k = 0..p`` is used.
    """
    if p < 1:
        raise ValueError(f"Fidelity needs at least one feature; got p={p}.")
    if steps < 2:
        raise ValueError(f"Fidelity needs at least 2 steps (0 and all features); got steps={steps}.")
    return np.unique(np.rint(np.linspace(0, p, int(steps))).astype(int))


def normalised(area, f_x, f_b, min_gap: float) -> np.ndarray:
    """``(area - f_b) / (f_x - f_b)`` of an area (or a curve point); ``NaN`` where ``f_x - f_b < min_gap``
    (see the module docstring) or a value is missing. Not clipped: :class:`FidelityCurves` clips per point."""
    area, f_x, f_b = (np.asarray(v, dtype=float) for v in (area, f_x, f_b))
    gap = f_x - f_b
    ok = np.isfinite(area) & np.isfinite(gap) & (gap >= min_gap) & (gap > 0)
    out = np.full(np.broadcast(area, gap).shape, np.nan)
    np.divide(area - f_b, gap, out=out, where=ok)
    return out


class FidelityCurves:
    """The deletion/insertion rows of many explanations, queued on a shared :class:`MaskedRows`.

    Parameters
    ----------
    rows : MaskedRows
        Holds the instances (``rows.X``) and the baseline row.
    scores : array-like, shape (n, p)
        Relevance of each feature for each explanation, larger = more relevant (signed
        attributions towards the explained class, or non-negative importances).
    explained_class : array-like of int, shape (n,)
        The class (0 or 1) whose probability is traced for each explanation.
    steps : int
        Number of points on each curve (``evaluation.fidelity.steps``).
    positions : array-like of int, shape (n,), optional
        Row of ``rows.X`` each explanation explains (default ``0..n-1``).
    tie_draws : int
        Random orders averaged when scores tie (``evaluation.fidelity.tie_draws``).
    random_state : int
        ``evaluation.random_state``.
    instance_ids : array-like of int, shape (n,), optional
        Seeds the tie draws with the instance, so every method sees the same draws for the same
        instance (default: ``positions``).
    baseline_of : array-like of int, shape (n,), optional
        Row of ``rows.base`` each explanation removes features to (default 0).
    """

    def __init__(self, rows: MaskedRows, scores, explained_class, steps: int, *, positions=None, tie_draws: int = 1,
                 random_state: int = 0, instance_ids=None, baseline_of=None):
        scores = np.asarray(scores, dtype=float)
        n, p = len(scores), len(rows.columns)
        if scores.ndim != 2 or scores.shape[1] != p:
            raise ValueError(f"scores must have shape (n_explanations, n_features) = (n, {p}); got {scores.shape}.")
        cls = np.asarray(explained_class, dtype=int).reshape(-1)
        if cls.shape != (n,) or not np.isin(cls, (0, 1)).all():
            raise ValueError(f"explained_class must hold one 0/1 class per explanation ({n}); got {cls[:10]}...")
        if tie_draws < 1:
            raise ValueError(f"tie_draws must be at least 1; got {tie_draws}.")
        positions = np.arange(n) if positions is None else np.asarray(positions, dtype=int).reshape(-1)
        ids = positions if instance_ids is None else np.asarray(instance_ids, dtype=int).reshape(-1)
        if positions.shape != (n,) or ids.shape != (n,):
            raise ValueError(f"positions and instance_ids need one entry per explanation ({n}).")
        if n and (positions.min() < 0 or positions.max() >= len(rows.X)):
            raise ValueError(f"positions must be rows of the {len(rows.X)} instances; got {positions[:10]}...")
        self.n, self.p, self.ks = n, p, step_counts(p, steps)
        finite = np.isfinite(scores).all(axis=1)
        self.valid = finite & (np.abs(np.where(np.isfinite(scores), scores, 0.0)).sum(axis=1) > 0)
        self.columns = rows.columns
        self.positions, self.cls = positions, cls
        self.baseline_of = np.zeros(n, dtype=int) if baseline_of is None else np.asarray(baseline_of, dtype=int)
        self.units, self.orders = self._orders(scores, ids, tie_draws, random_state)
        self.slice = self._queue(rows)

    def _orders(self, scores, ids, tie_draws, random_state):
        """One order per (explanation, draw): explanations with tied scores get ``tie_draws`` draws."""
        units, keys, score_rows = [], [], []
        for i in np.flatnonzero(self.valid):
            s = np.sort(scores[i])
            draws = tie_draws if np.any(s[1:] == s[:-1]) else 1
            rng = instance_rng(random_state, int(ids[i]), TIE_STREAM)
            keys.append(feature_uniforms(rng, tie_draws, self.columns)[:draws])
            units += [i] * draws
            score_rows.append(np.repeat(scores[i][None, :], draws, axis=0))
        if not units:
            return np.empty(0, dtype=int), np.empty((0, self.p), dtype=int)
        keys, score_rows = np.vstack(keys), np.vstack(score_rows)
        # Most relevant first; ties broken by the random keys (lexsort: last key is the primary one).
        orders = np.lexsort((keys, -score_rows), axis=1)
        return np.asarray(units, dtype=int), orders

    def _queue(self, rows: MaskedRows) -> slice:
        m, p, K = len(self.units), self.p, len(self.ks)
        ranks = np.empty((m, p), dtype=int)
        ranks[np.arange(m)[:, None], self.orders] = np.arange(p)[None, :]
        in_front = ranks[:, None, :] < self.ks[None, :, None]  # (m, K, p): among the first k
        from_baseline = np.stack([in_front, ~in_front], axis=1).reshape(m * 2 * K, p)  # deletion, insertion
        source = np.repeat(self.positions[self.units], 2 * K)
        classes = np.repeat(self.cls[self.units], 2 * K)
        return rows.add(source, from_baseline, classes, np.repeat(self.baseline_of[self.units], 2 * K))

    def curves(self, proba: np.ndarray) -> np.ndarray:
        """``(units, 2, K)``: the deletion and insertion curve of every (explanation, draw)."""
        return np.asarray(proba)[self.slice].reshape(len(self.units), 2, len(self.ks))

    def result(self, proba: np.ndarray, *, min_gap: float = 0.05) -> dict[str, np.ndarray]:
        """The five per-explanation values (``FIDELITY_METRICS``) from the probabilities of ``rows.predict``."""
        return self.from_curves(self.curves(proba), min_gap=min_gap)

    def from_curves(self, curves: np.ndarray, *, min_gap: float = 0.05) -> dict[str, np.ndarray]:
        x = self.ks / self.ks[-1]
        deletion, insertion = self._mean_per_explanation(np.trapezoid(curves, x, axis=2))
        f_x, f_b = curves[:, 0, :1], curves[:, 0, -1:]  # (units, 1): the same for both curves of a unit
        share = normalised(curves, f_x[:, None, :], f_b[:, None, :], min_gap)  # per point, NaN if gap too small
        d_norm, i_norm = self._mean_per_explanation(np.trapezoid(np.clip(share, 0.0, 1.0), x, axis=2))
        return {"fidelity_deletion": deletion, "fidelity_insertion": insertion, "fidelity_deletion_norm": d_norm,
                "fidelity_insertion_norm": i_norm, "fidelity_combined": (i_norm + 1.0 - d_norm) / 2.0}

    def _mean_per_explanation(self, areas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = np.full((2, self.n), np.nan)
        if len(self.units):
            counts = np.bincount(self.units, minlength=self.n)
            for curve in (0, 1):
                sums = np.bincount(self.units, weights=areas[:, curve], minlength=self.n)
                out[curve, counts > 0] = sums[counts > 0] / counts[counts > 0]
        return out[0], out[1]


def fidelity_scores(model, X_raw: pd.DataFrame, scores, explained_class, baseline_row: pd.DataFrame, steps: int, *,
                    min_gap: float = 0.05, tie_draws: int = 1, random_state: int = 0, instance_ids=None,
                    baseline_of=None, chunk_rows: int = 50_000) -> dict[str, np.ndarray]:
    """Raw, normalised and combined deletion/insertion fidelity of ``n`` explanations of the rows of ``X_raw``.

    Parameters
    ----------
    model : HexevalModel
        Anything with ``predict_proba(raw DataFrame) -> (m, 2)``.
    X_raw : pandas.DataFrame
        The ``n`` instances in raw columns, in the feature order of ``scores``.
    scores : array-like, shape (n, p)
        Relevance per feature (see the module docstring).
    explained_class : array-like of int, shape (n,)
    baseline_row : pandas.DataFrame
        One raw row (see :func:`make_baseline`) with the same columns, or several (e.g.
        :func:`make_class_baselines`) picked per instance by ``baseline_of``.
    steps : int
        ``evaluation.fidelity.steps``.
    baseline_of : array-like of int, shape (n,), optional
        Row of ``baseline_row`` each instance removes features to (default 0).
    min_gap, tie_draws, random_state, instance_ids
        ``evaluation.fidelity.min_gap``, ``evaluation.fidelity.tie_draws``, ``evaluation.random_state``
        and the instance ids that seed the tie draws (default ``0..n-1``).
    chunk_rows : int
        Largest number of rows sent to the model in one call.

    Returns
    -------
    dict
        ``FIDELITY_METRICS`` -> ``(n,)`` array.
    """
    _check_one_per_row(X_raw, scores)
    rows = MaskedRows(X_raw, baseline_row)
    curves = FidelityCurves(rows, scores, explained_class, steps, tie_draws=tie_draws, random_state=random_state,
                            instance_ids=instance_ids, baseline_of=baseline_of)
    return curves.result(rows.predict(model, chunk_rows), min_gap=min_gap)


def deletion_insertion_auc(model, X_raw: pd.DataFrame, scores, explained_class, baseline_row: pd.DataFrame,
                           steps: int, *, tie_draws: int = 1, random_state: int = 0, instance_ids=None,
                           baseline_of=None, chunk_rows: int = 50_000) -> tuple[np.ndarray, np.ndarray]:
    """Raw deletion and insertion areas (see :func:`fidelity_scores`); ``NaN`` where no feature is ranked."""
    values = fidelity_scores(model, X_raw, scores, explained_class, baseline_row, steps, tie_draws=tie_draws,
                             random_state=random_state, instance_ids=instance_ids, baseline_of=baseline_of,
                             chunk_rows=chunk_rows)
    return values["fidelity_deletion"], values["fidelity_insertion"]


def _check_one_per_row(X_raw: pd.DataFrame, scores) -> None:
    shape = np.shape(scores)
    if len(shape) != 2 or shape != (len(X_raw), X_raw.shape[1]):
        raise ValueError(f"scores must have shape (n_instances, n_features) = {X_raw.shape}; got {shape}.")
