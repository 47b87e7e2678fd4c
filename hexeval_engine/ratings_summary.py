"""What every consumer of persona ratings shares: the six dimensions and the t-interval of a mean.

The rater interface, the charts, the recommender and run comparison all import these from here,
so the dimensions are defined once.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

DIMENSIONS = ("interpretability", "completeness", "actionability", "trust", "satisfaction", "decision_support")
"""The six rating dimensions, each an integer 1-5."""


def t_halfwidth(values: np.ndarray, level: float) -> float:
    """Half-width of the Student-t confidence interval of the mean of ``values``.

    Parameters
    ----------
    values : ndarray
        The observations (no NaN).
    level : float
        Confidence level, e.g. 0.95.

    Returns
    -------
    float
        ``t_{(1+level)/2, n-1} * s / sqrt(n)``; 0.0 for fewer than two values (callers that need
        "unknown" instead test the count first).
    """
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return 0.0
    sem = float(values.std(ddof=1)) / math.sqrt(len(values))
    return float(stats.t.ppf(0.5 + level / 2, df=len(values) - 1)) * sem
