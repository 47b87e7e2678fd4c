"""Would a person accept a counterfactual as a real case? Distance to the data and a range check.

Public interface (stable)
-------------------------
``CounterfactualManifold.from_data(data, predicted_train, *, k=5, reference_rows=500, random_state=0)``
``manifold.knn_ratio(rows, classes) -> ndarray``       per counterfactual row
``manifold.in_range(row, instance) -> bool``          per counterfactual row (a dict of raw values)
``plausibility_metrics(instance, explained_class, cfs, manifold, space, *, max_knn_ratio=2.0)
-> dict[str, float]``  counterfactual_knn_ratio, counterfactual_in_range, counterfactual_plausible

Distance to the data manifold (Laugel et al. 2019, *The dangers of post-hoc interpretability:
unjustified counterfactual explanations*, IJCAI; Verma, Dickerson & Hines 2020, *Counterfactual
explanations for machine learning: a review*; the k-NN density proxy of Keane & Smyth 2020 and
of CARLA, Pawelczyk et al. 2021): rows are compared in standardised units, numeric features
divided by their training standard deviation, a categorical feature counting 1 when it differs
(a missing value against anything counts 1). A counterfactual's **k-NN distance** is the mean
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

_MAX_CELLS = 2_000_000  # pairwise distances held in memory at once
PLAUSIBILITY_METRICS = ("counterfactual_knn_ratio", "counterfactual_in_range", "counterfactual_plausible")


@dataclass(frozen=True)
class CounterfactualManifold:
    """The training rows, standardised, with the model's class of each and the typical k-NN distance per class."""

    numeric: list
    categorical: list
    means: np.ndarray
    stds: np.ndarray
    codes: dict  # categorical feature -> {value as text: integer code}
    train_numeric: np.ndarray  # (m, q) standardised
    train_codes: np.ndarray  # (m, c) integer codes, -1 for missing
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
            raise ValueError(f"One predicted class per training row is needed; got {len(predicted_train)} for {len(X)}.")
        numeric = [f for f in data.feature_names if f not in data.categorical_features]
        categorical = [f for f in data.feature_names if f in data.categorical_features]
        raw = X[numeric].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float) if numeric else np.empty((len(X), 0))
        means = np.nanmean(raw, axis=0) if numeric else np.empty(0)
        stds = np.nanstd(raw, axis=0) if numeric else np.empty(0)
        stds = np.where(np.isfinite(stds) & (stds > 0), stds, 1.0)
        codes = {f: {v: i for i, v in enumerate(sorted(X[f].dropna().astype(str).unique()))} for f in categorical}
        low = {f: float(np.nanpercentile(raw[:, j], 1)) for j, f in enumerate(numeric)} if len(X) else {}
        high = {f: float(np.nanpercentile(raw[:, j], 99)) for j, f in enumerate(numeric)} if len(X) else {}
        seen = {f: set(codes[f]) for f in categorical}
        half = cls(numeric, categorical, means, stds, codes, (raw - means) / stds,
                   _encode(X, categorical, codes), predicted_train, int(k), {}, low, high, seen)
        typical = {c: half._typical(c, reference_rows, random_state) for c in (0, 1)}
        return replace(half, typical=typical)

    def _typical(self, klass: int, reference_rows: int, random_state: int) -> float:
        members = np.flatnonzero(self.train_class == klass)
        if len(members) <= self.k:
            return float("nan")
        rng = np.random.default_rng(np.random.SeedSequence([int(random_state) & 0xFFFFFFFF, 911, klass]))
        queries = np.sort(rng.choice(members, size=min(reference_rows, len(members)), replace=False))
        dist = self._knn(self.train_numeric[queries], self.train_codes[queries], klass, exclude=queries)
        return float(np.median(dist))

    def _knn(self, numeric: np.ndarray, codes: np.ndarray, klass: int, exclude=None) -> np.ndarray:
        """Mean distance of each query row to its ``k`` nearest training rows of ``klass``."""
        members = np.flatnonzero(self.train_class == klass)
        out = np.full(len(numeric), np.nan)
        if len(members) < self.k or len(numeric) == 0:
            return out
        tn, tc = self.train_numeric[members], self.train_codes[members]
        step = max(1, _MAX_CELLS // len(members))
        for start in range(0, len(numeric), step):
            q = slice(start, start + step)
            sq = np.zeros((len(numeric[q]), len(members)))
            for j in range(tn.shape[1]):
                d = numeric[q, j][:, None] - tn[None, :, j]
                sq += np.where(np.isfinite(d), d * d, 1.0)
            for j in range(tc.shape[1]):
                a, b = codes[q, j][:, None], tc[None, :, j]
                sq += ((a != b) | (a < 0) | (b < 0)).astype(float)
            if exclude is not None:  # a reference row is not its own neighbour
                own = np.searchsorted(members, exclude[q])
                sq[np.arange(len(own)), own] = np.inf
            nearest = np.partition(sq, self.k - 1, axis=1)[:, :self.k]
            out[q] = np.sqrt(nearest).mean(axis=1)
        return out

    def knn_ratio(self, rows: pd.DataFrame, classes) -> np.ndarray:
        """k-NN distance of each row to the training rows of its class, over that class's typical distance."""
        classes = np.asarray(classes, dtype=int).reshape(-1)
        numeric = (rows[self.numeric].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
                   if self.numeric else np.empty((len(rows), 0)))
        numeric = (numeric - self.means) / self.stds
        codes = _encode(rows, self.categorical, self.codes)
        out = np.full(len(rows), np.nan)
        for klass in (0, 1):
            pick = np.flatnonzero(classes == klass)
            typical = self.typical.get(klass, float("nan"))
            if len(pick) and np.isfinite(typical) and typical > 0:
                out[pick] = self._knn(numeric[pick], codes[pick], klass) / typical
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


def _encode(frame: pd.DataFrame, categorical: list, codes: dict) -> np.ndarray:
    """Integer code per categorical value: -1 for a missing value, -2 for a value never seen in training."""
    out = np.empty((len(frame), len(categorical)), dtype=int)
    for j, f in enumerate(categorical):
        col = frame[f]
        out[:, j] = [-1 if pd.isna(v) else codes[f].get(str(v), -2) for v in col.tolist()]
    return out


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
    cfs = list(cfs or [])
    if not cfs:
        return {"counterfactual_knn_ratio": float("nan"), "counterfactual_in_range": float("nan"),
                "counterfactual_plausible": 0.0}
    rows = _rows(instance, cfs, space)
    classes = [1 - int(explained_class) if cf.flips else int(explained_class) for cf in cfs]
    ratios = manifold.knn_ratio(pd.DataFrame(rows, columns=space.feature_names), classes)
    in_range = np.array([manifold.in_range(row, instance) for row in rows])
    verdicts = []
    for cf, row, ratio, ok_range in zip(cfs, rows, ratios, in_range):
        if not (cf.flips and ok_range and _plausible(row, instance, space)):
            verdicts.append(0.0)
        else:
            verdicts.append(float(ratio <= max_knn_ratio) if np.isfinite(ratio) else float("nan"))
    return {"counterfactual_knn_ratio": float(np.mean(ratios)) if np.isfinite(ratios).all() else float("nan"),
            "counterfactual_in_range": float(in_range.mean()),
            "counterfactual_plausible": float(np.mean(verdicts))}
