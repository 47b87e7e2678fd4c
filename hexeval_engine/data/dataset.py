"""``load_data``: read a CSV, check it, split it, and describe its quality."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from sklearn.model_selection import train_test_split

from ..errors import DataError
from ..plain_values import show_counts
from ..vocabulary import noun, plural
from .coding import FeatureCoder
from .csv_reader import read_csv_content
from .data_quality import IMPLAUSIBLE_CHOICES, DataQualityReport, assess, crossing_duplicates, plausible_bounds, \
    treat_implausible
from .target import encode_target, find_target


@dataclass
class Dataset:
    """A classification dataset split into train and test, in raw CSV columns.

    ``y_train``/``y_test`` hold class indices into ``class_labels``: ``(negative, positive)`` for a
    binary target, the K sorted labels for a multi-class one.
    """

    X_train: pd.DataFrame
    X_test: pd.DataFrame
    y_train: pd.Series
    y_test: pd.Series
    target: str
    feature_names: list[str]
    categorical_features: list[str]
    numeric_features: list[str]
    class_labels: tuple  # (negative label, positive label) as they appear in the CSV
    quality: DataQualityReport
    coder: FeatureCoder
    source: str = ""
    random_state: int = 42
    extra: dict = field(default_factory=dict)

    @property
    def positive_label(self):
        return self.class_labels[1]

    @property
    def n_classes(self) -> int:
        """Number of classes of the target (2 for a binary target, 0 for a regression target)."""
        return len(self.class_labels)

    @property
    def is_regression(self) -> bool:
        """The target is a number the model predicts (no classes)."""
        return not self.class_labels

    @property
    def X_all(self) -> pd.DataFrame:
        return pd.concat([self.X_train, self.X_test])

    def summary(self) -> dict:
        return {
            "source": self.source,
            "target": self.target,
            "class_labels": [str(c) for c in self.class_labels],
            "n_train": len(self.X_train),
            "n_test": len(self.X_test),
            "n_features": len(self.feature_names),
            "categorical_features": self.categorical_features,
            "numeric_features": self.numeric_features,
        }


def load_data(
    path,
    target_column: str | None = None,
    *,
    test_size: float = 0.2,
    random_state: int = 42,
    positive_label=None,
    categorical_features: list[str] | None = None,
    drop_duplicates: bool = False,
    plausible_ranges: dict | None = None,
    implausible_values: str = "keep",
    value_labels: dict | None = None,
    task: str = "auto",
) -> Dataset:
    """Load a CSV for evaluation.

    Parameters
    ----------
    path : str, Path, bytes or file-like
        The CSV file (header row required).
    target_column : str, optional
        The binary target. When omitted it is detected only if unambiguous.
    test_size : float
        Share of rows held out (stratified by the target).
    positive_label : optional
        The target value that means "positive" (class 1). Default: ``1``/``True``/``yes``, else the minority.
    categorical_features : list of str, optional
        Columns to treat as categorical although they are numeric codes (e.g. chest-pain type).
    drop_duplicates : bool
        Drop exact duplicate rows before splitting (reported in ``quality.duplicates_dropped``).
    plausible_ranges : dict, optional
        ``{column: (low, high)}``: values outside are reported as implausible (other numeric
        columns: values more than 5 interquartile ranges beyond the quartiles).
    implausible_values : {"keep", "exclude", "clip"}
        What to do with implausible values before splitting: leave them, drop their rows, or clip
        them to the nearest plausible value of their column (reported in ``quality.remedies``).
    task : {"auto", "binary", "multiclass", "regression"}
        What the target holds (``data.task``); ``auto`` decides from its values (see ``encode_target``).
    """
    if not 0 < test_size < 1:
        raise DataError(f"test_size must be between 0 and 1 (exclusive); got {test_size}. Use e.g. 0.2.")
    if implausible_values not in IMPLAUSIBLE_CHOICES:
        raise DataError(f"implausible_values must be one of {', '.join(IMPLAUSIBLE_CHOICES)}; got '{implausible_values}'.")
    content = read_csv_content(path)
    frame = content.frame
    frame.columns = [str(c).strip() for c in frame.columns]
    target = find_target(frame, target_column)
    features = [c for c in frame.columns if c != target]
    categorical, numeric = _split_kinds(frame, features, categorical_features)
    _check_features(frame, features)
    y_all, labels = encode_target(frame[target], positive_label, task=task)
    quality = assess(frame, target, numeric, plausible_ranges, classes=bool(labels))
    quality.encoding, quality.delimiter, quality.notes = content.encoding, content.delimiter, list(content.notes)
    frame = treat_implausible(frame, plausible_bounds(frame, numeric, plausible_ranges or {}), implausible_values, quality)
    y_all = y_all.loc[frame.index]
    if drop_duplicates and frame.duplicated().any():
        keep = ~frame.duplicated()
        quality.duplicates_dropped = int((~keep).sum())
        frame, y_all = frame[keep], y_all[keep]
        quality.remedies["duplicates"] = f"dropped {plural(quality.duplicates_dropped, 'duplicate row')} before splitting"
        quality.warnings.append(f"Dropped {plural(quality.duplicates_dropped, 'duplicate row')} before splitting; "
                                f"{plural(len(frame), 'distinct row')} remain.")
    X = frame[features].reset_index(drop=True)
    y = y_all.reset_index(drop=True).rename(target)
    X_train, X_test, y_train, y_test = _split(X, y, test_size, random_state, target)
    quality.duplicates_crossing_split = crossing_duplicates(X_train, X_test)
    if quality.duplicates_crossing_split:
        quality.warnings.append(f"{quality.duplicates_crossing_split} test rows also appear in the training rows "
                                "(leakage), so test scores are inflated; drop duplicate rows before splitting "
                                "(data.drop_duplicates: true in the config).")
    coder = FeatureCoder.fit(X, categorical, value_labels)
    return Dataset(X_train, X_test, y_train, y_test, target, features, categorical, numeric, labels, quality, coder,
                   source=str(path) if isinstance(path, (str, Path)) else getattr(path, "name", "uploaded file"),
                   random_state=random_state)


def _split_kinds(frame, features, forced) -> tuple[list[str], list[str]]:
    forced = list(forced or [])
    unknown = [c for c in forced if c not in features]
    if unknown:
        raise DataError(f"Categorical {noun(len(unknown), 'feature')} {', '.join(unknown)} {noun(len(unknown), 'is')} not in the CSV "
                        f"(features: {', '.join(features)}). Fix the use case or config.")
    categorical = [c for c in features if c in forced or not pd.api.types.is_numeric_dtype(frame[c])
                   or pd.api.types.is_bool_dtype(frame[c])]
    return categorical, [c for c in features if c not in categorical]


def _check_features(frame, features) -> None:
    if not features:
        raise DataError("The CSV has only the target column; add feature columns.")
    empty = [c for c in features if frame[c].isna().all()]
    if empty:
        raise DataError(f"Feature {noun(len(empty), 'column')} {', '.join(empty)} {noun(len(empty), 'is')} entirely empty (all values missing). "
                        "Remove them from the CSV or fill them.")


def _split(X, y, test_size, random_state, target):
    if pd.api.types.is_float_dtype(y):  # a regression target: a plain random split
        if len(y) < 10:
            raise DataError(f"Too few rows for a train/test split: {len(y)} rows in '{target}'. Add rows.")
        parts = train_test_split(X, y, test_size=test_size, random_state=random_state)
        return [p.reset_index(drop=True) for p in parts]
    counts = y.value_counts()
    n_test = int(round(len(y) * test_size)) if test_size < 1 else int(test_size)
    if counts.min() < 2 or n_test < 2 or len(y) - n_test < 2:
        raise DataError(f"Too few rows for a stratified train/test split: {len(y)} rows in '{target}' "
                        f"({show_counts(counts)}). Each class needs at least 2 rows "
                        "and the test share must hold at least one row per class; add rows or change test_size.")
    try:
        parts = train_test_split(X, y, test_size=test_size, random_state=random_state, stratify=y)
    except ValueError as err:
        raise DataError(f"The stratified split failed for {len(y)} rows (class counts {show_counts(counts)}): {err}. "
                        "Add rows or change test_size.") from err
    return [p.reset_index(drop=True) for p in parts]
