"""Quality of counterfactual explanations (DiCE): validity, sparsity, proximity, diversity, constraints.

Public interface (stable)
-------------------------
``CounterfactualSpace.from_data(data, *, immutable_features=(), feature_ranges=None)``
``counterfactual_metrics(instance, counterfactuals, space) -> dict[str, float]``  all five below
``validity(cfs)``, ``sparsity(instance, cfs, space)``, ``proximity(instance, cfs, space)``,
``diversity(instance, cfs, space)``, ``plausibility(instance, cfs, space)``

``plausibility`` (``counterfactual_plausibility``) checks the configured constraints alone; those
constraints are also one part of ``counterfactual_plausible`` (see :mod:`.plausibility`, which adds
the distance to the training data, the training range and validity).

``instance`` is the raw row (``pandas.Series`` of ``data.X_test``); ``cfs`` the
``Explanation.counterfactuals`` list. A counterfactual's value of a feature is read from its
``row``, else from ``changes``, else it is the instance's value; a feature is *changed* when
that value differs from the instance's (numbers compared with a 1e-9 tolerance).

Distance between two rows (Wachter et al. 2017; Mothilal et al. 2020): the mean over all ``p``
features of a per-feature distance, numeric ``|a - b| / MAD`` (median absolute deviation in
the training data; the standard deviation when the MAD is 0, and 1 when both are 0),
categorical ``0`` if equal else ``1``; a missing value against a present one counts 1.

An instance for which no counterfactual was found has validity 0 (the method failed to offer
a way to change the outcome) and ``NaN`` for the other four metrics.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

_TOL = 1e-9


@dataclass(frozen=True)
class CounterfactualSpace:
    """What the counterfactual metrics need to know about the features.

    Attributes
    ----------
    feature_names : list of str
    categorical : frozenset of str
    scales : dict
        Numeric feature -> distance scale (training MAD, else std, else 1).
    ranges : dict
        Numeric feature -> allowed ``(low, high)``: ``feature_ranges`` from the config, else
        the range observed in the training data.
    categories : dict
        Categorical feature -> values observed in the training data.
    immutable : frozenset of str
        Features a counterfactual must not change (``explainers.dice.immutable_features``).
    """

    feature_names: list
    categorical: frozenset
    scales: dict
    ranges: dict
    categories: dict
    immutable: frozenset

    @classmethod
    def from_data(cls, data, *, immutable_features=(), feature_ranges=None) -> "CounterfactualSpace":
        X = data.X_train
        unknown = [f for f in [*immutable_features, *(feature_ranges or {})] if f not in data.feature_names]
        if unknown:
            raise ValueError(f"Counterfactual settings name unknown feature(s) {unknown}; "
                             f"features are {list(data.feature_names)}.")
        scales, ranges, categories = {}, {}, {}
        for f in data.feature_names:
            if f in data.categorical_features:
                categories[f] = list(X[f].dropna().unique())
                continue
            col = pd.to_numeric(X[f], errors="coerce").astype(float).dropna().to_numpy()
            scales[f] = _scale(col)
            low, high = (feature_ranges or {}).get(f, (col.min(), col.max()) if col.size else (-np.inf, np.inf))
            ranges[f] = (float(low), float(high))
        return cls(list(data.feature_names), frozenset(data.categorical_features), scales, ranges, categories,
                   frozenset(immutable_features))


def _scale(col: np.ndarray) -> float:
    if col.size == 0:
        return 1.0
    mad = float(np.median(np.abs(col - np.median(col))))
    if mad > 0:
        return mad
    std = float(np.std(col))
    return std if std > 0 else 1.0


def _missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, (float, np.floating)) and np.isnan(v))


def _same(a, b) -> bool:
    if _missing(a) or _missing(b):
        return _missing(a) and _missing(b)
    try:
        fa, fb = float(a), float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)
    return fa == fb or abs(fa - fb) <= _TOL + _TOL * abs(fb)  # numpy.isclose's rule, without its overhead


def _value(cf, feature, instance):
    if cf.row and feature in cf.row:
        return cf.row[feature]
    if feature in cf.changes:
        return cf.changes[feature][1]
    return instance[feature]


def _feature_distance(a, b, feature, space: CounterfactualSpace) -> float:
    if _same(a, b):
        return 0.0
    if feature in space.categorical or _missing(a) or _missing(b):
        return 1.0
    return abs(float(a) - float(b)) / space.scales[feature]


def _distance(row_a: dict, row_b: dict, space: CounterfactualSpace) -> float:
    return float(np.mean([_feature_distance(row_a[f], row_b[f], f, space) for f in space.feature_names]))


def _rows(instance, cfs, space) -> list[dict]:
    return [{f: _value(cf, f, instance) for f in space.feature_names} for cf in cfs]


def validity(cfs) -> float:
    """Share of counterfactuals whose prediction differs from the instance's (``flips``); 0 if none."""
    return float(np.mean([bool(cf.flips) for cf in cfs])) if cfs else 0.0


