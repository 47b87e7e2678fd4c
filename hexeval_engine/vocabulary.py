"""The one vocabulary layer for people: how features, values, numbers and rules are worded.

Everything HEXEval shows to a person (explanation texts, persona prompts, simulated comments, the
pages and the report) words features and values through :class:`Vocabulary`, so nothing shown
contains a raw column name, a raw category code or a Python repr.

Sources, in order of preference:

* ``domain.feature_descriptions`` — what a column means; a trailing parenthesis
  (``"annual income (USD)"``) is a note for tables and is dropped inside sentences;
* ``domain.units`` — the unit a number is written with (``USD``, ``years``, ``%``, ``share``);
* ``domain.value_labels`` — the label of a category code (``RENT`` -> ``renting``);
* otherwise the column name with underscores as spaces, and category codes in sentence case
  (``MORTGAGE`` -> ``Mortgage``).

Module-level helpers (:func:`plural`, :func:`format_number`, :func:`humanise`,
:func:`dimension_label`) need no use case.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

import pandas as pd

#: Full names of the six rating dimensions, in display order.
DIMENSION_LABELS = {"interpretability": "Interpretability", "completeness": "Completeness",
                    "actionability": "Actionability", "trust": "Trust", "satisfaction": "Satisfaction",
                    "decision_support": "Decision support"}
#: Short forms, only where space truly requires (always shown with the full name as a tooltip).
DIMENSION_SHORT = {"interpretability": "Interpret.", "completeness": "Complete", "actionability": "Action",
                   "trust": "Trust", "satisfaction": "Satisf.", "decision_support": "Decision"}

_CURRENCIES = {"USD": "$", "EUR": "€", "GBP": "£"}
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
_IRREGULAR = {"case": "cases", "analysis": "analyses", "person": "people", "child": "children", "is": "are",
              "was": "were", "has": "have"}


def plural(n: int | float, singular: str, plural_form: str | None = None) -> str:
    """``n`` with the right form of the noun: ``plural(1, "point") == "1 point"``, ``"2 points"``.

    Parameters
    ----------
    n : int or float
        The count (shown with thousands separators).
    singular : str
        The noun for one.
    plural_form : str, optional
        The noun for several; default: a small irregular table, else ``-es``/``-ies``/``-s``.
    """
    return f"{format_number(n)} {noun(n, singular, plural_form)}"


def noun(n: int | float, singular: str, plural_form: str | None = None) -> str:
    """The noun alone in the form ``n`` needs (``noun(3, "condition") == "conditions"``)."""
    if n == 1:
        return singular
    if plural_form:
        return plural_form
    if singular in _IRREGULAR:
        return _IRREGULAR[singular]
    if re.search(r"(s|x|z|ch|sh)$", singular):
        return singular + "es"
    if re.search(r"[^aeiou]y$", singular):
        return singular[:-1] + "ies"
    return singular + "s"


def format_number(value, *, digits: int = 3) -> str:
    """A number at a sensible precision: integers with thousands separators, others to ``digits``
    significant digits without scientific notation (``79536 -> "79,536"``, ``12.6943 -> "12.7"``).

    Missing values (None, NaN) read ``"missing"``.
    """
    if value is None or isinstance(value, bool):
        return "missing" if value is None else ("yes" if value else "no")
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(x):
        return "missing"
    if math.isinf(x):
        return "infinite" if x > 0 else "minus infinite"
    if x.is_integer():
        return f"{int(x):,}"
    magnitude = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - magnitude)
    text = f"{x:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def ordinal(n: int) -> str:
    """``1 -> "1st"``, ``2 -> "2nd"``, ``11 -> "11th"``, ``23 -> "23rd"``."""
    n = int(n)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def signed(value, digits: int = 2) -> str:
    """A difference or skill with its sign, ``+0.12`` / ``-0.12``; a value that rounds to zero reads ``0.00``
    (never ``-0.00`` or ``+0.00``)."""
    x = float(value)
    text = f"{x:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def humanise(key: str) -> str:
    """A machine key as words: ``"duplicates_crossing_split" -> "Duplicates crossing split"``."""
    words = re.sub(r"[_\s]+", " ", str(key)).strip()
    return words[:1].upper() + words[1:] if words else words


def dimension_label(dimension: str) -> str:
    """Full name of a rating dimension (``"decision_support" -> "Decision support"``)."""
    return DIMENSION_LABELS.get(dimension, humanise(dimension))


def category_words(value) -> str:
    """A category code with no label, readable: ``"MORTGAGE" -> "Mortgage"``, ``"home_owner" -> "Home owner"``.

    Mixed-case values (``"Yes"``, ``"ST-T wave"``) are kept as they are.
    """
    text = re.sub(r"_+", " ", str(value)).strip()
    if text.isupper() and len(text) > 1:
        text = text.lower()
        return text[:1].upper() + text[1:]
    return text


@dataclass(frozen=True)
class Vocabulary:
    """How one use case's features and values are worded for people.

    Parameters
    ----------
    descriptions : dict
        feature -> meaning (``domain.feature_descriptions``); a trailing ``(note)`` is kept in
        :meth:`description` and dropped in :meth:`name`.
    value_labels : dict
        feature -> raw value (as text) -> label (``domain.value_labels``).
    units : dict
        feature -> unit (``domain.units``): a currency code (``USD``) is written before the number,
        ``%`` right after it, ``share`` turns a fraction into a percentage, anything else follows
        the number as a word, pluralised (``1 year``, ``12 years``).
    categorical : frozenset
        Features whose values are categories (never formatted as numbers).
    integer_features : frozenset
        Numeric features stored as integers (``2.0`` reads ``2``).
    ranges : dict
        feature -> (lowest, highest) value seen in the data; lets a rule bound at the edge read as
        the value itself (``ca <= 0`` -> ``is 0``).
    """

    descriptions: dict = field(default_factory=dict)
    value_labels: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    categorical: frozenset = frozenset()
    integer_features: frozenset = frozenset()
    ranges: dict = field(default_factory=dict)

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_domain(cls, domain, *, coder=None, X=None) -> "Vocabulary":
        """The vocabulary of a config's ``domain`` (a :class:`~hexeval_engine.config.schema.Domain`
        or its dict, as saved in a run manifest), refined by the data's coder and frame when given.
        """
        get = domain.get if isinstance(domain, dict) else (lambda k, d=None: getattr(domain, k, d))
        labels = {f: {str(k): str(v) for k, v in (m or {}).items()} for f, m in (get("value_labels") or {}).items()}
        categorical, integers, ranges = frozenset(), frozenset(), {}
        if coder is not None:
            categorical = frozenset(coder.categories)
            integers = frozenset(f for f, d in coder.numeric_dtypes.items() if "int" in str(d))
        vocabulary = cls(dict(get("feature_descriptions") or {}), labels, dict(get("units") or {}), categorical,
                         integers, ranges)
        return vocabulary.with_ranges(X) if X is not None else vocabulary

    def with_ranges(self, X, features=None) -> "Vocabulary":
        """This vocabulary knowing the lowest and highest value of ``features`` (default: all numeric
        columns) in the frame ``X``."""
        ranges = dict(self.ranges)
        for f in (X.columns if features is None else features):
            if f in self.categorical or f not in X.columns:
                continue
            col = pd.to_numeric(X[f], errors="coerce").dropna()
            if len(col):
                ranges[f] = (float(col.min()), float(col.max()))
        return replace(self, ranges=ranges)

    @classmethod
    def from_data(cls, data, config) -> "Vocabulary":
        """The vocabulary of a loaded :class:`~hexeval_engine.data.dataset.Dataset` under ``config``."""
        return cls.from_domain(config.domain, coder=data.coder, X=data.X_train)

    # ---- features -----------------------------------------------------------------------------
    def description(self, feature: str) -> str:
        """The feature's full meaning with its note (``"annual income (USD)"``), for tables and tooltips."""
        return self.descriptions.get(feature) or humanise(feature).lower()

    def name(self, feature: str) -> str:
        """The feature's name inside a sentence: its description without the trailing note."""
        text = self.descriptions.get(feature)
        if not text:
            return humanise(feature).lower()
        return without_note(text)

    def title(self, feature: str) -> str:
        """The feature's name as a label or column header (sentence case)."""
        name = self.name(feature)
        return name[:1].upper() + name[1:]

    # ---- values -------------------------------------------------------------------------------
    def label(self, feature: str, value) -> str:
        """A raw value as a person reads it, with its unit (``79536 -> "$79,536"``, ``"RENT" -> "renting"``)."""
        labels = self.value_labels.get(feature, {})
        for key in _label_keys(value):
            if key in labels:
                return labels[key]
        if _is_missing(value):
            return "missing"
        if feature in self.categorical or isinstance(value, str):
            return category_words(value)
        return self.number(feature, value)

    def number(self, feature: str, value) -> str:
        """A numeric value of ``feature`` with its unit."""
        unit = self.units.get(feature, "")
        if feature in self.integer_features and isinstance(value, float) and value.is_integer():
            value = int(value)
        if unit == "share":
            return f"{format_number(float(value) * 100, digits=2)}%"
        text = format_number(value)
        if not unit:
            return text
        if unit in _CURRENCIES:
            return f"{_CURRENCIES[unit]}{text}" if not text.startswith("-") else f"-{_CURRENCIES[unit]}{text[1:]}"
        if unit == "%":
            return f"{text}%"
        return f"{text} {noun(float(value), unit[:-1] if unit.endswith('s') else unit, unit)}"

    # ---- sentences ----------------------------------------------------------------------------
    def is_(self, feature: str, value) -> str:
        """``"<name> is <value>"``."""
        return f"{self.name(feature)} is {self.label(feature, value)}"

    def condition(self, feature: str, op: str, value) -> str:
        """A rule condition as words: ``("ca", "<=", 0)`` -> ``"number of major vessels … is 0"``,
        ``("loan_percent_income", "<=", 0.23)`` -> ``"loan amount as a share of income is 23% or less"``.
        """
        name = self.name(feature)
        if op in ("=", "=="):
            return f"{name} is {self.label(feature, value)}"
        if op == "!=":
            return f"{name} is not {self.label(feature, value)}"
        if op == "in":
            low, high = value
            return f"{name} is between {self.label(feature, low)} and {self.label(feature, high)}"
        edge = pinned_edge(op, value, *self.ranges.get(feature, (None, None)))
        if edge is not None:
            return f"{name} is {self.label(feature, edge)}"
        shown = self.label(feature, value)
        if op in ("<=", "<"):
            return f"{name} is {shown} or less" if op == "<=" else f"{name} is below {shown}"
        if op in (">", ">="):
            return f"{name} is above {shown}" if op == ">" else f"{name} is {shown} or more"
        return f"{name} {op} {shown}"

    def change(self, feature: str, old, new) -> str:
        """One counterfactual change: ``"annual income from $79,536 to $7,057"``."""
        return f"{self.name(feature)} from {self.label(feature, old)} to {self.label(feature, new)}"


