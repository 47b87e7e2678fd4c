"""Krippendorff's alpha for ordinal ratings (Krippendorff 2004, *Content Analysis*, ch. 11; Hayes &
Krippendorff 2007, "Answering the call for a standard reliability measure for coding data").

Implemented here (about 30 lines, tested against a hand-computed example) rather than through a
package: the one library (``krippendorff``) adds a dependency for one formula.
"""

from __future__ import annotations

import numpy as np


def ordinal_alpha(units: list[list[float]]) -> float | None:
    """Alpha of ordinal ratings.

    Parameters
    ----------
    units : list of list
        For each unit (an item), the values the coders gave it (missing ones left out). Units with
        fewer than two values carry no information on agreement and are skipped.

    Returns
    -------
    float or None
        ``1 - D_o / D_e`` with the ordinal distance ``(sum_{g=c..k} n_g - (n_c + n_k)/2)^2``;
        None when fewer than two pairable values or no variation at all.
    """
    pairable = [np.asarray(u, dtype=float) for u in units if len(u) >= 2]
    if not pairable:
        return None
    values = np.unique(np.concatenate(pairable))
    if len(values) < 2:
        return None
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    coincidence = np.zeros((k, k))
    for u in pairable:
        m = len(u)
        for i in range(m):
            for j in range(m):
                if i != j:
                    coincidence[index[u[i]], index[u[j]]] += 1.0 / (m - 1)
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    cum = np.cumsum(n_c)
    delta = np.zeros((k, k))
    for c in range(k):
        for e in range(k):
            lo, hi = min(c, e), max(c, e)
            delta[c, e] = (cum[hi] - (cum[lo - 1] if lo > 0 else 0.0) - (n_c[c] + n_c[e]) / 2) ** 2
    observed = (coincidence * delta).sum()
    expected = (np.outer(n_c, n_c) * delta).sum() / (n - 1)
    return None if expected == 0 else float(1 - observed / expected)
