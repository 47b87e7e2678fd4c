"""The one place where per-instance metric values become a mean with a bootstrap confidence interval.

Public interface (stable)
-------------------------
``bootstrap_ci(values, *, n_resamples=1000, confidence=0.95, seed=0) -> (mean, low, high, n)``
``summarise(per_instance, *, n_resamples=1000, confidence=0.95, seed=0, methods=None) -> (wide, long)``

``per_instance`` is the long frame of ``compute_instance_metrics``: columns ``method``,
``instance_id``, ``metric``, ``value``, ``derived``.

``wide``: one row per method (``method`` first) and, for every metric of the registry,
columns ``M``, ``M_ci_low``, ``M_ci_high`` (``NaN`` where the metric does not apply), followed
by the alias columns of the original HEXEval (``rule_accuracy``, ``counterfactual_success``
and their CI columns).

``long``: one row per (method, metric) actually computed, columns ``method``, ``metric``,
``value`` (mean), ``ci_low``, ``ci_high``, ``n`` (instances with a finite value),
``direction``, ``meaning``, ``derived`` (True when the values come from derived importance
vectors, i.e. fidelity and parsimony of Anchor and DiCE).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..explanation import ALL_METHODS as METHODS
from .registry import ALIASES, METRICS, get_spec

_MAX_CELLS = 5_000_000  # resample indices held in memory at once


def bootstrap_ci(values, *, n_resamples: int = 1000, confidence: float = 0.95,
                 seed: int = 0) -> tuple[float, float, float, int]:
    """Mean of ``values`` and its percentile-bootstrap confidence interval.

    Resamples the finite values with replacement ``n_resamples`` times, takes the mean of each
    resample, and returns the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles
    of those means (Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 13).

    Parameters
    ----------
    values : array-like of float
        Per-instance values; ``NaN`` and infinite values are dropped.
    n_resamples : int
        Number of bootstrap resamples.
    confidence : float
        Coverage of the interval, in ``(0, 1)``.
    seed : int
        Seed of the resampling; the same seed gives the same interval.

    Returns
    -------
    mean, low, high : float
        ``NaN`` for all three when no finite value is left; with a single value the mean is
        that value and the interval is ``NaN`` (one observation says nothing about spread).
    n : int
        Number of finite values used.
    """
    _check_settings(confidence, n_resamples)
    x = np.asarray(values, dtype=float).reshape(-1)
    x = x[np.isfinite(x)]
    n = int(x.size)
    if n == 0:
        return float("nan"), float("nan"), float("nan"), 0
    mean = float(x.mean())
    if n == 1:
        return mean, float("nan"), float("nan"), 1
    [(low, high)] = _intervals([x], [mean], n_resamples=n_resamples, confidence=confidence, seed=seed)
    return mean, low, high, n


def _check_settings(confidence: float, n_resamples: int) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence}.")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1; got {n_resamples}.")


def _resample_indices(n: int, n_resamples: int, seed: int):
    """The bootstrap's resample indices for ``n`` values: chunks of at most :data:`_MAX_CELLS` cells, drawn from a
    fresh generator seeded with ``seed``. They depend on ``n`` alone."""
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _MAX_CELLS // n)
    return (rng.integers(0, n, size=(min(per_chunk, n_resamples - start), n))
            for start in range(0, n_resamples, per_chunk))


def _intervals(xs: list, means: list, *, n_resamples: int, confidence: float, seed: int) -> list:
    """Percentile intervals of the groups ``xs`` (each one group's finite values, all of one length ``n``);
    ``means`` are the groups' means. The groups share their resample indices (drawn once when they fit in one
    chunk, else drawn again for each group), so each interval is what the group alone would get."""
    n = len(xs[0])
    shared = list(_resample_indices(n, n_resamples, seed)) if n * n_resamples <= _MAX_CELLS else None
    alpha = (1 - confidence) / 2
    out = []
    for x, mean in zip(xs, means):
        chunks = shared if shared is not None else _resample_indices(n, n_resamples, seed)
        row = np.concatenate([x[idx].mean(axis=1) for idx in chunks])  # a 3-D mean would sum in another order
        low, high = np.quantile(row, [alpha, 1 - alpha])
        # Floating-point summation can put the percentiles a hair's breadth past the mean when all
        # values are equal; snap such rounding differences (and only those) to the mean.
        eps = 1e-12 * max(1.0, abs(mean))
        low = mean if mean < low <= mean + eps else float(low)
        high = mean if mean - eps <= high < mean else float(high)
        out.append((low, high))
    return out


def summarise(per_instance: pd.DataFrame, *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0,
              methods=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Aggregate per-instance metric values to one row per method.

    Parameters
    ----------
    per_instance : pandas.DataFrame
        Columns ``method``, ``instance_id``, ``metric``, ``value``, ``derived``.
    n_resamples, confidence, seed
        Passed to :func:`bootstrap_ci` (``evaluation.bootstrap_resamples``,
        ``evaluation.confidence_level``, ``evaluation.random_state``).
    methods : sequence of str, optional
        Methods to list, in this order, even when they have no values (e.g. a failed method).
        Default: the methods present, in the order of ``METHODS``, then any others.

    Returns
    -------
    wide, long : pandas.DataFrame
        See the module docstring.
    """
    missing = {"method", "metric", "value", "derived"} - set(per_instance.columns)
    if missing:
        raise ValueError(f"per_instance lacks column(s) {sorted(missing)}; expected method, instance_id, metric, "
                         "value, derived (the output of compute_instance_metrics).")
    _check_settings(confidence, n_resamples)
    values = per_instance["value"].to_numpy(dtype=float)
    derived = per_instance["derived"].astype(bool).to_numpy()
    records = []
    by_size: dict[int, list] = {}  # number of finite values -> the records (and values) to bootstrap
    for method, metric, rows in _groups(per_instance):
        spec = get_spec(metric)
        x = values[rows]
        x = x[np.isfinite(x)]
        mean = float(x.mean()) if x.size else float("nan")
        record = {"method": method, "metric": metric, "value": mean, "ci_low": float("nan"),
                  "ci_high": float("nan"), "n": int(x.size), "direction": spec.direction, "meaning": spec.meaning,
                  "derived": bool(derived[rows].any())}
        records.append(record)
        if x.size > 1:
            by_size.setdefault(int(x.size), []).append((record, x))
    # the groups of one size share their resample indices (they depend on the size and the seed alone): each
    # group's interval is what bootstrap_ci gives it alone
    for group in by_size.values():
        intervals = _intervals([x for _, x in group], [r["value"] for r, _ in group], n_resamples=n_resamples,
                               confidence=confidence, seed=seed)
        for (record, _), (low, high) in zip(group, intervals):
            record["ci_low"], record["ci_high"] = low, high
    long = pd.DataFrame(records, columns=["method", "metric", "value", "ci_low", "ci_high", "n", "direction",
                                          "meaning", "derived"])
    order = _method_order(long["method"].unique().tolist(), methods)
    metric_rank = {m: i for i, m in enumerate(METRICS)}
    long = long.assign(_m=long["method"].map({m: i for i, m in enumerate(order)}),
                       _k=long["metric"].map(lambda m: metric_rank.get(m, len(metric_rank))))
    long = long.sort_values(["_m", "_k"], kind="stable").drop(columns=["_m", "_k"]).reset_index(drop=True)
    return _wide(long, order), long


