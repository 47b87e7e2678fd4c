"""The simulated rater's formulas: six scores from an explanation's properties and a persona's levels.

Each formula is written out in ``docs/simulated_rater.md``. Only properties measured the same way
for every method enter (:mod:`.properties`); there is no term for a method or a family.
"""

from __future__ import annotations

import math

from .persona_weights import PersonaWeights
from .properties import ExplanationProperties

MISFIT_PENALTY = 4.0
"""Trust lost when every checkable reason runs against what such cases show (proportionally for a share)."""


def raw_scores(props: ExplanationProperties, w: PersonaWeights) -> dict[str, float]:
    """The unrounded scores (each in [1, 5]) of the formulas in ``docs/simulated_rater.md``.

    Only what a reader of the explanation is shown enters: the size and wording of the content,
    the share of the case it speaks about, whether it is contrastive (says what would make a
    difference) and, when it proposes changes, how many and whether this person can make them.
    No hidden measurement (fidelity, precision, plausibility scores) and neither the method's name
    nor its family does.
    """
    overload = max(0.0, props.n_items - w.capacity)
    jargon = min(1.0, len(props.jargon) / 3)
    interpretability = (4.5 - 0.4 * overload - 1.2 * (1 - w.tech) * jargon
                        - 0.8 * (1 - w.ai) * min(1.0, props.numbers / 12) - 0.6 * w.time * min(1.0, props.words / 150))
    covered = scope(props, w)
    completeness = 1 + 4 * (0.8 * covered + 0.2 * contrastive(props))
    levers = min(1.0, len(props.features) / 2)
    change = change_value(props)
    act_content, act_generic = max(change, 0.25 * levers), 0.5 * levers + 0.3 * change
    actionability = 1 + 4 * (w.act * act_content + (1 - w.act) * act_generic)
    # a reader trusts what they can follow and check against the case, and what asks nothing impossible
    clear = 1 - (1 - w.tech) * jargon
    # ... and distrusts reasons that run against what such cases show (a value that goes with the other outcome)
    trust = (1 + 4 * (0.35 * clear + 0.25 * covered + 0.2 * w.ai + 0.2 * props.feasible_share
                      - 0.3 * w.risk * (1 - covered)) - MISFIT_PENALTY * props.misfit_share)
    parts = {"interpretability": _clip(interpretability), "completeness": _clip(completeness),
             "actionability": _clip(actionability), "trust": _clip(trust)}
    satisfaction = _weighted(parts, priorities(w))
    decision = _weighted(parts, {"interpretability": w.time, "completeness": 0.5 + w.justify,
                                 "actionability": 0.5 + 2 * w.act, "trust": 0.5 + w.risk})
    return {**parts, "satisfaction": satisfaction, "decision_support": decision}


def priorities(w: PersonaWeights) -> dict[str, float]:
    """How much each base dimension matters to the persona: its weight in satisfaction."""
    return {"interpretability": 1 + w.time + (1 - w.tech), "completeness": 1 + w.justify + w.tech,
            "actionability": 1 + 2 * w.act, "trust": 1 + w.risk}


def contrastive(props: ExplanationProperties) -> float:
    """1 when the content says what would make a difference (a rule's conditions or proposed changes), else 0."""
    return 1.0 if props.changes or props.conditions else 0.0


def scope(props: ExplanationProperties, w: PersonaWeights) -> float:
    """Share of the characteristics the persona wants addressed that the content speaks about, in [0, 1].

    A persona wants ``2 + 4 * justify * (0.5 + 0.5 * tech)`` characteristics addressed (2 to 6),
    never more than the case has.
    """
    wanted = min(2 + 4 * w.justify * (0.5 + 0.5 * w.tech), max(1, props.n_case_features))
    return min(1.0, len(props.features) / wanted)


def change_value(props: ExplanationProperties) -> float:
    """What the proposed changes offer someone who must act, in [0, 1]; 0 when it proposes none.

    The share of the changes this person can make (``feasible_share``: none to an immutable or
    not-actionable feature, none against a one-way feature's direction) times an effort factor that
    falls once an alternative asks for more than 2.5 changes.
    """
    if not props.changes:
        return 0.0
    return props.feasible_share * min(1.0, 2.5 / props.changes_per_alternative)


def round_score(x: float) -> int:
    """Round half up and clip to the integers 1-5."""
    return int(min(5, max(1, math.floor(x + 0.5))))


def _weighted(parts: dict[str, float], weights: dict[str, float]) -> float:
    total = sum(weights.values())
    return sum(parts[k] * weights[k] for k in weights) / total


def _clip(x: float) -> float:
    return min(5.0, max(1.0, x))
