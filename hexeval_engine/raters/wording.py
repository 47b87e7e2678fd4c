"""How the simulated rater words features, values, counts and the domain for a person.

All of the simulated rater's wording of raw content goes through here, so it can be switched
to the project's vocabulary layer in one place. Nothing returned contains a column name with
underscores, a raw code that has a label, or a Python repr.
"""

from __future__ import annotations

import math
import re

from ..config.schema import Domain
from ..vocabulary import Vocabulary, pinned_edge, without_note
from .base import Case


def feature_label(feature: str, case: Case) -> str:
    """The use case's name for ``feature`` without its note (units, codebook), or its column name made readable
    (``loan_grade``: ``loan grade``): a comment names the feature, never the codebook's note."""
    description = case.description_of(feature)
    if description and description != feature:
        return without_note(description)
    return readable_name(feature)


def readable_name(name: str) -> str:
    """``person_emp_length`` -> ``person emp length``; ``maxHR`` stays as it is."""
    return re.sub(r"[_\s]+", " ", str(name)).strip() or "an unnamed feature"


def value_label(feature: str, value, labels: dict | None, *, units: dict | None = None) -> str:
    """A raw value as a person writes it: its label when the domain has one, else a plain number or text.

    ``labels`` is the domain's ``{feature: {raw value: label}}``; ``units`` its ``{feature: unit}``, so a
    number carries its unit (``12000`` of a USD feature -> ``$12,000``) once the feature's name has lost
    its note. Numbers get thousands separators and at most two decimals (``70000.0`` -> ``70,000``).
    """
    vocab = (labels or {}).get(feature) or {}
    for key in _keys(value):
        if key in vocab:
            return str(vocab[key])
    number = _number(value)
    if units and units.get(feature) and number is not None:
        return Vocabulary(units={feature: units[feature]}).number(feature, number)
    return plain_value(value)


def _number(value) -> float | None:
    """``value`` as a finite number, or None for text, booleans and missing values."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value.item() if hasattr(value, "item") else value)
    except (TypeError, ValueError):  # text values have no unit to add
        return None
    return number if math.isfinite(number) else None


def plain_value(value) -> str:
    """``np.float64(478298.3)`` -> ``478,298``; ``True`` -> ``yes``; ``None``/NaN -> ``missing``; text as it is."""
    if value is None:
        return "missing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return "missing"
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:,.2f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)
    return str(value)


def condition_label(condition, case: Case, labels: dict | None, *, units: dict | None = None) -> str:
    """A rule condition in words: ``loan_grade = D`` -> ``loan grade is D``."""
    name = feature_label(condition.feature, case)
    op, value = condition.op, condition.value
    if op == "in" and isinstance(value, (tuple, list)) and len(value) == 2:
        low, high = (value_label(condition.feature, v, labels, units=units) for v in value)
        return f"{name} is above {low} and at most {high}"
    edge = pinned_edge(op, value, *case.range_of(condition.feature))  # no training value beyond it: the value is pinned
    if edge is not None:
        return f"{name} is {value_label(condition.feature, _whole(edge), labels, units=units)}"
    words = {"=": "is", "!=": "is not", "<": "is below", "<=": "is at most", ">": "is above", ">=": "is at least"}
    return f"{name} {words.get(op, 'is')} {value_label(condition.feature, value, labels, units=units)}"


def _whole(number: float):
    """``0.0`` -> ``0`` (so a value label keyed ``"0"`` is found); other numbers as they are."""
    return int(number) if float(number).is_integer() else number


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``count(1, "point")`` -> ``1 point``; ``count(3, "point")`` -> ``3 points``."""
    return f"{n} {singular if n == 1 else (plural or singular + 's')}"


def listing(items, n: int = 3) -> str:
    """The first ``n`` items joined by commas, with "and N more" when there are more."""
    items = [str(i) for i in items]
    if not items:
        return "nothing specific"
    shown = ", ".join(items[:n])
    return shown + (f" and {len(items) - n} more" if len(items) > n else "")


def decision_noun(domain: Domain) -> str:
    """What a single decision is about (``loan application``); ``case`` when the domain leaves it empty."""
    return (domain.decision_noun or "").strip() or "case"


def decision_phrase(domain: Domain) -> str:
    """How the verdict sentence names the decision.

    A verb phrase that states a choice ("approve or reject") reads as "In deciding whether to
    approve or reject"; any other verb (the default "decide on", or an empty one) reads as "For
    my decision on this loan application", so no sentence ends in a dangling preposition.
    """
    verb = (domain.decision_verb or "").strip()
    if " or " in f" {verb} ":
        return f"In deciding whether to {verb}"
    return f"For my decision on this {decision_noun(domain)}"


def _keys(value) -> list[str]:
    keys = [value, str(value)]
    if isinstance(value, float) and not math.isnan(value) and value.is_integer():
        keys.append(str(int(value)))
    return [k for k in keys if isinstance(k, str)]
