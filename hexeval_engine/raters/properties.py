"""Measurable properties of one explanation, as the simulated rater sees them.

Everything is read from the explanation's *structure* (attributions, a rule, counterfactual
changes — whichever it has), its plain-language ``text`` and the per-instance metric values the
technical stage measured for it (``Explanation.extra["metrics"]``). The method's name and family
are never read: the same content gets the same properties under any label.
See ``docs/simulated_rater.md``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..explanation import Explanation
from .base import Case
from .wording import condition_label, feature_label, value_label

JARGON = ("shap", "shapley", "lime", "attribution", "log-odds", "logit", "coefficient", "weight", "baseline",
          "base value", "expected value", "perturbation", "surrogate", "local model", "precision", "coverage",
          "counterfactual", "anchor", "marginal", "intercept", "kernel", "contribution")
"""Terms a non-technical reader does not know (matched as whole words, case-insensitive)."""

FIDELITY_METRIC = "fidelity_combined"
"""Per-instance faithfulness of the explanation's importance vector (same computation for every method)."""
PLAUSIBILITY_METRICS = ("counterfactual_plausible", "counterfactual_in_range")
"""Per-instance plausibility of proposed changes; the first one present wins (in_range is the fallback)."""

_NUMBER = re.compile(r"(?<![A-Za-z_])[-+]?\d+(?:[.,]\d+)*%?")


@dataclass(frozen=True)
class ExplanationProperties:
    """What the simulated rater measures in one explanation.

    Attributes
    ----------
    items : tuple of str
        The concrete points the reader must take in, in readable words and in the order shown:
        the attributed features the text names, the rule's conditions, each proposed change.
    features : tuple of str
        Distinct raw features the content speaks about.
    n_case_features : int
        Features the case has.
    changes : tuple of str
        The proposed changes ("annual income from 70,000 to 478,298"), over all alternatives.
    alternatives : int
        Alternatives (counterfactual rows) that propose at least one change.
    words, numbers : int
        Words and numeric tokens in ``text``.
    jargon : tuple of str
        :data:`JARGON` terms found in ``text``.
    fidelity : float or None
        ``fidelity_combined`` of this explanation on this case; ``None`` when it was not measured
        (old run, no importance vector, or undefined for the case).
    plausibility : float or None
        ``counterfactual_plausible`` (else ``counterfactual_in_range``) of the proposed changes;
        ``None`` when there are no changes or it was not measured.
    plausibility_metric : str or None
        Which of :data:`PLAUSIBILITY_METRICS` gave ``plausibility``.
    """

    items: tuple[str, ...]
    features: tuple[str, ...]
    n_case_features: int
    changes: tuple[str, ...]
    alternatives: int
    words: int
    numbers: int
    jargon: tuple[str, ...]
    fidelity: float | None
    plausibility: float | None
    plausibility_metric: str | None = None

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def breadth(self) -> float:
        """Share of the case's features the content speaks about."""
        return len(self.features) / max(1, self.n_case_features)

    @property
    def changes_per_alternative(self) -> float:
        return len(self.changes) / self.alternatives if self.alternatives else 0.0


def measure(explanation: Explanation, case: Case, *, top_k: int = 5,
            value_labels: dict | None = None) -> ExplanationProperties:
    """Measure ``explanation`` of ``case``.

    Parameters
    ----------
    explanation : Explanation
        Its ``extra["metrics"]`` (``{metric: value}`` for this method and case, from the technical
        stage) supplies fidelity and plausibility; missing or NaN values are unknown.
    case : Case
    top_k : int
        Used only when the text names none of the attributed features: then the ``top_k``
        largest non-zero attributions are taken as shown.
    value_labels : dict, optional
        The domain's ``{feature: {raw value: label}}``, to word values.
    """
    text = explanation.text or ""
    items: list[str] = []
    features: list[str] = []
    # a narrative tells its source's top attributions (it earns no attributions of its own)
    attributions = explanation.attributions or explanation.extra.get("source_attributions")
    if attributions:
        shown = _shown_attributions(attributions, text, case, top_k)
        items += [feature_label(f, case) for f in shown]
        features += shown
    if explanation.rule is not None:
        for c in explanation.rule.conditions:
            items.append(condition_label(c, case, value_labels))
            features.append(c.feature)
    changes, alternatives = [], 0
    for cf in explanation.counterfactuals or []:
        alternatives += bool(cf.changes)
        for feature, (old, new) in cf.changes.items():
            changes.append(f"{feature_label(feature, case)} from {value_label(feature, old, value_labels)} "
                           f"to {value_label(feature, new, value_labels)}")
            features.append(feature)
    items += changes
    metrics = explanation.extra.get("metrics") or {}
    plausibility, source = (None, None)
    if changes:
        plausibility, source = next(((_known(metrics.get(m)), m) for m in PLAUSIBILITY_METRICS
                                     if _known(metrics.get(m)) is not None), (None, None))
    return ExplanationProperties(
        items=tuple(items), features=tuple(dict.fromkeys(features)),
        n_case_features=len(case.features), changes=tuple(changes), alternatives=alternatives,
        words=len(text.split()), numbers=len(_NUMBER.findall(text)), jargon=_jargon(text),
        fidelity=_known(metrics.get(FIDELITY_METRIC)), plausibility=plausibility, plausibility_metric=source)


def _shown_attributions(attributions: dict, text: str, case: Case, top_k: int) -> list[str]:
    ranked = [f for f, v in sorted(attributions.items(), key=lambda kv: -abs(kv[1])) if v != 0]
    lowered = text.lower()
    named = [f for f in ranked if _mentions(lowered, f, case.description_of(f))]
    return named or ranked[:top_k]


def _known(value) -> float | None:
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _mentions(lowered_text: str, feature: str, description: str) -> bool:
    names = {feature.lower(), description.lower(), description.split("(")[0].strip().lower()}
    return any(n and re.search(rf"(?<![a-z0-9_]){re.escape(n)}(?![a-z0-9_])", lowered_text) for n in names)


def _jargon(text: str) -> tuple[str, ...]:
    lowered = text.lower()
    return tuple(t for t in JARGON if re.search(rf"(?<![a-z]){re.escape(t)}s?(?![a-z])", lowered))
