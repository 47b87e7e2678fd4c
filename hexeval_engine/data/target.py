"""Find the target column and turn its two labels into 0/1."""

from __future__ import annotations

from difflib import get_close_matches

import pandas as pd

from ..errors import DataError
from ..plain_values import plain, show, show_all
from ..vocabulary import noun, plural

TARGET_NAMES = ("target", "label", "class", "y", "outcome")
POSITIVE_WORDS = {"1", "true", "yes", "y", "positive", "pos"}


def find_target(frame: pd.DataFrame, target_column: str | None) -> str:
    """Return the target column: the one given, or the only unambiguous candidate."""
    columns = [str(c) for c in frame.columns]
    if target_column is not None:
        if target_column not in frame.columns:
            close = get_close_matches(str(target_column), columns, n=1, cutoff=0.6) or \
                [c for c in columns if c.lower() == str(target_column).lower()]
            hint = f"Did you mean '{close[0]}'? " if close else ""
            raise DataError(f"Target column '{target_column}' is not in the CSV. {hint}Its columns are: "
                            f"{', '.join(columns)}. Pick one of these as the target.")
        return target_column
    binary = [c for c in frame.columns if frame[c].nunique(dropna=True) == 2]
    named = [c for c in binary if str(c).strip().lower() in TARGET_NAMES]
    if len(named) == 1:
        return named[0]
    if len(binary) == 1:
        return binary[0]
    if not binary:
        raise DataError("No target column was given and no column has exactly two values, so none can be a binary target. "
                        f"Columns: {', '.join(columns)}. Pass the target column explicitly.")
    raise DataError("No target column was given and several columns could be the target: "
                    f"{', '.join(map(str, binary))}. Pass the target column explicitly (e.g. --target {binary[0]}).")


#: Most classes a multi-class target may have (more distinct values look like a measurement).
MAX_CLASSES = 20


def encode_target(y: pd.Series, positive_label=None, *, task: str = "auto") -> tuple[pd.Series, tuple]:
    """Map the target to class indices (or numbers); return it and the class labels in index order.

    A two-valued target becomes 0/1 with labels ``(negative, positive)``. With ``task`` ``"multiclass"``
    (or ``"auto"`` and 3 to :data:`MAX_CLASSES` whole-number or text values) each value becomes its
    index among the sorted labels ``(label_0, ..., label_K-1)`` (scikit-learn's ``classes_`` order). A
    regression target (``task`` ``"regression"``, or ``"auto"`` and numbers with fractions or more than
    :data:`MAX_CLASSES` values) stays numeric, with no class labels: ``(y as float, ())``.
    """
    name = y.name
    missing = int(y.isna().sum())
    if missing:
        lines = ", ".join(str(int(i) + 2) for i in y.index[y.isna()][:5])  # line 1 of the file is the header
        raise DataError(f"Target column '{name}' has {plural(missing, 'missing value')} (e.g. on {noun(min(missing, 5), 'line')} {lines} of the file). "
                        "Drop or fill those rows before evaluating.")
    values = list(pd.unique(y))
    if len(values) == 1:
        raise DataError(f"Target column '{name}' has only one class ({show(values[0])}). A binary classifier needs two classes; "
                        "check that you picked the right column and that the file is not a filtered subset.")
    numeric = pd.api.types.is_numeric_dtype(y) and not pd.api.types.is_bool_dtype(y)
    if task == "regression" or (task == "auto" and numeric and (_is_measurement(y) or len(values) > MAX_CLASSES)):
        if not numeric:
            raise DataError(f"Target column '{name}' holds text ({show_all(values[:5])} …) but data.task is regression. "
                            "A regression target must be numbers; set data.task to auto or multiclass.")
        return y.astype(float), ()
    if _is_measurement(y):
        raise DataError(f"Target column '{name}' has {len(values)} different values ({show_all(values[:5])} …) with "
                        f"fractions: it looks like a measurement, but data.task is {task}. Set data.task to regression "
                        "(or auto) for a model that predicts this number.")
    if len(values) > MAX_CLASSES:
        raise DataError(f"Target column '{name}' has {len(values)} different values ({show_all(values[:5])} …): "
                        f"HEXEval evaluates classifiers with at most {MAX_CLASSES} classes and regressors of a numeric "
                        "target (data.task: regression). Choose the column the model predicts.")
    if len(values) > 2 and task == "binary":
        raise DataError(f"Target column '{name}' has {len(values)} classes ({show_all(values)}) but data.task is binary. "
                        "Set data.task to multiclass (or auto), or choose a target with two values.")
    if len(values) > 2 or task == "multiclass":
        return _encode_classes(y, values)
    positive = _pick_positive(y, values, positive_label)
    negative = next(v for v in values if v != positive)
    return (y == positive).astype(int), (plain(negative), plain(positive))


def _pick_positive(y: pd.Series, values: list, positive_label):
    if positive_label is not None:
        for v in values:
            if v == positive_label or str(v) == str(positive_label):
                return v
        raise DataError(f"Positive label {show(positive_label)} (data.positive_label) is not a value of target column "
                        f"'{y.name}' (its values are {show(values[0])} and {show(values[1])}). Use one of "
                        "those.")
    for v in values:
        if str(v).strip().lower() in POSITIVE_WORDS or v is True:
            return v
    counts = y.value_counts()
    return counts.index[-1] if counts.iloc[0] != counts.iloc[-1] else sorted(values, key=str)[-1]


def _is_measurement(y: pd.Series) -> bool:
    """Numbers with a fractional part (2.5, 0.31): a measurement, not a class code (1.0, 2.0 are codes)."""
    if not pd.api.types.is_float_dtype(y):
        return False
    values = y.to_numpy(dtype=float)
    return bool((values != values.round()).any())


def _encode_classes(y: pd.Series, values: list) -> tuple[pd.Series, tuple]:
    """Class indices in sorted-label order (as scikit-learn's ``classes_``) and the labels."""
    try:
        labels = sorted(values)
    except TypeError:  # mixed kinds of values (numbers and text) are ordered as text
        labels = sorted(values, key=str)
    index = {v: k for k, v in enumerate(labels)}
    return y.map(index).astype(int), tuple(plain(v) for v in labels)