def without_note(description: str) -> str:
    """A feature's description without its trailing note: ``"number of major vessels (0-3; 4 = not recorded)"``
    -> ``"number of major vessels"``; the note (units, codebook) belongs in tables and tooltips, not in sentences."""
    short = _TRAILING_NOTE.sub("", str(description)).strip()
    return short or str(description)


def value_clause(value_text: str) -> str:
    """How a sentence attaches a case's value to its feature: ``at 54 years`` for a measurement,
    ``recorded as male`` for a category ("your sex, at male" reads wrong)."""
    text = str(value_text).strip()
    return f"at {text}" if re.match(r"[-+]?\d", text) else f"recorded as {text}"


def join_words(items, conjunction: str = "and") -> str:
    """``["a", "b", "c"] -> "a, b and c"``.

    Items that hold the conjunction themselves (role names such as "Compliance and Risk Officer") are joined with
    a comma before it too, so the reader sees where one ends: "Compliance and Risk Officer, and ML Engineer and
    Model Validator", never "Compliance and Risk Officer and ML Engineer and Model Validator".
    """
    items = [str(i) for i in items if str(i)]
    if len(items) <= 1:
        return "".join(items)
    inner = any(f" {conjunction} " in item for item in items)
    return f"{', '.join(items[:-1])}{',' if inner else ''} {conjunction} {items[-1]}"


