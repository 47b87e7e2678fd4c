"""Would a person accept a counterfactual as a real case? Distance to the data and a range check.

Public interface (stable)
-------------------------
``CounterfactualManifold.from_data(data, predicted_train, *, k=5, reference_rows=500, random_state=0)``
``manifold.knn_ratio(rows, classes) -> ndarray``       per counterfactual row
``manifold.in_range(row, instance) -> bool``          per counterfactual row (a dict of raw values)
``plausibility_metrics(instance, explained_class, cfs, manifold, space, *, max_knn_ratio=2.0)
-> dict[str, float]``  counterfactual_knn_ratio, counterfactual_in_range, counterfactual_plausible
``plausibility_table(instances, explained_classes, cf_lists, manifold, space, *, max_knn_ratio=2.0)
-> list[dict]``  the same for many instances, one batched neighbour search

Distance to the data manifold (Laugel et al. 2019, *The dangers of post-hoc interpretability:
unjustified counterfactual explanations*, IJCAI; Verma, Dickerson & Hines 2020, *Counterfactual
explanations for machine learning: a review*; the k-NN density proxy of Keane & Smyth 2020 and
of CARLA, Pawelczyk et al. 2021): rows are compared by Euclidean distance in standardised units,
numeric features as ``(x - mean) / std`` of the training data (a missing value at the mean) and
each categorical feature one-hot scaled so that two different categories are 1 apart (a missing
or unseen value is half a difference from any category). A counterfactual's **k-NN distance** is the mean
distance to the ``k`` nearest training rows *the model predicts as the counterfactual's class*;
the **typical** distance of that class is the median k-NN distance of up to ``reference_rows``
seeded training rows of the class to the others. ``counterfactual_knn_ratio`` is the ratio of the
two (1 = as close to the data as a typical real case; lower is better).

``counterfactual_in_range`` is the share of counterfactuals whose every *changed* value lies in
the training range: between the 1st and 99th percentile for a numeric feature, a category seen
in training for a categorical one.

``counterfactual_plausible`` is the share of counterfactuals that are valid (they flip the
prediction), in range, no further than ``max_knn_ratio`` times the typical distance from the data,
and respect the configured constraints (no immutable feature changed, configured ranges kept).
Validity is a constraint here, not a bonus. An instance with no counterfactual scores 0 (no
plausible way out was offered); ``NaN`` when the distance of a valid, in-range counterfactual
cannot be judged (no training row predicted as its class, or a typical distance of 0).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .counterfactuals import CounterfactualSpace, _plausible, _rows, _same

_MAX_CELLS = 4_000_000  # pairwise distances held in memory at once
#: Columns the k-th nearest distance of each row is first bounded on (:func:`_smallest`).
_PROBE = 512
PLAUSIBILITY_METRICS = ("counterfactual_knn_ratio", "counterfactual_in_range", "counterfactual_plausible")


@dataclass(frozen=True)
class CounterfactualManifold:
    """The training rows embedded in standardised units, the model's class of each, and the typical k-NN distance."""

    numeric: list
    categorical: list
    means: np.ndarray
    stds: np.ndarray
    codes: dict  # categorical feature -> {value as text: position in its one-hot block}
    train: np.ndarray  # (m, d) embedded training rows
    train_sq: np.ndarray  # (m,) their squared norms
    train_class: np.ndarray  # (m,)
    k: int
    typical: dict  # class -> median k-NN distance within the class (NaN if undefined)
    low: dict  # numeric feature -> 1st percentile
    high: dict  # numeric feature -> 99th percentile
    seen: dict  # categorical feature -> set of values as text

    @classmethod
    def from_data(cls, data, predicted_train, *, k: int = 5, reference_rows: int = 500,
                  random_state: int = 0) -> "CounterfactualManifold":
        """Build from ``data.X_train`` and the model's predicted class of each training row."""
        if k < 1:
            raise ValueError(f"The number of nearest neighbours must be at least 1; got {k}.")
        X = data.X_train
        predicted_train = np.asarray(predicted_train, dtype=int).reshape(-1)
        if len(predicted_train) != len(X):
            raise ValueError(f"One predicted class per training row is needed; got {len(predicted_train)} "
                             f"for {len(X)}.")
        numeric = [f for f in data.feature_names if f not in data.categorical_features]
        categorical = [f for f in data.feature_names if f in data.categorical_features]
        raw = _numeric(X, numeric)
        with np.errstate(all="ignore"):
            means = np.nanmean(raw, axis=0) if len(X) else np.zeros(len(numeric))
            stds = np.nanstd(raw, axis=0) if len(X) else np.ones(len(numeric))
        means = np.where(np.isfinite(means), means, 0.0)
        stds = np.where(np.isfinite(stds) & (stds > 0), stds, 1.0)
        codes = {f: {v: i for i, v in enumerate(sorted(X[f].dropna().astype(str).unique()))} for f in categorical}
        low = {f: float(np.nanpercentile(raw[:, j], 1)) for j, f in enumerate(numeric)} if len(X) else {}
        high = {f: float(np.nanpercentile(raw[:, j], 99)) for j, f in enumerate(numeric)} if len(X) else {}
        seen = {f: set(codes[f]) for f in categorical}
        half = cls(numeric, categorical, means, stds, codes, np.empty((0, 0)), np.empty(0), predicted_train,
                   int(k), {}, low, high, seen)
        train = half.embed(X)
        half = replace(half, train=train, train_sq=np.einsum("ij,ij->i", train, train))
        typical = {c: half._typical(c, reference_rows, random_state) for c in (0, 1)}
        return replace(half, typical=typical)

    def embed(self, rows: pd.DataFrame) -> np.ndarray:
        """Rows in standardised units: numeric ``(x - mean) / std`` (a missing value at the mean), each
        categorical feature one-hot scaled by ``1/sqrt(2)`` so two different categories are 1 apart (a
        missing or unseen value is the zero vector, half a difference from any category)."""
        # filled in place (no per-feature blocks stacked afterwards): a 3,000-level column's block and
        # its stacked copy held twice the embedding at once
        width = len(self.numeric) + sum(len(self.codes[f]) for f in self.categorical)
        out = np.zeros((len(rows), width))
        n = len(self.numeric)
        out[:, :n] = np.nan_to_num((_numeric(rows, self.numeric) - self.means) / self.stds, nan=0.0)
        start = n
        for f in self.categorical:
            pos = pd.Index(list(self.codes[f])).get_indexer(rows[f].astype(str))
            pos[rows[f].isna().to_numpy()] = -1
            hit = np.flatnonzero(pos >= 0)
            out[hit, start + pos[hit]] = np.sqrt(0.5)
            start += len(self.codes[f])
        return out

    def _typical(self, klass: int, reference_rows: int, random_state: int) -> float:
        members = np.flatnonzero(self.train_class == klass)
        if len(members) <= self.k:
            return float("nan")
        rng = np.random.default_rng(np.random.SeedSequence([int(random_state) & 0xFFFFFFFF, 911, klass]))
        queries = np.sort(rng.choice(members, size=min(reference_rows, len(members)), replace=False))
        return float(np.median(self._knn(self.train[queries], klass, exclude=queries)))

    def _knn(self, queries: np.ndarray, klass: int, exclude=None) -> np.ndarray:
        """Mean Euclidean distance of each embedded query to its ``k`` nearest training rows of ``klass``."""
        members = np.flatnonzero(self.train_class == klass)
        out = np.full(len(queries), np.nan)
        if len(members) < self.k + (exclude is not None) or len(queries) == 0:
            return out
        t, t_sq = self.train[members], self.train_sq[members]
        step = max(1, _MAX_CELLS // len(members))
        # two blocks of up to _MAX_CELLS, reused: fresh ones per block (five temporaries each) cost more in page
        # faults than the arithmetic on a first run (credit risk: 0.25 s against 0.06 s). Same operations in the
        # same order, so the same values bit for bit.
        rows = min(step, len(queries))
        sq_block, product_block = np.empty((rows, len(members))), np.empty((rows, len(members)))
        for start in range(0, len(queries), step):
            q = queries[start:start + step]
            sq, product = sq_block[:len(q)], product_block[:len(q)]
            np.add(np.einsum("ij,ij->i", q, q)[:, None], t_sq[None, :], out=sq)
            np.matmul(q, t.T, out=product)
            product *= 2.0
            sq -= product
            np.maximum(sq, 0.0, out=sq)
            if exclude is not None:  # a reference row is not its own neighbour
                own = np.searchsorted(members, exclude[start:start + step])
                sq[np.arange(len(q)), own] = np.inf
            out[start:start + len(q)] = np.sqrt(_smallest(sq, self.k)).mean(axis=1)
        return out

    def knn_ratio(self, rows: pd.DataFrame, classes) -> np.ndarray:
        """k-NN distance of each row to the training rows of its class, over that class's typical distance."""
        classes = np.asarray(classes, dtype=int).reshape(-1)
        embedded = self.embed(rows)
        out = np.full(len(rows), np.nan)
        for klass in (0, 1):
            pick = np.flatnonzero(classes == klass)
            typical = self.typical.get(klass, float("nan"))
            if len(pick) and np.isfinite(typical) and typical > 0:
                out[pick] = self._knn(embedded[pick], klass) / typical
        return out

    def in_range(self, row: dict, instance) -> bool:
        """Every value the row changes from ``instance`` lies in the training range (1st-99th percentile / seen)."""
        for f in self.numeric:
            if _same(row[f], instance[f]):
                continue
            value = pd.to_numeric(pd.Series([row[f]]), errors="coerce").iloc[0]
            if pd.isna(value) or not (self.low[f] - 1e-9 <= float(value) <= self.high[f] + 1e-9):
                return False
        for f in self.categorical:
            if not _same(row[f], instance[f]) and (pd.isna(row[f]) or str(row[f]) not in self.seen[f]):
                return False
        return True


def _numeric(frame: pd.DataFrame, numeric: list) -> np.ndarray:
    if not numeric:
        return np.empty((len(frame), 0))
    return frame[numeric].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def plausibility_metrics(instance, explained_class: int, cfs, manifold: CounterfactualManifold,
                         space: CounterfactualSpace, *, max_knn_ratio: float = 2.0) -> dict[str, float]:
    """``counterfactual_knn_ratio``, ``counterfactual_in_range`` and ``counterfactual_plausible`` of one instance.

    Parameters
    ----------
    instance : pandas.Series
        The explained raw row.
    explained_class : int
        The class the model predicted for it; a counterfactual that flips is of the other class.
    cfs : list of Counterfactual
    manifold : CounterfactualManifold
    space : CounterfactualSpace
        For the configured constraints (immutable features, allowed ranges).
    max_knn_ratio : float
        ``evaluation.counterfactual.max_knn_ratio``.
    """
    return plausibility_table([instance], [explained_class], [cfs], manifold, space, max_knn_ratio=max_knn_ratio)[0]


def plausibility_table(instances, explained_classes, cf_lists, manifold: CounterfactualManifold,
                       space: CounterfactualSpace, *, max_knn_ratio: float = 2.0) -> list[dict[str, float]]:
    """:func:`plausibility_metrics` for many instances, with one batched neighbour search for all counterfactuals."""
    per_instance, all_rows, all_classes = [], [], []
    for instance, explained, cfs in zip(instances, explained_classes, cf_lists):
        cfs = list(cfs or [])
        rows = _rows(instance, cfs, space)
        per_instance.append((instance, cfs, rows, len(all_rows)))
        all_rows += rows
        all_classes += [1 - int(explained) if cf.flips else int(explained) for cf in cfs]
    ratios_all = (manifold.knn_ratio(pd.DataFrame(all_rows, columns=space.feature_names), all_classes)
                  if all_rows else np.empty(0))
    out = []
    for instance, cfs, rows, start in per_instance:
        if not cfs:
            out.append({"counterfactual_knn_ratio": float("nan"), "counterfactual_in_range": float("nan"),
                        "counterfactual_plausible": 0.0})
            continue
        ratios = ratios_all[start:start + len(cfs)]
        in_range = np.array([manifold.in_range(row, instance) for row in rows])
        verdicts = []
        for cf, row, ratio, ok_range in zip(cfs, rows, ratios, in_range):
            if not (cf.flips and ok_range and _plausible(row, instance, space)):
                verdicts.append(0.0)
            else:
                verdicts.append(float(ratio <= max_knn_ratio) if np.isfinite(ratio) else float("nan"))
        out.append({"counterfactual_knn_ratio": float(np.mean(ratios)) if np.isfinite(ratios).all() else float("nan"),
                    "counterfactual_in_range": float(in_range.mean()),
                    "counterfactual_plausible": float(np.mean(verdicts))})
    return out


def _smallest(sq: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` smallest values of each row of ``sq``, in ascending order (``sq`` may be changed).

    A full selection over every training row of the class (credit risk: 500 reference rows x 20,000, twice per
    run) cost more than the distances. The ``k``-th smallest of each row's first :data:`_PROBE` values bounds its
    ``k``-th smallest overall from above, so the values at or below that bound (a few dozen per row) hold the
    ``k`` smallest; only those are sorted. Same values as a full selection, in a defined order."""
    n, m = sq.shape
    if m <= 4 * _PROBE or k >= _PROBE:
        sq.partition(k - 1, axis=1)
        return np.sort(sq[:, :k], axis=1)
    bound = np.partition(sq[:, :_PROBE], k - 1, axis=1)[:, k - 1]
    rows, cols = np.nonzero(sq <= bound[:, None])  # at least k per row: the probe's own k smallest
    values = sq[rows, cols]
    order = np.lexsort((values, rows))
    first = np.searchsorted(rows[order], np.arange(n))
    return values[order][first[:, None] + np.arange(k)]
