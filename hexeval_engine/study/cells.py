"""Spreadsheet-safe CSV text for the study's tables.

Contract shared with the platform engineer: ``hexeval_engine.runs.tables.neutralise_cells(df)`` puts a
leading ``'`` before every text cell starting with ``= + - @``, tab or carriage return; numbers are
untouched. Until that function is on ``main`` this module implements the same contract; once it is,
:func:`neutralise_cells` here is replaced by an import of it.
"""

from __future__ import annotations

import pandas as pd

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cells(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells cannot start a spreadsheet formula."""
    out = df.copy()
    for column in out.columns:
        if not pd.api.types.is_numeric_dtype(out[column]) and not pd.api.types.is_bool_dtype(out[column]):
            out[column] = out[column].map(_neutralise, na_action="ignore")
    return out


def _neutralise(value):
    return "'" + value if isinstance(value, str) and value.lstrip("'").startswith(FORMULA_STARTS) else value


def csv_text(df: pd.DataFrame) -> str:
    """``df`` as CSV text, neutralised."""
    return neutralise_cells(df).to_csv(index=False)