def sparsity(instance, cfs, space: CounterfactualSpace) -> float:
    """Mean number of features a counterfactual changes (lower is better)."""
    if not cfs:
        return float("nan")
    return float(np.mean([sum(not _same(row[f], instance[f]) for f in space.feature_names)
                          for row in _rows(instance, cfs, space)]))


def proximity(instance, cfs, space: CounterfactualSpace) -> float:
    """Mean normalised distance between each counterfactual and the instance (lower is better)."""
    if not cfs:
        return float("nan")
    origin = {f: instance[f] for f in space.feature_names}
    return float(np.mean([_distance(row, origin, space) for row in _rows(instance, cfs, space)]))


def diversity(instance, cfs, space: CounterfactualSpace) -> float:
    """Mean pairwise normalised distance between the counterfactuals (higher is better); ``NaN`` if < 2."""
    if len(cfs) < 2:
        return float("nan")
    rows = _rows(instance, cfs, space)
    return float(np.mean([_distance(a, b, space) for a, b in combinations(rows, 2)]))


def _plausible(row: dict, instance, space: CounterfactualSpace) -> bool:
    for f in space.feature_names:
        if _same(row[f], instance[f]):
            continue
        if f in space.immutable or _missing(row[f]):
            return False
        if f in space.categorical:
            if not any(_same(row[f], c) for c in space.categories[f]):
                return False
        else:
            low, high = space.ranges[f]
            if not (low - _TOL <= float(row[f]) <= high + _TOL):
                return False
    return True


def plausibility(instance, cfs, space: CounterfactualSpace) -> float:
    """Share of counterfactuals that respect the constraints (higher is better).

    A counterfactual is plausible when it changes no immutable feature, every changed numeric
    value lies within the feature's allowed range and every changed categorical value is one
    seen in training. Only changed features are checked, so an instance already outside a
    range does not make its counterfactuals implausible. Constraints of this kind:
    Ustun, Spangher & Liu (2019), *Actionable recourse in linear classification*; Verma,
    Dickerson & Hines (2020), *Counterfactual explanations for machine learning: a review*.
    """
    if not cfs:
        return float("nan")
    return float(np.mean([_plausible(row, instance, space) for row in _rows(instance, cfs, space)]))


def counterfactual_metrics(instance, cfs, space: CounterfactualSpace) -> dict[str, float]:
    """All five counterfactual metrics of one instance, keyed by registry name."""
    cfs = list(cfs or [])
    return {
        "counterfactual_validity": validity(cfs),
        "counterfactual_sparsity": sparsity(instance, cfs, space),
        "counterfactual_proximity": proximity(instance, cfs, space),
        "counterfactual_diversity": diversity(instance, cfs, space),
        "counterfactual_plausibility": plausibility(instance, cfs, space),
    }
