"""Paired comparisons of two methods over the same cases, and Holm's correction.

Public interface (stable)
-------------------------
``paired_difference(a, b, *, n_resamples=2000, confidence=0.95, seed=0) -> PairedDifference``
``composite_difference(parts, *, n_resamples=2000, confidence=0.95, seed=0) -> PairedDifference``
``holm(p_values) -> list[float]``
``mean_ci(values, *, n_resamples=2000, confidence=0.95, seed=0) -> (mean, low, high)``

Methods are compared on the *same* cases, so the natural unit is the per-case difference
``d_i = a_i - b_i`` (cases where either value is missing are dropped, and the real ``n`` is kept).
The interval is the percentile bootstrap of the mean of ``d`` (Efron & Tibshirani 1993); the test is
the two-sided Wilcoxon signed-rank test (Wilcoxon 1945; exact for small ``n`` without ties, scipy's
default otherwise).

A recommendation score mixes evidence measured on different units: fidelity per shared case and
persona ratings per (persona, case). :func:`composite_difference` compares two methods on such a
weighted mix: each part is a vector of paired differences on its own units, the statistic is
``sum_k w_k * mean(d_k)``, and the bootstrap resamples each part's units independently (a stratified
paired bootstrap). Its p-value is the two-sided bootstrap p-value
``min(1, 2 * min(P*(T <= 0), P*(T >= 0)))`` with the usual ``+1`` correction. Several comparisons made for one recommendation are corrected together with
Holm's step-down procedure (Holm 1979), which controls the family-wise error rate.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import wilcoxon

_MAX_CELLS = 2_000_000


@dataclass(frozen=True)
class PairedDifference:
    """Mean of ``a - b`` over the cases both have, with its interval and a signed-rank test.

    Attributes
    ----------
    mean, ci_low, ci_high : float
        Mean paired difference and its percentile-bootstrap interval (NaN when ``n < 2``).
    p_value : float
        Two-sided Wilcoxon signed-rank p-value (1.0 when every difference is zero; NaN when ``n < 2``).
    n : int
        Number of cases with both values.
    """

    mean: float
    ci_low: float
    ci_high: float
    p_value: float
    n: int

    def to_dict(self) -> dict:
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()}


def _finite_pairs(a, b) -> np.ndarray:
    a = np.asarray(a, dtype=float).reshape(-1)
    b = np.asarray(b, dtype=float).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(f"paired values need the same number of cases; got {a.size} and {b.size}.")
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep] - b[keep]


def mean_ci(values, *, n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """Mean of the finite ``values`` and its percentile-bootstrap interval (NaN interval when n < 2)."""
    x = np.asarray(values, dtype=float).reshape(-1)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan, math.nan
    if np.all(x == x[0]):
        return mean, mean, mean
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    per_chunk = max(1, _MAX_CELLS // x.size)
    for start in range(0, n_resamples, per_chunk):
        size = min(per_chunk, n_resamples - start)
        means[start:start + size] = x[rng.integers(0, x.size, size=(size, x.size))].mean(axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return mean, float(min(low, mean)), float(max(high, mean))


def paired_difference(a, b, *, n_resamples: int = 2000, confidence: float = 0.95, seed: int = 0) -> PairedDifference:
    """Compare two methods case by case.

    Parameters
    ----------
    a, b : array-like of float, same length
        Per-case values of the two methods, aligned on the same cases (NaN where a method has no
        value for a case; such cases are dropped for this comparison).
    n_resamples, confidence, seed
        Bootstrap settings.

    Returns
    -------
    PairedDifference
    """
    d = _finite_pairs(a, b)
    n = int(d.size)
    if n == 0:
        return PairedDifference(math.nan, math.nan, math.nan, math.nan, 0)
    mean, low, high = mean_ci(d, n_resamples=n_resamples, confidence=confidence, seed=seed)
    if n < 2:
        return PairedDifference(mean, math.nan, math.nan, math.nan, n)
    if np.all(d == 0):
        p = 1.0
    else:
        p = float(wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)
    return PairedDifference(mean, low, high, p, n)


def holm(p_values) -> list[float]:
    """Holm-adjusted p-values (same order as given; NaN stays NaN and is not counted).

    The ``k``-th smallest of ``m`` p-values is multiplied by ``m - k + 1``; adjusted values are made
    monotone and capped at 1 (Holm 1979).
    """
    p = [float(x) if x is not None else math.nan for x in p_values]
    idx = [i for i, x in enumerate(p) if math.isfinite(x)]
    m = len(idx)
    adjusted = [math.nan] * len(p)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: p[i])):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def smallest_p(n_resamples: int) -> float:
    """The smallest p-value :func:`composite_difference` gives with ``n_resamples``: no resample on the far side of
    0 (the ``+1`` correction on both counts). A p-value at it is an upper bound, said "p ≤ …"."""
    return 2 / (n_resamples + 1)


def composite_difference(parts, *, n_resamples: int = 2000, confidence: float = 0.95,
                         seed: int = 0) -> PairedDifference:
    """Weighted sum of mean paired differences, each part bootstrapped over its own units.

    Parameters
    ----------
    parts : sequence of (weight, differences)
        ``differences`` are per-unit paired differences (NaN dropped); parts with no finite value or a
        zero weight are left out and the remaining weights are renormalised.
    n_resamples, confidence, seed
        Bootstrap settings.

    Returns
    -------
    PairedDifference
        ``n`` is the smallest number of units among the parts used (the weakest link).
    """
    used = []
    for weight, diffs in parts:
        d = np.asarray(diffs, dtype=float).reshape(-1)
        d = d[np.isfinite(d)]
        if weight > 0 and d.size:
            used.append((float(weight), d))
    if not used:
        return PairedDifference(math.nan, math.nan, math.nan, math.nan, 0)
    total = sum(w for w, _ in used)
    used = [(w / total, d) for w, d in used]
    stat = float(sum(w * d.mean() for w, d in used))
    n = min(d.size for _, d in used)
    if n < 2:
        return PairedDifference(stat, math.nan, math.nan, math.nan, n)
    rng = np.random.default_rng(seed)
    boot = np.zeros(n_resamples)
    for w, d in used:
        per_chunk = max(1, _MAX_CELLS // d.size)
        for start in range(0, n_resamples, per_chunk):
            size = min(per_chunk, n_resamples - start)
            boot[start:start + size] += w * d[rng.integers(0, d.size, size=(size, d.size))].mean(axis=1)
    if all(np.all(d == 0) for _, d in used):
        return PairedDifference(stat, stat, stat, 1.0, n)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(boot, [alpha, 1 - alpha])
    below = (1 + np.sum(boot <= 0)) / (n_resamples + 1)
    above = (1 + np.sum(boot >= 0)) / (n_resamples + 1)
    p = float(min(1.0, 2 * min(below, above)))
    return PairedDifference(stat, float(min(low, stat)), float(max(high, stat)), p, n)
