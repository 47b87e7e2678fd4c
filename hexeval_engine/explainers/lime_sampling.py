"""LIME's undiscretisation (bin -> value) with one truncated-normal draw for all features.

``lime.discretize.BaseDiscretizer.undiscretize`` (lime 0.2.0.1) turns each sampled bin back into a
value feature by feature: one ``scipy.stats.truncnorm.rvs`` call per discretised feature, each
drawing its uniforms from the explainer's ``RandomState`` and mapping them through the truncated
normal's inverse CDF. With 13 numeric features that is 13 calls of ~0.3 ms of argument checking
per explanation, a third of LIME's own time on heart read without categorical features.

:func:`batched_undiscretize` keeps the algorithm and the random stream: the features' truncation
bounds, means and scales are stacked in the library's feature order and drawn in **one** call.
``RandomState.uniform`` fills its output sequentially, so one draw of the total is the per-feature
draws concatenated, and the inverse CDF is element-wise: the values are the library's. Where a bin's
lower and upper bound coincide the library returns the bound's z-score (not the value); so does
this.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.stats


def batched_undiscretize(discretizer) -> Callable[[np.ndarray], np.ndarray]:
    """An ``undiscretize(data)`` for ``discretizer`` (a lime ``BaseDiscretizer``) that draws once.

    Parameters
    ----------
    discretizer : lime.discretize.BaseDiscretizer
        Its ``means``, ``stds``, ``mins``, ``maxs`` (per feature, per bin) and ``random_state``
        are read at call time, so re-seeding the shared random state keeps working.

    Returns
    -------
    callable
        ``undiscretize(data)`` for a 2-D array of bin codes; 1-D rows go to the library's method.
    """
    library = discretizer.undiscretize

    def undiscretize(data: np.ndarray) -> np.ndarray:
        if np.ndim(data) != 2:
            return library(data)
        ret = data.copy()
        columns, lows, highs, locs, scales, masks = [], [], [], [], [], []
        for feature in discretizer.means:  # the library's order: the random stream follows it
            codes = ret[:, feature].astype(int)
            means = np.array(discretizer.means[feature])[codes]
            stds = np.array(discretizer.stds[feature])[codes]
            low = (np.array(discretizer.mins[feature])[codes] - means) / stds
            high = (np.array(discretizer.maxs[feature])[codes] - means) / stds
            unequal = low != high
            columns.append((feature, low))
            masks.append(unequal)
            lows.append(low[unequal])
            highs.append(high[unequal])
            locs.append(means[unequal])
            scales.append(stds[unequal])
        if not columns:
            return ret
        drawn = scipy.stats.truncnorm.rvs(np.concatenate(lows), np.concatenate(highs), loc=np.concatenate(locs),
                                          scale=np.concatenate(scales), random_state=discretizer.random_state)
        start = 0
        for (feature, values), unequal in zip(columns, masks):
            n = int(unequal.sum())
            values[unequal] = drawn[start:start + n]
            start += n
            ret[:, feature] = values
        return ret

    return undiscretize