def _groups(per_instance: pd.DataFrame):
    """``(method, metric, row positions)`` of each group, in the order ``groupby(sort=False)`` iterates them."""
    number = per_instance.groupby(["method", "metric"], sort=False).ngroup().to_numpy(dtype=float)
    keep = np.flatnonzero(~np.isnan(number))  # rows without a method or metric belong to no group
    order = keep[np.argsort(number[keep], kind="stable")]
    starts = np.flatnonzero(np.diff(number[order], prepend=-1.0)) if order.size else np.zeros(0, dtype=int)
    methods, metrics = per_instance["method"].to_numpy(), per_instance["metric"].to_numpy()
    for start, stop in zip(starts, [*starts[1:], order.size]):
        rows = order[start:stop]
        yield methods[rows[0]], metrics[rows[0]], rows


def _method_order(present: list, methods) -> list:
    if methods is not None:
        return list(methods) + [m for m in present if m not in methods]
    return [m for m in METHODS if m in present] + [m for m in present if m not in METHODS]


def _wide(long: pd.DataFrame, order: list) -> pd.DataFrame:
    names = list(METRICS) + [m for m in long["metric"].unique() if m not in METRICS]
    # (method, metric) -> (value, ci_low, ci_high): each pair is one row of ``long``, read once (a scalar look-up per
    # cell cost a tenth of a second on a bundled run)
    cells = dict(zip(zip(long["method"].tolist(), long["metric"].tolist()),
                     zip(*(long[c].to_numpy(dtype=float).tolist() for c in ("value", "ci_low", "ci_high")))))
    nan = (float("nan"),) * 3
    rows = []
    for method in order:
        row = {"method": method}
        for name in names:
            value, low, high = cells.get((method, name), nan)
            row[name], row[name + "_ci_low"], row[name + "_ci_high"] = value, low, high
        for alias, base in ALIASES.items():
            for suffix in ("", "_ci_low", "_ci_high"):
                row[alias + suffix] = row[base + suffix]
        rows.append(row)
    columns = ["method"] + [name + s for name in [*names, *ALIASES] for s in ("", "_ci_low", "_ci_high")]
    return pd.DataFrame(rows, columns=columns)
