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


def comment_groups(ratings, *, method_column: str = "method", dimensions: tuple[str, ...] = ()):
    """Identical comments of one persona's ratings collapsed: one row per (method, comment) with its count.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Successful ratings with ``method_column``, ``comment`` and ``instance_index``.
    method_column : str, keyword-only
        The column naming the rated method.
    dimensions : tuple of str, keyword-only
        Score columns to average over each group's ratings (one output column each).

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``comment``, ``count`` (ratings that gave this comment) and ``cases``
        (the distinct case numbers, in first order), then the mean of each of ``dimensions``, in the
        order the comments first appear; empty comments are left out.
    """
    import pandas as pd  # the module's statistics helpers need no pandas; only this table does

    rows: dict[tuple, dict] = {}
    scores: dict[tuple, list] = {}
    for position, (method, comment, case) in enumerate(zip(
            ratings[method_column].astype(str), ratings["comment"].fillna("").astype(str), ratings["instance_index"])):
        if not comment.strip():
            continue
        row = rows.setdefault((method, comment), {"method": method, "comment": comment, "count": 0, "cases": []})
        row["count"] += 1
        scores.setdefault((method, comment), []).append(position)
        if case not in row["cases"]:
            row["cases"].append(case)
    for key, row in rows.items():
        for d in dimensions:
            values = pd.to_numeric(ratings[d].iloc[scores[key]], errors="coerce")
            row[d] = float(values.mean()) if values.notna().any() else float("nan")
    return pd.DataFrame(list(rows.values()), columns=["method", "comment", "count", "cases", *dimensions])
