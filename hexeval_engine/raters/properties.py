"""Measurable properties of one explanation, as the simulated rater sees them.

Everything is read from what a reader of the explanation is shown: its *structure* (attributions,
a rule, counterfactual changes, similar cases and how they differ — whichever it has), its plain-language ``text`` and, for proposed
changes, whether the person the prediction is about can make them (the run's ``actionability``
declarations, carried in ``Explanation.extra["actionability"]``). No hidden measurement is read
(fidelity, rule precision, plausibility scores in ``Explanation.extra["metrics"]`` are never
touched): a reader cannot see them. The method's name and family are never read either: the same
content gets the same properties under any label.
See ``docs/simulated_rater.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..explanation import Explanation, shown_similar_cases
from .base import Case
from .wording import condition_label, feature_label, value_label

JARGON = ("shap", "shapley", "lime", "attribution", "log-odds", "logit", "coefficient", "weight", "baseline",
          "base value", "expected value", "perturbation", "surrogate", "local model", "precision", "coverage",
          "counterfactual", "anchor", "marginal", "intercept", "kernel", "contribution")
"""Terms a non-technical reader does not know (matched as whole words, case-insensitive)."""

FORBIDDEN_CHANGES = {"immutable": lambda old, new: True, "not_actionable": lambda old, new: True,
                     "increase_only": lambda old, new: _lt(new, old), "decrease_only": lambda old, new: _lt(old, new)}
"""Per actionability kind: whether a change from ``old`` to ``new`` is one the person cannot make."""

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
    conditions : int
        Conditions of the rule it states (0 without a rule).
    infeasible : tuple of str
        The proposed changes (from ``changes``) the person cannot make: to an ``immutable`` or
        ``not_actionable`` feature, or against the direction of an ``increase_only`` /
        ``decrease_only`` one.
    checkable : int
        Reasons shown (attributed features, rule conditions) whose value leans one way in past cases
        (``Case.leanings``), so a reader who has seen such cases can check the direction given.
    contradictions : tuple of str
        Those reasons given for the opposite of the way such cases lean, in words (“resting blood
        pressure is 152 mm Hg” as a reason for the prediction, heart disease unlikely").
    reasons : int
        Reasons shown (attributed features and rule conditions), checkable or not.
    form : str
        What the reader is shown: ``"reasons"`` (attributions), ``"rule"``, ``"changes"``, ``"story"``
        (a narrative retelling) or ``"none"``.
    """

    items: tuple[str, ...]
    features: tuple[str, ...]
    n_case_features: int
    changes: tuple[str, ...]
    alternatives: int
    words: int
    numbers: int
    jargon: tuple[str, ...]
    conditions: int = 0
    infeasible: tuple[str, ...] = ()
    checkable: int = 0
    contradictions: tuple[str, ...] = ()
    form: str = "none"
    reasons: int = 0

    @property
    def misfit_share(self) -> float:
        """Share of the reasons a reader can check against such cases that contradict them (0 when none can be)."""
        return len(self.contradictions) / self.checkable if self.checkable else 0.0

    @property
    def feasible(self) -> tuple[str, ...]:
        """The proposed changes the person can make, in the order shown."""
        return tuple(c for c in self.changes if c not in set(self.infeasible))

    @property
    def feasible_share(self) -> float:
        """Share of the proposed changes the person can make (1 when nothing is proposed)."""
        return len(self.feasible) / len(self.changes) if self.changes else 1.0

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
            value_labels: dict | None = None, units: dict | None = None) -> ExplanationProperties:
    """Measure ``explanation`` of ``case``.

    Parameters
    ----------
    explanation : Explanation
        Read for what it shows; ``extra["actionability"]`` (``{feature: kind}``) says which proposed
        changes the person can make (a feature not in it counts as actionable).
    case : Case
    top_k : int
        Similar cases shown (as their text shows them). Otherwise used only when the text names none of the
        attributed features: then the ``top_k``
        largest non-zero attributions are taken as shown.
    value_labels : dict, optional
        The domain's ``{feature: {raw value: label}}``, to word values.
    units : dict, optional
        The domain's ``{feature: unit}``, so numbers carry their unit (``$12,000``, ``2.5 mm``).
    """
    text = explanation.text or ""
    items: list[str] = []
    features: list[str] = []
    reasons: list[tuple[str, str, int]] = []  # (feature, words, +1 for / -1 against the predicted outcome)
    # a narrative tells its source's top attributions (it earns no attributions of its own)
    attributions = explanation.attributions or explanation.extra.get("source_attributions")
    if attributions:
        shown = _shown_attributions(attributions, text, case, top_k)
        items += [_with_value(f, case) for f in shown]
        features += shown
        reasons += [(f, _with_value(f, case), 1 if attributions[f] > 0 else -1) for f in shown]
    if explanation.rule is not None:
        for c in explanation.rule.conditions:
            items.append(condition_label(c, case, value_labels, units=units))
            features.append(c.feature)
            reasons.append((c.feature, _with_value(c.feature, case), 1))
    changes, infeasible, alternatives = [], [], 0
    kinds = explanation.extra.get("actionability") or {}
    for cf in explanation.counterfactuals or []:
        alternatives += bool(cf.changes)
        for feature, (old, new) in cf.changes.items():
            change = (f"{feature_label(feature, case)} from {value_label(feature, old, value_labels, units=units)} "
                      f"to {value_label(feature, new, value_labels, units=units)}")
            changes.append(change)
            if FORBIDDEN_CHANGES.get(kinds.get(feature, "actionable"), lambda o, n: False)(old, new):
                infeasible.append(change)
            features.append(feature)
    # similar cases: each shown case with the other outcome is an alternative, its differences (as the text lists
    # them) the changes it points to; a difference the person cannot make is infeasible like a counterfactual's
    for example, shown in shown_similar_cases(explanation, top_k):
        alternatives += bool(shown)
        for feature, (old, new) in shown.items():
            change = (f"{feature_label(feature, case)} {value_label(feature, new, value_labels, units=units)} "
                      f"instead of {value_label(feature, old, value_labels, units=units)}")
            changes.append(change)
            if FORBIDDEN_CHANGES.get(kinds.get(feature, "actionable"), lambda o, n: False)(old, new):
                infeasible.append(change)
            features.append(feature)
    items += changes
    checkable, contradictions = _check_reasons(reasons, case)
    return ExplanationProperties(
        items=tuple(items), features=tuple(dict.fromkeys(features)),
        n_case_features=len(case.features), changes=tuple(changes), alternatives=alternatives,
        words=len(text.split()), numbers=len(_NUMBER.findall(text)), jargon=_jargon(text),
        conditions=len(explanation.rule.conditions) if explanation.rule is not None else 0,
        infeasible=tuple(infeasible), checkable=checkable, contradictions=contradictions,
        form=_form(explanation), reasons=len(reasons))


