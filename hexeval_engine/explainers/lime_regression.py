"""LIME's local surrogate fit (feature selection + weighted ridge), vectorised, same algorithm.

``lime.lime_base.LimeBase.explain_instance_with_data`` (lime 0.2.0.1; Ribeiro, Singh & Guestrin,
"Why should I trust you?", KDD 2016) fits a scikit-learn ``Ridge`` once per candidate feature per
forward-selection step: at 500 samples that is ~92% of an explanation's time. The algorithm is
kept exactly and only the arithmetic is batched:

* the data are centred on their kernel-weighted means and scaled by ``sqrt(weight)`` once (what
  ``Ridge(fit_intercept=True)`` does with ``sample_weight`` on dense data), giving the weighted
  Gram matrix ``G`` and ``b = X'Wy``;
* **forward selection** (``Ridge(alpha=0)``, chosen by LIME's ``"auto"`` when
  ``num_features <= 6``): at each step every unused feature is tried as one batched solve of the
  ``(k+1) x (k+1)`` normal equations; each candidate is scored by the weighted R^2 of its fit
  (``Ridge.score`` = ``r2_score`` with ``sample_weight``) and the first candidate with the highest
  score wins (LIME keeps a candidate only when its score is strictly higher);
* **highest weights** (``"auto"`` when ``num_features > 6``): one ``Ridge(alpha=0.01)`` on all
  features, features ranked by ``|coef * first row|`` with Python's stable ``sorted``;
* the **final model** is ``Ridge(alpha=1)`` on the selected features; intercept, R^2 and the
  local prediction of the first row are computed as scikit-learn computes them.

A singular or ill-conditioned Gram matrix (two "same bin as the instance" columns that are both 1
only in the instance's row, e.g. a 0/1 column read as numeric whose noisy copy falls in a bin no
training row occupies; a constant column) is where scikit-learn's Cholesky solve fails and ``Ridge``
switches to its SVD solver (``_solve_svd``: singular values above 1e-15 kept, the minimum-norm least
squares fit). Forward selection then solves every candidate that way, batched over candidates
(``numpy.linalg.svd`` on stacked matrices) instead of 60-odd ``Ridge`` fits of ~4 ms each.

Cases the batched arithmetic could answer differently from scikit-learn's solver (constant labels,
sparse data, a custom ``model_regressor`` or another ``feature_selection``) are handed to the
library's own implementation unchanged.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from lime.lime_base import LimeBase

#: Largest condition number of the weighted Gram matrix handled by the batched normal equations.
#: Above it, scikit-learn's Cholesky solver may fail over to SVD, so forward selection solves each
#: candidate by SVD as scikit-learn then does (:meth:`_WeightedMoments.forward_selection_svd`).
MAX_CONDITION = 1e10

#: Singular values at or below this are treated as zero (scikit-learn's ``_solve_svd`` and ``scipy.linalg.pinv``).
SVD_CUTOFF = 1e-15


class VectorisedLimeBase(LimeBase):
    """Drop-in for ``LimeBase`` (same kernel and random state) with a batched surrogate fit.

    Build it from the explainer's own base: ``VectorisedLimeBase.replacing(explainer.base)``.
    ``fallbacks`` counts explanations handed to the library's implementation.
    """

    def __init__(self, kernel_fn, verbose=False, random_state=None):
        super().__init__(kernel_fn, verbose=verbose, random_state=random_state)
        self.fallbacks = 0

    @classmethod
    def replacing(cls, base: LimeBase) -> "VectorisedLimeBase":
        """A vectorised base sharing ``base``'s kernel and random state (the same object)."""
        return cls(base.kernel_fn, verbose=base.verbose, random_state=base.random_state)

    def explain_instance_with_data(self, neighborhood_data, neighborhood_labels, distances, label, num_features,
                                   feature_selection="auto", model_regressor=None):
        weights = self.kernel_fn(distances)
        labels = np.asarray(neighborhood_labels[:, label], dtype=float)
        method = feature_selection
        if method == "auto":
            method = "forward_selection" if num_features <= 6 else "highest_weights"
        fit = None
        if model_regressor is None and method in ("forward_selection", "highest_weights") \
                and not scipy.sparse.issparse(neighborhood_data):
            fit = surrogate_fit(np.asarray(neighborhood_data, dtype=float), labels, np.asarray(weights, dtype=float),
                                num_features, method)
        if fit is None:
            self.fallbacks += 1
            return super().explain_instance_with_data(neighborhood_data, neighborhood_labels, distances, label,
                                                      num_features, feature_selection, model_regressor)
        return fit


def surrogate_fit(X: np.ndarray, y: np.ndarray, w: np.ndarray, num_features: int, method: str):
    """``(intercept, [(feature, weight), ...] by |weight| desc, R^2, local prediction)`` or ``None``.

    ``None`` means: the batched arithmetic may differ from scikit-learn's here; use the library.
    """
    moments = _WeightedMoments(X, y, w)
    if moments.degenerate:
        return None
    if method == "forward_selection":
        used = moments.forward_selection(num_features)
        if used is None:
            return None
    else:
        used = moments.highest_weights(num_features)
    coef, intercept = moments.ridge(used, alpha=1.0)
    score = moments.r2(used, coef[None, :], np.array([intercept]))[0]
    local_pred = np.array([X[0, used] @ coef + intercept])
    ranked = sorted(zip(used, coef), key=lambda x: np.abs(x[1]), reverse=True)
    return intercept, ranked, score, local_pred


