"""Data-quality report: what a careful analyst would want to know before trusting an evaluation.

Besides describing the file, this module applies the two remedies the report can recommend, both
before the train/test split: excluding or clipping implausible values (:func:`treat_implausible`)
and dropping exact duplicate rows (done in ``load_data``). Duplicates that land in both train and
test inflate test scores (Kaufman et al., "Leakage in data mining", ACM TKDD 6(4), 2012).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from ..plain_values import show_counts, show_number
from ..vocabulary import format_number, plural

#: What ``data.implausible_values`` may ask for: leave them, drop their rows, or clip them.
IMPLAUSIBLE_CHOICES = ("keep", "exclude", "clip")
#: A text value longer than this makes its column free text (a note says so).
LONG_TEXT_CHARS = 1_000
#: A text column whose values are this share distinct (with at least :data:`ID_LIKE_MIN_VALUES` values)
#: is identifier-like: every case has its own category.
ID_LIKE_SHARE = 0.9
ID_LIKE_MIN_VALUES = 50


@dataclass
class DataQualityReport:
    """Counts and notes about one CSV, taken before any remedy (``remedies`` says what was then done)."""

    n_rows: int
    n_columns: int
    duplicate_rows: int = 0
    duplicates_dropped: int = 0
    duplicates_crossing_split: int = 0
    missing_values: dict[str, int] = field(default_factory=dict)
    constant_columns: list[str] = field(default_factory=list)
    free_text_columns: dict[str, dict] = field(default_factory=dict)
    outliers: dict[str, dict] = field(default_factory=dict)
    implausible_rows: int = 0
    implausible_rows_excluded: int = 0
    implausible_values_clipped: int = 0
    class_balance: dict[str, int] = field(default_factory=dict)
    encoding: str = "UTF-8"
    delimiter: str = ","
    remedies: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def minority_share(self) -> float:
        total = sum(self.class_balance.values())
        return min(self.class_balance.values()) / total if total else 0.0


def assess(frame: pd.DataFrame, target: str, numeric_features: list[str], plausible_ranges: dict | None = None, *,
           classes: bool = True) -> DataQualityReport:
    """Build the report for the full frame (before the split); ``classes=False`` (a regression target): no class
    balance."""
    report = DataQualityReport(n_rows=len(frame), n_columns=frame.shape[1])
    report.duplicate_rows = int(frame.duplicated().sum())
    missing = frame.isna().sum()
    report.missing_values = {str(c): int(n) for c, n in missing.items() if n}
    report.constant_columns = [str(c) for c in frame.columns if c != target and frame[c].nunique(dropna=True) <= 1]
    report.free_text_columns = free_text_columns(frame.drop(columns=[target]), numeric_features)
    bounds = plausible_bounds(frame, numeric_features, plausible_ranges or {})
    report.outliers = _outliers(frame, bounds)
    report.implausible_rows = int(_implausible_mask(frame, bounds).sum())
    if classes:
        report.class_balance = {str(k): int(v) for k, v in frame[target].value_counts().sort_index().items()}
    _add_warnings(report)
    return report


def free_text_columns(features: pd.DataFrame, numeric: list[str]) -> dict[str, dict]:
    """Text columns that are free text or identifiers rather than categories.

    Returns
    -------
    dict
        ``{column: {"longest": characters, "distinct": values, "values": non-missing values}}`` for each
        non-numeric column with a value longer than :data:`LONG_TEXT_CHARS` characters, or whose values are
        at least :data:`ID_LIKE_SHARE` distinct (and at least :data:`ID_LIKE_MIN_VALUES` of them).
    """
    found = {}
    for col in features.columns:
        if col in numeric:
            continue
        values = features[col].dropna()
        if values.empty:
            continue
        longest = int(values.astype(str).str.len().max())
        distinct = int(values.nunique())
        id_like = len(values) >= ID_LIKE_MIN_VALUES and distinct >= ID_LIKE_SHARE * len(values)
        if longest > LONG_TEXT_CHARS or id_like:
            found[str(col)] = {"longest": longest, "distinct": distinct, "values": int(len(values))}
    return found


def crossing_duplicates(X_train: pd.DataFrame, X_test: pd.DataFrame) -> int:
    """Number of test rows whose feature values also appear in the training rows (leakage)."""
    train_keys = set(pd.util.hash_pandas_object(X_train, index=False).tolist())
    test_keys = pd.util.hash_pandas_object(X_test, index=False)
    return int(test_keys.isin(train_keys).sum())


def plausible_bounds(frame: pd.DataFrame, numeric: list[str], ranges: dict) -> dict[str, tuple[float, float, str]]:
    """``{column: (low, high, reason)}``: the configured range, else 5 interquartile ranges beyond the quartiles.

    The 5×IQR fence is Tukey's box-plot rule (Tukey, *Exploratory Data Analysis*, 1977) widened from
    1.5 to 5 so that only values far outside the bulk are called implausible. A column with no
    negative values is also fenced on the log scale (``log(x + s)``, ``s`` the 5th percentile of its
    positive values over 10, so the scale does not matter) and a value must lie outside both
    fences: right-skewed measurements (areas, incomes, counts) have long but plausible upper tails
    that the plain fence would flag, while an age of 144 among adults lies outside both.
    """
    bounds = {}
    for col in numeric:
        values = frame[col].dropna().astype(float)
        if values.empty:
            continue
        if col in ranges:
            low, high = (float(v) for v in ranges[col])
            bounds[col] = (low, high, f"outside the plausible range {show_number(low)} to {show_number(high)}")
            continue
        q1, q3 = np.percentile(values, [25, 75])
        iqr = q3 - q1
        if iqr <= 0:
            continue
        low, high = float(q1 - 5 * iqr), float(q3 + 5 * iqr)
        positive = values[values > 0]
        if values.min() >= 0 and len(positive):
            shift = float(np.percentile(positive, 5)) / 10  # in the column's own units: the log works at any scale
            l1, l3 = np.percentile(np.log(values + shift), [25, 75])
            if l3 > l1:
                low = min(low, float(np.exp(l1 - 5 * (l3 - l1)) - shift))
                high = max(high, float(np.exp(l3 + 5 * (l3 - l1)) - shift))
            bounds[col] = (low, high, "more than 5 interquartile ranges beyond the quartiles, on the plain and on "
                                      "the log scale")
        else:
            bounds[col] = (low, high, "more than 5 interquartile ranges beyond the quartiles")
    return bounds


def treat_implausible(frame: pd.DataFrame, bounds: dict, choice: str, report: DataQualityReport) -> pd.DataFrame:
    """Apply ``data.implausible_values`` to ``frame`` and record what was done in ``report``.

    ``exclude`` drops every row with a value outside its column's bounds; ``clip`` replaces such a
    value with the nearest value of that column that lies inside the bounds (so integers stay
    integers and no value is invented); ``keep`` leaves the frame as it is. Missing values are
    never implausible.
    """
    if choice == "keep" or not report.implausible_rows:
        return frame
    if choice == "exclude":
        mask = _implausible_mask(frame, bounds)
        report.implausible_rows_excluded = int(mask.sum())
        report.remedies["implausible values"] = f"excluded {plural(int(mask.sum()), 'row')} before splitting"
        report.warnings.append(f"Excluded {plural(int(mask.sum()), 'row')} with implausible values before splitting; "
                               f"{plural(int((~mask).sum()), 'row')} remain.")
        return frame[~mask]
    frame = frame.copy()
    clipped = 0
    for col, (low, high, _) in bounds.items():
        values = frame[col]
        inside = values[(values >= low) & (values <= high)]
        if inside.empty:
            continue
        too_low, too_high = values < low, values > high
        clipped += int(too_low.sum() + too_high.sum())
        frame.loc[too_low, col] = inside.min()
        frame.loc[too_high, col] = inside.max()
    report.implausible_values_clipped = clipped
    report.remedies["implausible values"] = f"clipped {plural(clipped, 'value')} to the nearest plausible value"
    report.warnings.append(f"Clipped {plural(clipped, 'implausible value')} to the nearest plausible value in their column "
                           "before splitting.")
    return frame


def _implausible_mask(frame: pd.DataFrame, bounds: dict) -> pd.Series:
    mask = pd.Series(False, index=frame.index)
    for col, (low, high, _) in bounds.items():
        values = pd.to_numeric(frame[col], errors="coerce")
        mask |= (values < low) | (values > high)
    return mask


def _outliers(frame: pd.DataFrame, bounds: dict) -> dict[str, dict]:
    found = {}
    for col, (low, high, reason) in bounds.items():
        values = frame[col].dropna().astype(float)
        bad = values[(values < low) | (values > high)]
        if len(bad):
            found[str(col)] = {"count": int(len(bad)), "min": float(bad.min()), "max": float(bad.max()), "reason": reason}
    return found


def _add_warnings(r: DataQualityReport) -> None:
    if r.duplicate_rows:
        r.warnings.append(f"{format_number(r.duplicate_rows)} of {plural(r.n_rows, 'row')} are exact duplicates; duplicates that land in both "
                          "train and test inflate test scores.")
    for col, n in r.missing_values.items():
        r.warnings.append(f"Column '{col}' has {plural(n, 'missing value')} ({n / r.n_rows:.1%}); the model must handle them.")
    for col in r.constant_columns:
        r.warnings.append(f"Column '{col}' has a single value and carries no information.")
    for col, t in r.free_text_columns.items():
        kind = "free text" if t["longest"] > LONG_TEXT_CHARS else "an identifier"
        r.warnings.append(
            f"Column '{col}' looks like {kind}, not a category ({format_number(t['distinct'])} distinct of "
            f"{plural(t['values'], 'value')}, the longest {plural(t['longest'], 'character')}). HEXEval treats it as a "
            "categorical feature with one level per distinct value: explanations cannot generalise over it, "
            "counterfactual search slows down and uses more memory, and long values are shortened in texts shown "
            "to personas. Remove the column from the CSV (or from the model) if it is a name, an id or notes.")
    for col, o in r.outliers.items():
        seen = (f"value {show_number(o['min'])}" if o["min"] == o["max"] else
                f"from {show_number(o['min'])} to {show_number(o['max'])}")
        r.warnings.append(f"Column '{col}' has {plural(o['count'], 'implausible value')} ({o['reason']}; {seen}).")
    if r.class_balance and r.minority_share < 0.1:
        r.warnings.append(f"The classes are imbalanced ({show_counts(r.class_balance)}); accuracy alone is misleading.")
