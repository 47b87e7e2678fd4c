"""Data-quality report: what a careful analyst would want to know before trusting an evaluation."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd


@dataclass
class DataQualityReport:
    n_rows: int
    n_columns: int
    duplicate_rows: int = 0
    duplicates_dropped: int = 0
    duplicates_crossing_split: int = 0
    missing_values: dict[str, int] = field(default_factory=dict)
    constant_columns: list[str] = field(default_factory=list)
    outliers: dict[str, dict] = field(default_factory=dict)
    class_balance: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def minority_share(self) -> float:
        total = sum(self.class_balance.values())
        return min(self.class_balance.values()) / total if total else 0.0


def assess(frame: pd.DataFrame, target: str, numeric_features: list[str], plausible_ranges: dict | None = None) -> DataQualityReport:
    """Build the report for the full frame (before the split)."""
    report = DataQualityReport(n_rows=len(frame), n_columns=frame.shape[1])
    report.duplicate_rows = int(frame.duplicated().sum())
    missing = frame.isna().sum()
    report.missing_values = {str(c): int(n) for c, n in missing.items() if n}
    report.constant_columns = [str(c) for c in frame.columns if c != target and frame[c].nunique(dropna=True) <= 1]
    report.outliers = _outliers(frame, numeric_features, plausible_ranges or {})
    report.class_balance = {str(k): int(v) for k, v in frame[target].value_counts().sort_index().items()}
    _add_warnings(report)
    return report


def crossing_duplicates(X_train: pd.DataFrame, X_test: pd.DataFrame) -> int:
    """Number of test rows whose feature values also appear in the training rows (leakage)."""
    train_keys = set(pd.util.hash_pandas_object(X_train, index=False).tolist())
    test_keys = pd.util.hash_pandas_object(X_test, index=False)
    return int(test_keys.isin(train_keys).sum())


def _outliers(frame: pd.DataFrame, numeric: list[str], ranges: dict) -> dict[str, dict]:
    found = {}
    for col in numeric:
        values = frame[col].dropna().astype(float)
        if values.empty:
            continue
        if col in ranges:
            low, high = ranges[col]
            reason = f"outside the plausible range [{low}, {high}]"
        else:
            q1, q3 = np.percentile(values, [25, 75])
            iqr = q3 - q1
            if iqr == 0:
                continue
            low, high = q1 - 5 * iqr, q3 + 5 * iqr
            reason = "more than 5 interquartile ranges beyond the quartiles"
        bad = values[(values < low) | (values > high)]
        if len(bad):
            found[str(col)] = {"count": int(len(bad)), "min": float(bad.min()), "max": float(bad.max()), "reason": reason}
    return found


def _add_warnings(r: DataQualityReport) -> None:
    if r.duplicate_rows:
        r.warnings.append(f"{r.duplicate_rows} of {r.n_rows} rows are exact duplicates; duplicates that land in both "
                          "train and test inflate test scores.")
    for col, n in r.missing_values.items():
        r.warnings.append(f"Column '{col}' has {n} missing value(s) ({n / r.n_rows:.1%}); the model must handle them.")
    for col in r.constant_columns:
        r.warnings.append(f"Column '{col}' has a single value and carries no information.")
    for col, o in r.outliers.items():
        r.warnings.append(f"Column '{col}' has {o['count']} implausible value(s) ({o['reason']}; up to {o['max']:g}).")
    if r.class_balance and r.minority_share < 0.1:
        r.warnings.append(f"The classes are imbalanced ({r.class_balance}); accuracy alone is misleading.")
