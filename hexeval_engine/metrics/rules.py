"""Quality of rule explanations (Anchor): precision, coverage and length.

Public interface (stable)
-------------------------
``rule_precision(rule) -> float``, ``rule_coverage(rule) -> float``, ``rule_length(rule) -> float``

Ribeiro, Singh & Guestrin (2018), *Anchors: high-precision model-agnostic explanations*, AAAI.
Precision and coverage are the estimates the Anchor search reports: precision is the share of
perturbation samples satisfying the rule on which the model predicts the explained class;
coverage is the share of the data distribution the rule applies to. An empty rule (no
condition) applies to everything: coverage 1, length 0.
"""

from __future__ import annotations

import math


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
