"""``readers._changed``: which neighbours' values differ from the case's, checked row by row."""

import math

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.metrics.readers import _changed


def _oracle(values, value) -> list[bool]:
    """Missing equals missing; numbers within 1e-9 (or equal infinities) are the same; text compares as text."""
    def missing(v):
        return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))

    out = []
    for v in values:
        if missing(value):
            out.append(not missing(v))
        elif missing(v):
            out.append(True)
        elif isinstance(value, str) or isinstance(v, str):
            out.append(str(v) != str(value))
        else:
            out.append(not (float(v) == float(value) or abs(float(v) - float(value)) <= 1e-9))
    return out


COLUMNS = {
    "int64": pd.Series([1, 2, 3, 2, -4], dtype="int64"),
    "float64": pd.Series([1.0, np.nan, 2.0 + 1e-12, np.inf, -np.inf, 2.5]),
    "nullable Int64": pd.Series([1, None, 2, 2], dtype="Int64"),
    "text": pd.Series(["a", None, "b", "a"], dtype="str"),
}


CASES = [(name, value) for name in COLUMNS for value in [2, 2.0, np.inf, np.nan, None, "a", 1]
         if name == "text" or not isinstance(value, str)]  # a label is never read against a numeric column


@pytest.mark.parametrize(("name", "value"), CASES)
def test_changed_matches_the_row_by_row_reading(name, value):
    column = COLUMNS[name]
    expected = _oracle(column.astype(object).tolist(), value)
    assert _changed(column, value).tolist() == expected
