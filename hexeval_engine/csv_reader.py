"""Read a user's CSV into a DataFrame, turning every way it can be unreadable into a DataError."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from .errors import DataError


def read_csv(source) -> pd.DataFrame:
    """Read ``source`` (a path, bytes or a file-like object) as a CSV with a header row."""
    raw, name = _read_bytes(source)
    if not raw.strip():
        raise DataError(f"The file {name} is empty. Upload a CSV file with a header row and at least a few data rows.")
    if b"\x00" in raw[:4096]:
        raise DataError(f"The file {name} is not a CSV (it contains binary data). Export the table as comma-separated text and try again.")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise DataError(
            f"The file {name} cannot be decoded as UTF-8 text (byte {err.start}: {raw[err.start:err.start + 1]!r}). "
            "Save the CSV with UTF-8 encoding and try again."
        ) from err
    header = next(csv.reader(io.StringIO(text)), [])
    _check_header(header, name)
    try:
        frame = pd.read_csv(io.StringIO(text), skipinitialspace=True)
    except pd.errors.ParserError as err:
        raise DataError(f"The file {name} has rows with a different number of fields than its header ({err}). "
                        "Fix the ragged rows (often an unquoted comma inside a value) and try again.") from err
    except pd.errors.EmptyDataError as err:
        raise DataError(f"The file {name} has no columns. Upload a CSV file with a header row.") from err
    if frame.empty:
        raise DataError(f"The file {name} has a header ({', '.join(map(str, header))}) but no data rows. Add data rows and try again.")
    return frame


def _read_bytes(source) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), "uploaded file"
    if hasattr(source, "read"):
        data = source.read()
        return (data.encode() if isinstance(data, str) else data), getattr(source, "name", "uploaded file")
    path = Path(source)
    if not path.exists():
        raise DataError(f"The data file {path} does not exist. Check the path (relative paths start at {Path.cwd()}).")
    if path.is_dir():
        raise DataError(f"The data path {path} is a folder, not a CSV file. Point to the .csv file inside it.")
    return path.read_bytes(), f"'{path.name}'"


def _check_header(header: list[str], name: str) -> None:
    if len(header) < 2:
        raise DataError(f"The file {name} does not look like a CSV: its first line has {len(header)} column(s) "
                        f"({header[:1]!r}). A CSV needs a comma-separated header with the features and the target.")
    stripped = [h.strip() for h in header]
    if any(not h for h in stripped):
        raise DataError(f"The file {name} has an empty column name at position {stripped.index('') + 1}. Give every column a name.")
    seen, dupes = set(), []
    for h in stripped:
        if h in seen and h not in dupes:
            dupes.append(h)
        seen.add(h)
    if dupes:
        raise DataError(f"The file {name} has duplicate column names: {', '.join(dupes)}. Rename them so every column is unique.")
