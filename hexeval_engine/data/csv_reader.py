"""Read a user's CSV into a DataFrame, turning every way it can be unreadable into a DataError.

Files come from spreadsheets as often as from code, so the reader accepts what they write: UTF-8
with or without a byte-order mark, Windows-1252 / Latin-1 (Excel's "CSV" on many systems), and
semicolon-, tab- or pipe-separated values (with decimal commas where the separator is a semicolon).
Whatever it had to assume is returned as a plain-language note, so the data-quality report can say it.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import DataError
from ..vocabulary import noun, plural

#: Separators tried, in order of preference when two split the header equally well.
DELIMITERS = (",", ";", "\t", "|")
DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
_DECIMAL_COMMA = re.compile(r"^\s*[+-]?\d+(,\d+)?\s*$")


@dataclass
class CsvContent:
    """A read CSV: the table, how its bytes were decoded and split, and notes for the quality report."""

    frame: pd.DataFrame
    encoding: str = "UTF-8"
    delimiter: str = ","
    notes: list[str] = field(default_factory=list)


def read_csv(source) -> pd.DataFrame:
    """Read ``source`` (a path, bytes or a file-like object) as a CSV with a header row."""
    return read_csv_content(source).frame


def read_csv_content(source) -> CsvContent:
    """Like :func:`read_csv`, also saying which text encoding and separator were used."""
    raw, name = _read_bytes(source)
    if not raw.strip():
        raise DataError(f"The file {name} is empty. Upload a CSV file with a header row and at least a few data rows.")
    if raw.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):  # zip (xlsx, ods) and OLE (xls) containers
        raise DataError(f"The file {name} is a spreadsheet workbook (such as Excel's .xlsx), not a CSV. Save or export "
                        "the sheet as CSV (comma- or semicolon-separated text) and upload that.")
    if b"\x00" in raw[:4096]:
        raise DataError(f"The file {name} is not a CSV (it contains binary data). Export the table as comma-separated text and try again.")
    text, encoding, notes = _decode(raw, name)
    delimiter = _sniff_delimiter(text)
    if delimiter != ",":
        notes.append(f"The file separates its columns with {DELIMITER_NAMES[delimiter]}s, not commas; it was read "
                     "that way.")
    header = next(csv.reader(io.StringIO(text), delimiter=delimiter), [])
    _check_header(header, name)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, skipinitialspace=True)
    except pd.errors.ParserError as err:
        raise DataError(f"The file {name} has rows with a different number of fields than its header "
                        f"({_parser_detail(err)}; columns separated by {DELIMITER_NAMES[delimiter]}s). Fix the ragged "
                        "rows (often an unquoted separator inside a value) and try again.") from err
    except pd.errors.EmptyDataError as err:
        raise DataError(f"The file {name} has no columns. Upload a CSV file with a header row.") from err
    if frame.empty:
        raise DataError(f"The file {name} has a header ({', '.join(map(str, header))}) but no data rows. Add data rows and try again.")
    if delimiter == ";":
        converted = _decimal_commas(frame)
        if converted:
            notes.append(f"Numbers with a decimal comma were read as numbers in {noun(len(converted), 'column')} {', '.join(converted)}.")
    return CsvContent(frame, encoding, delimiter, notes)


def _decode(raw: bytes, name: str) -> tuple[str, str, list[str]]:
    """Text, encoding name and notes: UTF-8 (BOM or not) first, then Windows-1252, then Latin-1."""
    try:
        encoding = "UTF-8 with byte-order mark" if raw.startswith(b"\xef\xbb\xbf") else "UTF-8"
        return raw.decode("utf-8-sig"), encoding, []
    except UnicodeDecodeError as err:
        position = err.start
    try:
        text, label = raw.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError:  # cp1252 leaves five bytes undefined; Latin-1 decodes every byte
        text, label = raw.decode("latin-1"), "Latin-1 (ISO-8859-1)"
    return text, label, [f"The file {name} is not UTF-8 text (first non-UTF-8 byte at position {position}), so it was "
                         f"read as {label}, the encoding spreadsheet programs often use. Check that accented labels "
                         "look right; saving the file as UTF-8 removes this note."]


def _sniff_delimiter(text: str) -> str:
    """The separator that splits the header into the most columns, consistently over the next lines."""
    lines = [line for line in text.splitlines()[:20] if line.strip()]
    best, best_fields = ",", 1
    for delimiter in DELIMITERS:
        rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter))
        if not rows:
            continue
        fields = len(rows[0])
        consistent = sum(len(r) == fields for r in rows[1:]) >= max(1, (len(rows) - 1) // 2)
        if fields > best_fields and (consistent or len(rows) == 1):
            best, best_fields = delimiter, fields
    return best


def _decimal_commas(frame: pd.DataFrame) -> list[str]:
    """Turn text columns whose every value is a number written with a decimal comma into numbers."""
    converted = []
    for col in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[col]):
            continue
        values = frame[col].dropna().astype(str)
        if len(values) and values.str.match(_DECIMAL_COMMA).all() and values.str.contains(",").any():
            frame[col] = pd.to_numeric(frame[col].astype(str).str.replace(",", ".", regex=False).str.strip(),
                                       errors="coerce").where(frame[col].notna())
            converted.append(str(col))
    return converted


def _parser_detail(err: Exception) -> str:
    """pandas' "Error tokenizing data. C error: Expected 3 fields in line 3, saw 5" without the C-engine jargon."""
    match = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(err))
    if match:
        expected, line, saw = match.groups()
        return f"line {line} has {saw} fields, the header {expected}"
    return str(err).replace("Error tokenizing data. C error: ", "")


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
        first = header[0] if header else ""
        raise DataError(f"The file {name} does not look like a CSV: its first line has {plural(len(header), 'column')} "
                        f"(\"{first[:60]}\"). A CSV needs a header with the features and the target, separated by "
                        "commas (semicolons, tabs or pipes also work).")
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
