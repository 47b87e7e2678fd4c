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


def encode_target(y: pd.Series, positive_label=None) -> tuple[pd.Series, tuple]:
    """Map a two-valued target to 0/1; return it and (negative label, positive label)."""
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
    if (len(values) > 2 and pd.api.types.is_float_dtype(y)) or len(values) > 20:
        raise DataError(f"Target column '{name}' has {len(values)} different values ({show_all(values)}): it looks like a "
                        "measurement, not an outcome. HEXEval evaluates binary classifiers; choose the column with the "
                        "two outcomes the model predicts.")
    if len(values) > 2:
        raise DataError(f"Target column '{name}' has {len(values)} classes ({show_all(values)}). Multi-class targets are not supported yet; "
                        "HEXEval evaluates binary classifiers. Choose a binary target or merge classes into two.")
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
