"""What a person who has seen many such cases knows: which way each of this case's values usually leans.

A clinician knows that a resting blood pressure of 152 mm Hg goes with heart disease more often than
not; a loan officer knows the same of a grade-F loan. The simulated rater stands in for that knowledge
with the training data: for each feature, the share of past cases with the positive outcome among
those *like this one on that feature* (the same category, or the same fifth of a numeric feature's
range), against the share among all cases. A value whose cases have the positive outcome clearly more
(or less) often "leans" towards it. This is knowledge about cases, never a measurement of an
explanation, of the model or of a method: a reason an explanation gives that contradicts it is a
contradiction a reader with this experience sees (``docs/simulated_rater.md`` §1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MIN_GAP = 0.05
"""Least difference in outcome rate (5 percentage points) for a value to lean one way."""

MIN_CASES = 10
"""Fewest past cases like this one for their outcome rate to count."""

_BINS = 5


def leanings(X_train: pd.DataFrame, y_train: pd.Series, row: pd.Series) -> tuple[tuple[str, int], ...]:
    """``(feature, lean)`` for each feature of ``row``: +1 towards the positive class, -1 away, 0 neither.

    Parameters
    ----------
    X_train : DataFrame
        Past cases (raw values).
    y_train : Series
        Their classes: 1 is the positive class.
    row : Series
        The case's raw values.
    """
    return PastCases(X_train, y_train).leanings(row)


class PastCases:
    """The training cases read once for the leanings of many cases: each feature's numbers, fifths and text.

    Parameters
    ----------
    X_train : DataFrame
        Past cases (raw values).
    y_train : Series
        Their classes: 1 is the positive class.
    """

    def __init__(self, X_train: pd.DataFrame, y_train: pd.Series):
        self.y = np.asarray(y_train) == 1
        self.overall = float(self.y.mean()) if len(self.y) else 0.0
        self.columns = [_Column(X_train[feature]) for feature in X_train.columns]
        self.features = [str(feature) for feature in X_train.columns]

    def leanings(self, row: pd.Series) -> tuple[tuple[str, int], ...]:
        """``(feature, lean)`` for each feature of ``row`` (see :func:`leanings`)."""
        out = []
        for feature, column in zip(self.features, self.columns):
            alike = column.alike(row.get(column.name))
            lean = 0
            if alike is not None and int(alike.sum()) >= MIN_CASES:
                gap = float(self.y[alike].mean()) - self.overall
                lean = int(np.sign(gap)) if abs(gap) >= MIN_GAP else 0
            out.append((feature, lean))
        return tuple(out)


class _Column:
    """One feature of the past cases: its fifths when it is numeric with more than ten values, else its values as
    text (coded once, so a case's value is matched by one comparison of integers)."""

    def __init__(self, column: pd.Series):
        self.name = column.name
        # a column of few values is matched by value: its text is never read as numbers
        numeric = pd.to_numeric(column, errors="coerce") if column.nunique() > 2 * _BINS else None
        self.binned = bool(numeric is not None and numeric.notna().all())
        if self.binned:
            self.numeric = numeric.to_numpy(dtype=float)
            self.edges = np.unique(np.quantile(numeric, np.linspace(0, 1, _BINS + 1)))
        else:
            codes, texts = pd.factorize(column.astype(str))
            self.codes, self.texts = codes, {text: k for k, text in enumerate(texts)}

    def alike(self, value):
        """Mask of the past cases like ``value``: same value, or the same fifth of a numeric range."""
        if value is None or (isinstance(value, float) and np.isnan(value)):
            return None
        if self.binned:
            try:
                number = float(value)
            except (TypeError, ValueError):  # a text value in a numeric column: no past cases are like it
                return None
            edges = self.edges
            k = int(np.clip(np.searchsorted(edges, number, side="right") - 1, 0, len(edges) - 2))
            low, high = edges[k], edges[k + 1]
            return (self.numeric >= low) & ((self.numeric < high) if k < len(edges) - 2 else (self.numeric <= high))
        return self.codes == self.texts.get(str(value), -2)  # -2: no past case has this value
