"""Units a column's name declares (``area_m2``, ``price_k``, ``age_years``), for data without a codebook.

An uploaded CSV rarely comes with feature descriptions, but its column names often end in a unit. Read
as words, ``price_k`` became "price k 212" and ``area_m2`` "area m2 98.4"; split here, the column reads
"area" with values "98.4 m²", and the predicted quantity "price 212 (thousands)". Only a trailing unit
that is unambiguous is read; every other name is left as it is.
"""

from __future__ import annotations

import re

#: Trailing name token -> (unit written after a number, unit written after a predicted value).
UNIT_SUFFIXES = {
    "k": ("thousand", "thousands"), "thousands": ("thousand", "thousands"), "m2": ("m²", "m²"),
    "sqm": ("m²", "m²"), "sqft": ("sq ft", "sq ft"), "km": ("km", "km"), "m": ("m", "m"), "cm": ("cm", "cm"),
    "mm": ("mm", "mm"), "kg": ("kg", "kg"), "g": ("g", "g"), "years": ("years", "years"), "yrs": ("years", "years"),
    "months": ("months", "months"), "days": ("days", "days"), "hours": ("hours", "hours"),
    "minutes": ("minutes", "minutes"), "mins": ("minutes", "minutes"), "usd": ("USD", "USD"), "eur": ("EUR", "EUR"),
    "gbp": ("GBP", "GBP"), "pct": ("%", "%"), "percent": ("%", "%"),
}


def split_unit(column: str) -> tuple[str, str, str] | None:
    """``"area_m2"`` -> ``("area", "m²", "m²")``: the name in words, the unit after a number and after a
    predicted value; None when the name ends in no known unit (or is nothing but one)."""
    words = [w for w in re.split(r"[_\s]+", str(column).strip()) if w]
    if len(words) < 2 or words[-1].lower() not in UNIT_SUFFIXES:
        return None
    after_number, after_value = UNIT_SUFFIXES[words[-1].lower()]
    return " ".join(words[:-1]), after_number, after_value


def wording_from_names(columns, target: str, numeric, descriptions: dict, units: dict) -> tuple[dict, dict]:
    """Descriptions and units for the columns the domain leaves undescribed whose names end in a unit.

    Parameters
    ----------
    columns : iterable of str
        The feature columns.
    target : str
        The target column (a regressor's predicted quantity is named and united the same way).
    numeric : collection of str
        Columns holding numbers (only their values get a unit).
    descriptions, units : dict
        The domain's own wording, never overridden.

    Returns
    -------
    tuple of dict
        ``(feature_descriptions, units)`` to add.
    """
    new_descriptions, new_units = {}, {}
    for column in [*columns, target]:
        split = split_unit(column)
        if split is None or column in descriptions or column in units:
            continue
        name, after_number, after_value = split
        new_descriptions[column] = name
        if column in numeric:
            new_units[column] = after_value if column == target else after_number
    return new_descriptions, new_units
