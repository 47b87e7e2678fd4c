"""Soft sufficiency and soft comprehensiveness: remove features at random, more often the more relevant.

Public interface (stable)
-------------------------
``SoftRemoval(rows, scores, explained_class, *, positions=None, draws=20, random_state=0, instance_ids=None)``
queues its rows on a shared :class:`MaskedRows`; ``.result(proba, min_gap=0.05)`` gives
``{"soft_sufficiency": (n,), "soft_comprehensiveness": (n,)}``
``soft_removal_scores(model, X_raw, scores, explained_class, baseline_row, *, ...) -> dict``  the same, standalone
``keep_probabilities(scores) -> ndarray``  min-max normalised relevance per explanation

Definitions (Zhao & Aletras 2023, *Incorporating attribution importance for improving faithfulness
metrics*, ACL; as implemented for tabular rows here, following EvalxNLP, Mersha et al. 2025)
--------------------------------------------------------------------------------------------------
Each explanation's relevance scores (signed towards the explained class where it has signed
attributions, its importance vector otherwise) are min-max normalised to ``q`` in ``[0, 1]``. For
each of ``draws`` seeded draws ``u ~ U(0, 1)^p`` (shared by every method explaining the instance):

* sufficiency row: feature ``j`` keeps the instance's value when ``u_j < q_j`` (Bernoulli(q)),
  the rest take the baseline value: does what the explanation calls relevant *suffice*?
* comprehensiveness row: feature ``j`` takes the baseline value when ``u_j < q_j``: does removing
  what the explanation calls relevant take the prediction away?

With ``f`` the model's probability of the explained class, ``x`` the instance and ``b`` the
all-baseline row, and ``D = f(x) - f(b)`` the drop when every feature is removed::

    soft_sufficiency       = mean over draws of clip(max(0, f(x) - f(keep row)) / D, 0, 1)   lower is better
    soft_comprehensiveness = mean over draws of clip(max(0, f(x) - f(drop row)) / D, 0, 1)   higher is better

i.e. the share of the full drop that is still lost when only the relevant features are kept
(``1 -`` the normalised sufficiency of Zhao & Aletras), and the share of it caused by dropping the
relevant ones. ``NaN`` when ``D < min_gap`` (removing everything barely lowers the prediction, so
there is nothing to explain away) or when the scores do not tell features apart (all equal).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .masking import MaskedRows, feature_uniforms, instance_rng

SOFT_STREAM = "soft removal"
SOFT_METRICS = ("soft_sufficiency", "soft_comprehensiveness")


def keep_probabilities(scores) -> np.ndarray:
    """Min-max normalised relevance per row: the most relevant feature 1, the least 0; ``NaN`` rows if all equal."""
    s = np.asarray(scores, dtype=float)
    low, high = s.min(axis=1, keepdims=True), s.max(axis=1, keepdims=True)
    span = high - low
    ok = np.isfinite(span) & (span > 0)
    out = np.full(s.shape, np.nan)
    np.divide(s - low, span, out=out, where=ok)
    return out


class SoftRemoval:
    """The sufficiency and comprehensiveness rows of many explanations, queued on a shared :class:`MaskedRows`.

    Parameters
    ----------
    rows : MaskedRows
    scores : array-like, shape (n, p)
        Relevance per feature, larger = more relevant.
    explained_class : array-like of int, shape (n,)
    positions : array-like of int, shape (n,), optional
        Row of ``rows.X`` each explanation explains (default ``0..n-1``).
    draws : int
        Bernoulli masks per explanation (``evaluation.fidelity.soft_draws``).
    random_state : int
        ``evaluation.random_state``.
    instance_ids : array-like of int, optional
        Seeds the masks' random numbers with the instance (default: ``positions``).
    baseline_of : array-like of int, shape (n,), optional
        Row of ``rows.base`` each explanation removes features to (default 0).
    """

    def __init__(self, rows: MaskedRows, scores, explained_class, *, positions=None, draws: int = 20,
                 random_state: int = 0, instance_ids=None, baseline_of=None):
        scores = np.asarray(scores, dtype=float)
        p = len(rows.columns)
        if scores.ndim != 2 or scores.shape[1] != p:
            raise ValueError(f"scores must have shape (n_explanations, n_features) = (n, {p}); got {scores.shape}.")
        if draws < 1:
            raise ValueError(f"The number of soft-removal draws must be at least 1; got {draws}.")
        n = len(scores)
        self.n, self.draws = n, int(draws)
        self.positions = np.arange(n) if positions is None else np.asarray(positions, dtype=int).reshape(-1)
        ids = self.positions if instance_ids is None else np.asarray(instance_ids, dtype=int).reshape(-1)
        cls = np.asarray(explained_class, dtype=int).reshape(-1)
        if self.positions.shape != (n,) or ids.shape != (n,) or cls.shape != (n,):
            raise ValueError(f"positions, instance_ids and explained_class need one entry per explanation ({n}).")
        self.baseline_of = np.zeros(n, dtype=int) if baseline_of is None else np.asarray(baseline_of, dtype=int)
        q = keep_probabilities(scores)
        self.valid = np.isfinite(q).all(axis=1)
        self.index = np.flatnonzero(self.valid)
        self.slice = self._queue(rows, q, cls, ids, random_state) if len(self.index) else None

    def _queue(self, rows: MaskedRows, q, cls, ids, random_state) -> slice:
        S, p = self.draws, q.shape[1]
        blocks = []
        for i in self.index:
            u = feature_uniforms(instance_rng(random_state, int(ids[i]), SOFT_STREAM), S, rows.columns)
            hit = u < q[i][None, :]  # (S, p): relevant features are hit more often
            # instance, all-baseline, S sufficiency rows (keep the hit features), S comprehensiveness rows (drop them)
            blocks.append(np.vstack([np.zeros((1, p), bool), np.ones((1, p), bool), ~hit, hit]))
        per = 2 + 2 * S
        return rows.add(np.repeat(self.positions[self.index], per), np.vstack(blocks),
                        np.repeat(cls[self.index], per), np.repeat(self.baseline_of[self.index], per))

    def result(self, proba: np.ndarray, *, min_gap: float = 0.05) -> dict[str, np.ndarray]:
        """``SOFT_METRICS`` -> ``(n,)`` values from the probabilities of ``rows.predict``."""
        suff, comp = np.full(self.n, np.nan), np.full(self.n, np.nan)
        if self.slice is not None:
            S = self.draws
            block = np.asarray(proba)[self.slice].reshape(len(self.index), 2 + 2 * S)
            f_x, f_b = block[:, :1], block[:, 1:2]
            drop = f_x - f_b
            ok = (drop[:, 0] >= min_gap) & (drop[:, 0] > 0)
            lost_keep = np.clip(np.maximum(0.0, f_x - block[:, 2:2 + S]) / np.where(ok[:, None], drop, 1.0), 0, 1)
            lost_drop = np.clip(np.maximum(0.0, f_x - block[:, 2 + S:]) / np.where(ok[:, None], drop, 1.0), 0, 1)
            suff[self.index] = np.where(ok, lost_keep.mean(axis=1), np.nan)
            comp[self.index] = np.where(ok, lost_drop.mean(axis=1), np.nan)
        return {"soft_sufficiency": suff, "soft_comprehensiveness": comp}


def soft_removal_scores(model, X_raw: pd.DataFrame, scores, explained_class, baseline_row: pd.DataFrame, *,
                        draws: int = 20, min_gap: float = 0.05, random_state: int = 0, instance_ids=None,
                        baseline_of=None, chunk_rows: int = 50_000) -> dict[str, np.ndarray]:
    """Soft sufficiency and comprehensiveness of one explanation per row of ``X_raw`` (see the module docstring)."""
    if np.shape(scores) != X_raw.shape:
        raise ValueError(f"scores must have shape (n_instances, n_features) = {X_raw.shape}; got {np.shape(scores)}.")
    rows = MaskedRows(X_raw, baseline_row)
    soft = SoftRemoval(rows, scores, explained_class, draws=draws, random_state=random_state,
                       instance_ids=instance_ids, baseline_of=baseline_of)
    return soft.result(rows.predict(model, chunk_rows), min_gap=min_gap)
