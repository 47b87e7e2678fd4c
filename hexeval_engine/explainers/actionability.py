"""Which features the person a prediction is about can change, and in which direction.

The config's top-level ``actionability`` section declares a kind per feature
(``actionable``, ``immutable``, ``increase_only``, ``decrease_only``, ``not_actionable``); features
it does not list get its ``default``. The older ``evaluation.explainers.dice.immutable_features``
is still read (as ``immutable``, with a deprecation warning in the log) unless the section names
the feature itself.

DiCE varies only what may change (:func:`features_to_vary`), one-way features only in their
direction (:func:`one_way_range`), and every counterfactual is checked against the declarations
(:func:`forbidden_changes`): a change that breaks one is counted and flagged.
"""

from __future__ import annotations

import logging

from ..errors import ConfigError

log = logging.getLogger(__name__)

KINDS = ("actionable", "immutable", "increase_only", "decrease_only", "not_actionable")
FIXED = frozenset({"immutable", "not_actionable"})
"""Kinds a counterfactual must never change."""


def feature_actionability(config, feature_names) -> dict[str, str]:
    """``{feature: kind}`` for every feature in ``feature_names``.

    Parameters
    ----------
    config : HexevalConfig
    feature_names : sequence of str

    Raises
    ------
    ConfigError
        When the section names a feature the data does not have.
    """
    names = list(feature_names)
    section = config.actionability
    unknown = [f for f in section.features if f not in names]
    if unknown:
        raise ConfigError(f"actionability.features names {', '.join(unknown)}, which the data does not have "
                          f"(its features: {', '.join(names)}). Remove or rename them.")
    kinds = {f: section.default for f in names}
    legacy = list(config.evaluation.explainers.dice.immutable_features)
    if legacy:
        log.warning("evaluation.explainers.dice.immutable_features is deprecated; declare these features under "
                    "actionability.features as immutable (read as such for now: %s)", ", ".join(legacy))
        for f in legacy:
            if f in kinds and f not in section.features:
                kinds[f] = "immutable"
    kinds.update(section.features)
    return kinds


def declares_limits(config) -> bool:
    """Whether the config says anything the person cannot change (a feature declared other than ``actionable``,
    a default other than ``actionable``, or the older ``immutable_features``).

    Without that, every change counts as one the person can make: "changes the person cannot make: 0" would be
    true by construction (a counterfactual that changes someone's age or sex included), so that measure is not
    recorded and the run says the limits were not declared.
    """
    section = config.actionability
    return (section.default != "actionable" or any(k != "actionable" for k in section.features.values())
            or bool(config.evaluation.explainers.dice.immutable_features))


def features_to_vary(kinds: dict[str, str]) -> list[str]:
    """The features a counterfactual may change, in the given order."""
    return [f for f, k in kinds.items() if k not in FIXED]


def one_way_range(kind: str, value: float, low: float, high: float) -> tuple[float, float] | None:
    """The range a one-way feature may take from ``value`` (``None`` for other kinds)."""
    if kind == "increase_only":
        return value, max(value, high)
    if kind == "decrease_only":
        return min(value, low), value
    return None


def forbidden_changes(changes: dict, kinds: dict[str, str]) -> list[str]:
    """The features whose change in ``changes`` (``{feature: (old, new)}``) breaks their declaration."""
    out = []
    for feature, (old, new) in changes.items():
        kind = kinds.get(feature, "actionable")
        if kind in FIXED or (kind == "increase_only" and _less(new, old)) or (
                kind == "decrease_only" and _less(old, new)):
            out.append(feature)
    return out


def _less(a, b) -> bool:
    try:
        return float(a) < float(b)
    except (TypeError, ValueError):  # text values have no direction: any change breaks a one-way rule
        return True
