"""Read a saved run's tables and check them against what the run recorded when it was saved.

A table that was cut short (a half-copied folder, a full disk), replaced by something else or
edited by hand must not load silently as a smaller result: :func:`read_table` checks the columns
every reader of that table relies on and the number of rows against the manifest
(``tables``: rows per table, written by :func:`~hexeval_engine.runs.store.save_run`; runs saved before
that field existed are checked against ``counts.ratings`` for the ratings table).

Spreadsheet safety (OWASP "CSV injection"): every CSV HEXEval writes passes through
:func:`neutralise_cells`, which puts a ``'`` before any text cell that a spreadsheet would read as a
formula (one starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return); numbers are
untouched. The prefix is reversible: a text cell that already starts with ``'`` followed (after
more ``'``) by such a character gets one more ``'``, so :func:`restore_cells` — which
:func:`read_table` applies — removes exactly one and gives the engine the original text back.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import RunError
from ..ratings_summary import DIMENSIONS
from ..vocabulary import plural

REQUIRED_COLUMNS = {
    "technical_metrics": ("method",),
    "technical_metrics_long": ("method", "metric", "value", "direction"),
    "instance_metrics": ("method", "instance_id", "metric", "value"),
    "persona_ratings": ("persona_role", "explanation_type", "status", *DIMENSIONS),
}


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_QUOTE = "'"


def neutralise_cells(df: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``df`` whose text cells cannot start a spreadsheet formula.

    Parameters
    ----------
    df : DataFrame
        Any table about to be written as CSV.

    Returns
    -------
    DataFrame
        The same table; each text cell starting with ``=``, ``+``, ``-``, ``@``, tab or carriage
        return (after any leading ``'``) gets one leading ``'``. Numeric columns and non-text
        cells are unchanged. :func:`restore_cells` undoes it exactly.
    """
    out = df.copy()
    for column, dtype in out.dtypes.items():  # types read at once: a column is taken only when it may hold text
        if pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            continue
        values = out[column]
        text_only = isinstance(values.dtype, pd.StringDtype) or (
            values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) == "string")
        if not text_only:
            # not text only (numbers, dates, mixed cells): mapped as always, which also settles their type
            out[column] = values.map(_neutralise, na_action="ignore")
            continue
        # text only: each distinct text is looked at once (a per-case table repeats a few method and metric names)
        quoted = {v: _QUOTE + v for v in values.dropna().unique() if _needs_quote(v)}
        if quoted:
            out[column] = values.map(lambda v: quoted.get(v, v), na_action="ignore")
    return out


def restore_cells(df: pd.DataFrame) -> pd.DataFrame:
    """The inverse of :func:`neutralise_cells` on a table read back from CSV (in place; returned)."""
    for column in df.columns:
        if not pd.api.types.is_numeric_dtype(df[column]) and not pd.api.types.is_bool_dtype(df[column]):
            df[column] = df[column].map(_restore, na_action="ignore")
    return df


def _needs_quote(text: str) -> bool:
    return text.lstrip(_QUOTE).startswith(FORMULA_STARTS)


def _neutralise(value):
    return _QUOTE + value if isinstance(value, str) and _needs_quote(value) else value


def _restore(value):
    if isinstance(value, str) and value.startswith(_QUOTE) and _needs_quote(value):
        return value[1:]
    return value


def table_rows(tables: dict[str, pd.DataFrame | None]) -> dict[str, int]:
    """Rows per saved table, as recorded in the manifest's ``tables`` field."""
    return {key: int(len(frame)) for key, frame in tables.items() if frame is not None}


def read_table(path: Path, key: str, manifest: dict, run_name: str) -> pd.DataFrame | None:
    """The table ``key`` of a run, checked; None when the run has no such file (or it is empty).

    Raises
    ------
    RunError
        The file cannot be read or parsed, lacks a column its readers need, or holds a different
        number of rows than the run recorded.
    """
    try:
        if not path.exists() or (path.is_file() and path.stat().st_size == 0):
            return None
        frame = restore_cells(pd.read_csv(path, keep_default_na=True))
    except (OSError, ValueError, UnicodeDecodeError) as err:  # pandas' ParserError/EmptyDataError are ValueErrors
        raise RunError(f"Table {path.name} of run {run_name} cannot be read ({_reason(err)}). The run is damaged: "
                       "delete it and re-run the evaluation.") from err
    missing = [c for c in REQUIRED_COLUMNS.get(key, ()) if c not in frame.columns]
    if missing:
        columns = f"columns {', '.join(missing)}" if len(missing) > 1 else f"column {missing[0]}"
        raise RunError(f"Table {path.name} of run {run_name} lacks the {columns}: it is not the table HEXEval "
                       "saved. Delete the run and re-run the evaluation.")
    expected = _expected_rows(key, manifest)
    if expected is not None and len(frame) != expected:
        raise RunError(f"Table {path.name} of run {run_name} holds {plural(len(frame), 'row')} but the run saved {expected}: "
                       "the file was cut short or changed. Delete the run and re-run the evaluation.")
    return frame


def _expected_rows(key: str, manifest: dict) -> int | None:
    for amendment in reversed(manifest.get("amendments") or []):  # a table an extension replaced (runs.extend)
        rows = amendment.get("tables") if isinstance(amendment, dict) else None
        if isinstance(rows, dict) and isinstance(rows.get(key), int):
            return rows[key]
    recorded = manifest.get("tables")
    if isinstance(recorded, dict) and isinstance(recorded.get(key), int):
        return recorded[key]
    counts = manifest.get("counts") if isinstance(manifest.get("counts"), dict) else {}
    if key == "persona_ratings" and isinstance(counts.get("ratings"), int) and counts["ratings"] > 0:
        return counts["ratings"]
    return None


def _reason(err: Exception) -> str:
    text = getattr(err, "strerror", None) or (str(err).splitlines() or [type(err).__name__])[0]
    return text[:200]