def _with_value(feature: str, case: Case) -> str:
    """``resting blood pressure is 152 mm Hg``: the feature as the case shows it (its name alone when unknown)."""
    for f in case.features:
        if f.name == feature and str(f.value).strip():
            return f"{feature_label(feature, case)} is {f.value}"
    return feature_label(feature, case)


def _check_reasons(reasons, case: Case) -> tuple[int, tuple[str, ...]]:
    """How many reasons can be checked against the way such cases lean, and those that contradict it.

    A reason *for* the predicted outcome contradicts such cases when this value leans away from that
    outcome; a reason *against* it when the value leans towards it.
    """
    towards_positive = 1 if case.predicted_class == 1 else -1
    if case.classes or case.value is not None:  # several classes or a value: no one direction to check
        return 0, ()
    checkable, contradictions = 0, []
    for feature, words, direction in reasons:
        expected = case.lean_of(feature) * towards_positive  # +1: this value goes with the predicted outcome
        if expected == 0:
            continue
        checkable += 1
        if direction != expected:
            outcome = f"the prediction, {case.outcome}" if case.outcome else "the prediction"  # its own brackets stay unnested
            contradictions.append(f"“{words}” as a reason {'for' if direction > 0 else 'against'} {outcome}")
    return checkable, tuple(dict.fromkeys(contradictions))


def _form(explanation: Explanation) -> str:
    if explanation.extra.get("source_method"):
        return "story"
    if explanation.attributions:
        return "reasons"
    if explanation.rule is not None:
        return "rule"
    if explanation.counterfactuals:
        return "changes"
    return "none"


def _shown_attributions(attributions: dict, text: str, case: Case, top_k: int) -> list[str]:
    ranked = [f for f, v in sorted(attributions.items(), key=lambda kv: -abs(kv[1])) if v != 0]
    named = _named(text.lower(), {f: case.description_of(f) for f in ranked})
    return [f for f in ranked if f in named] or ranked[:top_k]


def _named(lowered_text: str, descriptions: dict) -> set:
    """The features whose name or description the text writes. Longer names are looked for first and the words
    they match are set aside, so a name inside another feature's words is not counted ("loan amount" inside "loan
    amount as a share of income", "ash" inside "alcalinity of the ash")."""
    names = sorted(((n, f) for f, d in descriptions.items() for n in _names(f, d)), key=lambda nf: -len(nf[0]))
    found, text = set(), lowered_text
    for name, feature in names:
        if name not in text:  # the pattern matches the name itself: absent, it cannot match (no pattern compiled)
            continue
        pattern = re.compile(rf"(?<![a-z0-9_]){re.escape(name)}(?![a-z0-9_])")
        if pattern.search(text):
            found.add(feature)
            text = pattern.sub(lambda m: "\x00" * len(m.group()), text)
    return found


def _names(feature: str, description: str) -> set:
    return {n for n in (feature.lower(), description.lower(), description.split("(")[0].strip().lower()) if n}


def _lt(a, b) -> bool:
    """``a < b`` for numbers; a change of a non-numeric value in a one-way feature counts as against it."""
    try:
        return float(a) < float(b)
    except (TypeError, ValueError):  # text values have no direction: any change is against a one-way rule
        return True


def _jargon(text: str) -> tuple[str, ...]:
    lowered = text.lower()
    return tuple(t for t in JARGON
                 if t in lowered and re.search(rf"(?<![a-z]){re.escape(t)}s?(?![a-z])", lowered))
