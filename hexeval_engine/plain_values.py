"""Values as a person writes them in a message: ``1`` not ``np.int64(1)``, ``'yes'`` not ``np.str_('yes')``."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import numpy as np


def plain(value):
    """The Python value behind a numpy scalar (``np.int64(1)`` -> ``1``); other values unchanged."""
    return value.item() if hasattr(value, "item") and not isinstance(value, (list, dict, tuple)) else value


def show(value) -> str:
    """A value for a sentence: numbers bare (``1``, ``2.5``), text quoted (``'yes'``), missing as ``missing``."""
    value = plain(value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "missing"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    if isinstance(value, int):
        return str(value)
    return f"'{value}'"


def show_all(values, limit: int = 10) -> str:
    """``'a', 'b' and 'c'``; more than ``limit`` values end in ``… (n in all)``."""
    values = list(values)
    shown = [show(v) for v in values[:limit]]
    if len(values) > limit:
        return ", ".join(shown) + f", … ({len(values)} in all)"
    if not shown:
        return "none"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def show_counts(counts, noun: str = "row") -> str:
    """``0: 5 rows, 1: 1 row`` from a mapping or a pandas ``value_counts``."""
    items = counts.items() if hasattr(counts, "items") else counts
    return ", ".join(f"{plain(k)}: {int(v)} {noun}{'' if int(v) == 1 else 's'}" for k, v in items)


def show_number(value) -> str:
    """``2,000,000`` not ``2e+06``; ``0.25`` stays ``0.25``."""
    value = float(plain(value))
    if math.isnan(value):
        return "missing"
    if value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return f"{value:,.6g}" if abs(value) >= 1e-4 else f"{value:.3g}"


_KINDS = ((bool, "a yes/no value"), (int, "a number"), (float, "a number"), (str, "a piece of text"),
          (dict, "a mapping of names to values"), (list, "a list"), (tuple, "a list"), (bytes, "binary data"))

# What an error without a message means, in words (its type name is never shown to a person).
_ERROR_WORDS = {
    "MemoryError": "the computer ran out of memory",
    "RecursionError": "the computation went too deep and was stopped",
    "ZeroDivisionError": "a division by zero",
    "TimeoutError": "it took too long and was stopped",
    "KeyError": "a needed entry is missing",
    "IndexError": "a needed position is missing",
    "PermissionError": "permission denied",
    "FileNotFoundError": "the file does not exist",
    "IsADirectoryError": "it is a folder, not a file",
    "UnicodeDecodeError": "the file is not UTF-8 text",
    "EOFError": "the data ends too early",
    "NotImplementedError": "this case is not supported by the library",
}


def kind_of(value) -> str:
    """``a list``, ``a piece of text``, ``nothing``: what kind of value a person gave, in words."""
    value = plain(value)
    if value is None:
        return "nothing"
    for cls, words in _KINDS:
        if isinstance(value, cls):
            return words
    return "a value of an unexpected kind"


def describe_error(err: BaseException, *, limit: int = 300) -> str:
    """What went wrong, in the error's own words (first line, at most ``limit`` characters), never its type name.

    An error without a message is described by what its kind means (``the computer ran out of memory``);
    a ``KeyError`` names the missing entry. The type name belongs in the log, not in a message.
    """
    text = getattr(err, "strerror", None) or ""
    if not text:
        args = getattr(err, "args", ())
        text = str(args[0]) if isinstance(err, KeyError) and len(args) == 1 else str(err)
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if isinstance(err, KeyError) and first:
        return f"a needed entry is missing: {first.strip(chr(39))}"[:limit]
    if first:
        return first if len(first) <= limit else first[:limit - 1] + "…"
    for cls in type(err).__mro__:
        if cls.__name__ in _ERROR_WORDS:
            return _ERROR_WORDS[cls.__name__]
    return "an unexpected error that gave no details (the log has the rest)"


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def show_time(iso: str, *, short: bool = False, with_year: bool = True, seconds: bool = False) -> str:
    """A saved moment as a person reads it: ``2026-11-25T08:45:12+00:00`` -> ``25 November 2026, 08:45 UTC``.

    ``short`` gives ``25 Nov 2026, 08:45`` (for pickers, where the label must fit a phone), without ``with_year``
    ``25 Nov, 08:45``; ``seconds`` adds them (``08:45:12``: two runs of the same minute). A time without a
    zone is taken as UTC (HEXEval writes UTC); a text that is no time reads ``an unknown time``.
    """
    try:
        moment = datetime.fromisoformat(str(iso).strip())
    except ValueError:
        return "an unknown time"
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    month = _MONTHS[moment.month - 1]
    clock = f"{moment:%H:%M:%S}" if seconds else f"{moment:%H:%M}"
    if short:
        year = f" {moment.year}" if with_year else ""
        return f"{moment.day} {month[:3]}{year}, {clock}"
    return f"{moment.day} {month} {moment.year}, {clock} UTC"


def finite_number(value) -> float | None:
    """``value`` as a float when it is a number (not NaN, not text, not a bool); else ``None``."""
    if value is None or isinstance(value, (bool, np.bool_, str)):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if np.isnan(number) else number
