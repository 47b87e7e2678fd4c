"""Parsimony of an importance vector: how few features carry the explanation.

Public interface (stable)
-------------------------
``num_important_features(importance) -> float``
``gini_sparseness(importance) -> float``
``entropy_complexity(importance) -> float``

Each takes one 1-D vector (signed or not; absolute values are used) and returns ``NaN`` when
the vector is all zero or not finite, because no share of importance can be formed.
"""

from __future__ import annotations

import numpy as np


def _shares(importance) -> np.ndarray | None:
    a = np.abs(np.asarray(importance, dtype=float).reshape(-1))
    if a.size == 0 or not np.isfinite(a).all() or a.sum() <= 0:
        return None
    return a / a.sum()


def num_important_features(importance) -> float:
    """Number of features carrying at least an equal share of the total absolute importance.

    A feature counts when ``|a_j| / sum|a| >= 1/p`` (``p`` = number of features), i.e. it
    matters at least as much as it would if every feature mattered equally. The threshold
    adapts to ``p`` and to the scale of the method, so a vector spread evenly over all
    features scores ``p`` (the worst) and one concentrated on ``m`` features scores ``m``. For
    the derived vectors of Anchor (rule features) and DiCE (changed features), which are zero
    elsewhere, this is the number of features the rule names or the counterfactuals change.
    Selectivity as a property of good explanations: Miller (2019), *Explanation in artificial
    intelligence: insights from the social sciences*, Artificial Intelligence 267.

    Returns
    -------
    float
        Count in ``[1, p]``; ``NaN`` for an all-zero vector.
    """
    shares = _shares(importance)
    if shares is None:
        return float("nan")
    p = shares.size
    return float(np.sum(shares >= (1.0 / p) * (1 - 1e-9)))


def gini_sparseness(importance) -> float:
    """Gini index of the absolute importances (Chalasani et al., 2020; Quantus ``Sparseness``).

    With ``a`` the absolute values sorted ascending and ``k = 1..p``::

        G = sum_k (2k - p - 1) a_k / (p * sum_k a_k)

    Chalasani, Chen, Chowdhury, Jha & Wu (2020), *Concise explanations of neural networks using
    adversarial training*, ICML.

    Returns
    -------
    float
        ``0`` when the weight is spread evenly, ``1 - 1/p`` when one feature carries it all;
        higher is sparser. ``NaN`` for an all-zero vector.
    """
    shares = _shares(importance)
    if shares is None:
        return float("nan")
    a = np.sort(shares)
    p = a.size
    k = np.arange(1, p + 1)
    return float(np.sum((2 * k - p - 1) * a) / p)  # shares already sum to 1


def entropy_complexity(importance) -> float:
    """Shannon entropy (natural log) of the fractional importances (Bhatt et al., 2020; Quantus ``Complexity``).

    With ``P_j = |a_j| / sum|a|``: ``H = -sum_j P_j ln P_j`` (terms with ``P_j = 0`` are 0).

    Bhatt, Weller & Moura (2020), *Evaluating and aggregating feature-based model explanations*, IJCAI.

    Returns
    -------
    float
        ``0`` when one feature carries all the weight, ``ln p`` when spread evenly; lower is
        simpler. ``NaN`` for an all-zero vector.
    """
    shares = _shares(importance)
    if shares is None:
        return float("nan")
    nz = shares[shares > 0]
    return float(-np.sum(nz * np.log(nz)) + 0.0)