class _WeightedMoments:
    """Weighted centring and Gram matrix shared by every fit of one explanation."""

    def __init__(self, X, y, w):
        self.X, self.y, self.w = X, y, w
        total = w.sum()
        self.x_offset = (w @ X) / total
        self.y_offset = (w @ y) / total
        root = np.sqrt(w)
        Xs = (X - self.x_offset) * root[:, None]
        ys = (y - self.y_offset) * root
        self.G = Xs.T @ Xs
        self.b = Xs.T @ ys
        # r2_score's denominator: sum w (y - weighted mean)^2
        self.tss = float(np.sum(w * (y - np.average(y, weights=w)) ** 2))
        self.degenerate = not (total > 0 and self.tss > 0 and np.all(np.isfinite(self.G)))

    def forward_selection(self, num_features: int):
        """LIME's forward selection with ``Ridge(alpha=0)`` fits, all candidates of a step at once."""
        if np.linalg.cond(self.G) > MAX_CONDITION:  # bounds every principal submatrix's condition too
            return self.forward_selection_svd(num_features)

        def solve(idx):
            A = self.G[idx[:, :, None], idx[:, None, :]]
            return np.linalg.solve(A, self.b[idx][..., None])[..., 0]

        return self._select(num_features, solve)

    def forward_selection_svd(self, num_features: int):
        """Forward selection where the Gram matrix is (near) singular: each candidate fit by SVD.

        Per candidate set, the weighted, centred design ``Xs[:, set]`` is decomposed
        (``U s V'``) and the coefficients are ``V diag(1/s) U' ys`` over singular values above
        :data:`SVD_CUTOFF` (scikit-learn's ``_solve_svd`` at ``alpha=0``); scores and the choice of
        the first highest candidate are as in :meth:`forward_selection`.
        """
        root = np.sqrt(self.w)
        Xs = (self.X - self.x_offset) * root[:, None]
        ys = (self.y - self.y_offset) * root

        def solve(idx):
            U, s, Vt = np.linalg.svd(np.moveaxis(Xs[:, idx], 1, 0), full_matrices=False)
            inverse = np.divide(1.0, s, out=np.zeros_like(s), where=s > SVD_CUTOFF)
            return np.einsum("cjk,cj->ck", Vt, inverse * np.einsum("cnj,n->cj", U, ys))

        return self._select(num_features, solve)

    def _select(self, num_features: int, solve):
        """The greedy loop both selections share: ``solve(idx)`` gives each candidate set's coefficients;
        the first candidate with the highest weighted R² joins; ``None`` when a score is not finite."""
        p = self.X.shape[1]
        used: list[int] = []
        for _ in range(min(num_features, p)):
            candidates = np.array([f for f in range(p) if f not in used])
            idx = np.column_stack([np.tile(used, (len(candidates), 1)).astype(int), candidates])
            coefs = solve(idx)
            intercepts = self.y_offset - np.einsum("ck,ck->c", self.x_offset[idx], coefs)
            scores = self._r2_sets(idx, coefs, intercepts)
            if not np.all(np.isfinite(scores)):
                return None
            used.append(int(candidates[int(np.argmax(scores))]))
        return np.array(used)

    def highest_weights(self, num_features: int) -> np.ndarray:
        """``Ridge(alpha=0.01)`` on all features; the ``num_features`` largest ``|coef * first row|``."""
        p = self.X.shape[1]
        coef, _ = self.ridge(np.arange(p), alpha=0.01)
        weighted = coef * self.X[0]
        ranked = sorted(zip(range(p), weighted), key=lambda x: np.abs(x[1]), reverse=True)
        return np.array([f for f, _ in ranked[:num_features]])

    def ridge(self, used, alpha: float):
        """Coefficients and intercept of ``Ridge(alpha, fit_intercept=True)`` on columns ``used``."""
        used = np.asarray(used, dtype=int)
        A = self.G[np.ix_(used, used)] + alpha * np.eye(len(used))
        coef = np.linalg.solve(A, self.b[used])
        return coef, float(self.y_offset - self.x_offset[used] @ coef)

    def r2(self, used, coefs, intercepts) -> np.ndarray:
        idx = np.tile(np.asarray(used, dtype=int), (len(coefs), 1))
        return self._r2_sets(idx, coefs, intercepts)

    def _r2_sets(self, idx, coefs, intercepts) -> np.ndarray:
        """Weighted R^2 (``r2_score`` with ``sample_weight``) of one linear fit per row of ``idx``."""
        pred = np.einsum("nck,ck->nc", self.X[:, idx], coefs) + intercepts
        rss = self.w @ (self.y[:, None] - pred) ** 2
        return 1.0 - rss / self.tss