def the_role(title) -> str:
    """A stakeholder's role as a reader names it in a sentence: ``"Patient" -> "the Patient"``.

    Names that are not a role ("All stakeholders (equal weight …)", "everyone", a name that already has an
    article) are kept as they are.
    """
    text = str(title or "").strip()
    if not text:
        return "a stakeholder"
    if re.match(r"(?i)(all|every|everyone|the|a|an)\b", text):
        return text
    return f"the {text}"


def join_roles(titles) -> str:
    """Roles joined for a sentence: ``"the Patient, the Clinician and the Auditor"``; the article before each one
    shows where a role with "and" in it ends ("the Compliance and Risk Officer and the Patient")."""
    names = [the_role(t) for t in titles if str(t or "").strip()]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _label_keys(value) -> list[str]:
    keys = [str(value)]
    if isinstance(value, float) and not math.isnan(value) and value.is_integer():
        keys.append(str(int(value)))
    return keys


def _is_missing(value) -> bool:
    if value is None:
        return True
    try:
        return isinstance(value, float) and math.isnan(value)
    except TypeError:
        return False


def pinned_edge(op: str, value, low, high) -> float | None:
    """The data's lowest value when a rule's ``<= value`` admits no lower one (``ca <= 0`` with 0 the lowest), its
    highest when ``>= value`` admits no higher one; ``None`` otherwise (the comparison then says something)."""
    number = _num(value)
    if number is None:
        return None
    if op == "<=" and low is not None and number <= low:
        return low
    if op == ">=" and high is not None and number >= high:
        return high
    return None


def _num(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
