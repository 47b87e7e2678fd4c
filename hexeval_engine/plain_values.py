"""Values as a person writes them in a message: ``1`` not ``np.int64(1)``, ``'yes'`` not ``np.str_('yes')``."""

from __future__ import annotations

import math


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
