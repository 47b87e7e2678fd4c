"""Spreadsheet-safe CSV text for the study's tables (through the runs stage's one implementation)."""

from __future__ import annotations

import pandas as pd

from ..runs.tables import neutralise_cells


def csv_text(df: pd.DataFrame) -> str:
    """``df`` as CSV text whose text cells cannot start a spreadsheet formula."""
    return neutralise_cells(df).to_csv(index=False)
