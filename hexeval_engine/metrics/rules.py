"""Quality of rule explanations (Anchor): precision and coverage from the search and on held-out rows.

Public interface (stable)
-------------------------
``rule_precision(rule) -> float``, ``rule_coverage(rule) -> float``, ``rule_length(rule) -> float``
``rule_mask(conditions, X_raw, *, categorical=()) -> ndarray of bool``  which rows satisfy a rule
``held_out_rule_metrics(rule, explained_class, X_test, predicted, *, exclude=None, categorical=())
-> dict[str, float]``  rule_precision_test, rule_support_test, rule_coverage_test, rule_precision_lift

Ribeiro, Singh & Guestrin (2018), *Anchors: high-precision model-agnostic explanations*, AAAI.
``rule_precision`` and ``rule_coverage`` are the estimates the Anchor search reports: precision is
the share of perturbation samples satisfying the rule on which the model predicts the explained
class; coverage is the share of the data distribution the rule applies to. An empty rule (no
condition) applies to everything: coverage 1, length 0.

The search estimates its precision on samples it drew itself and stops as soon as it is confident
enough that the threshold is met, so it is optimistic. The held-out metrics re-estimate both on the
test rows, the way a rule would be checked before it is trusted (Ribeiro et al. 2018 report
precision on held-out data too): the rule is evaluated on every test row except the explained one,
``rule_precision_test`` is the share of covered rows the model predicts as the explained class, and
``rule_precision_lift`` subtracts the share of *all* those rows predicted as that class (the
precision of the empty rule), so ~0 means the rule adds nothing over the base rate.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def _checked_share(value, what: str) -> float:
    value = float(value)
    if not (math.isnan(value) or 0.0 <= value <= 1.0):
        raise ValueError(f"Rule {what} must be a share in [0, 1]; got {value}.")
    return value


def rule_precision(rule) -> float:
    """Share of cases meeting the rule for which the model predicts the explained class (higher is better)."""
    return _checked_share(rule.precision, "precision")


def rule_coverage(rule) -> float:
    """Share of cases the rule applies to (higher is better)."""
    return _checked_share(rule.coverage, "coverage")


def rule_length(rule) -> float:
    """Number of conditions in the rule (lower is better)."""
    return float(len(rule.conditions))


def _as_number(value) -> float | None:
    if isinstance(value, (bool, np.bool_)) or value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _equals(column: pd.Series, value) -> np.ndarray:
    """Rows whose value equals ``value``; numbers compare as numbers, anything else as text."""
    number = _as_number(value)
    if number is not None and pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        return np.isclose(column.to_numpy(dtype=float, na_value=np.nan), number, rtol=0, atol=1e-9)
    present = column.notna().to_numpy()
    return present & (column.astype(str).to_numpy() == str(value))


def _condition_mask(condition, column: pd.Series, categorical: bool) -> np.ndarray:
    op, value = condition.op, condition.value
    present = column.notna().to_numpy()
    if op == "=":
        return _equals(column, value)
    if op == "!=":
        return present & ~_equals(column, value)
    if op == "in":
        bounds = value if isinstance(value, (tuple, list)) and len(value) == 2 else None
        numeric = bounds is not None and not categorical and all(_as_number(b) is not None for b in bounds)
        if numeric:  # Anchor's numeric ranges: low < x <= high
            x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            with np.errstate(invalid="ignore"):
                return present & (x > float(bounds[0])) & (x <= float(bounds[1]))
        members = list(value) if isinstance(value, (tuple, list, set, frozenset)) else [value]
        hit = np.zeros(len(column), dtype=bool)
        for member in members:
            hit |= _equals(column, member)
        return hit
    if op in ("<", "<=", ">", ">="):
        number = _as_number(value)
        if number is None:
            raise ValueError(f"The rule condition '{condition.text}' compares {condition.feature} with "
                             f"{value!r}, which is not a number; use '=' or 'in' for categories.")
        x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        with np.errstate(invalid="ignore"):
            result = {"<": x < number, "<=": x <= number, ">": x > number, ">=": x >= number}[op]
        return present & result
    raise ValueError(f"The rule condition '{condition.text}' uses the operator '{op}'; known operators are "
                     "=, !=, <, <=, >, >= and in.")


def rule_mask(conditions, X_raw: pd.DataFrame, *, categorical=()) -> np.ndarray:
    """Which rows of ``X_raw`` satisfy every condition (vectorised; a missing value satisfies none).

    Parameters
    ----------
    conditions : list of Condition
        ``feature``, ``op`` (``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` or ``in``) and ``value`` in
        raw values. ``in`` with a pair of numbers on a numeric feature is Anchor's range
        ``low < x <= high``; otherwise ``in`` is membership in the listed values.
    X_raw : pandas.DataFrame
        Rows in raw columns.
    categorical : collection of str
        Categorical features (``in`` on them is always membership).

    Returns
    -------
    numpy.ndarray of bool, shape (len(X_raw),)
        All ``True`` for an empty rule.
    """
    mask = np.ones(len(X_raw), dtype=bool)
    categorical = set(categorical)
    for condition in conditions:
        if condition.feature not in X_raw.columns:
            raise ValueError(f"The rule condition '{condition.text}' names the feature '{condition.feature}', "
                             f"which is not a column of the data ({list(X_raw.columns)}).")
        mask &= _condition_mask(condition, X_raw[condition.feature], condition.feature in categorical)
    return mask


def held_out_rule_metrics(rule, explained_class: int, X_test: pd.DataFrame, predicted, *, exclude=None,
                          categorical=()) -> dict[str, float]:
    """Precision, support, coverage and lift of a rule on held-out rows.

    Parameters
    ----------
    rule : Rule
    explained_class : int
        The class the rule explains (0 or 1).
    X_test : pandas.DataFrame
        Held-out rows in raw columns.
    predicted : array-like of int, shape (len(X_test),)
        The model's predicted class for each row (at its threshold).
    exclude : int, optional
        Position of the explained row in ``X_test``; left out of every count.
    categorical : collection of str
        Categorical features.

    Returns
    -------
    dict
        ``rule_precision_test`` (``NaN`` when no row is covered), ``rule_support_test`` (count),
        ``rule_coverage_test`` and ``rule_precision_lift`` (``NaN`` without precision).
    """
    predicted = np.asarray(predicted, dtype=int).reshape(-1)
    if len(predicted) != len(X_test):
        raise ValueError(f"One prediction per held-out row is needed; got {len(predicted)} for {len(X_test)}.")
    use = np.ones(len(X_test), dtype=bool)
    if exclude is not None:
        use[int(exclude)] = False
    covered = rule_mask(rule.conditions, X_test, categorical=categorical) & use
    hits = predicted == int(explained_class)
    support = int(covered.sum())
    precision = float(hits[covered].mean()) if support else float("nan")
    base_rate = float(hits[use].mean()) if use.any() else float("nan")
    return {"rule_precision_test": precision, "rule_support_test": float(support),
            "rule_coverage_test": support / int(use.sum()) if use.any() else float("nan"),
            "rule_precision_lift": precision - base_rate}
