"""Comments for simulated ratings, written from the drivers of the scores.

The comment names the strongest and the weakest of the four base dimensions (interpretability,
completeness, actionability, trust), says *why* with the explanation's concrete content (its
features, conditions, changes, precision…), and closes with the decision-support verdict.
"""

from __future__ import annotations

from .base import RatingTask
from .persona_weights import PersonaWeights
from .properties import ExplanationProperties

_BASE = ("interpretability", "completeness", "actionability", "trust")


def write_comment(task: RatingTask, props: ExplanationProperties, scores: dict[str, int]) -> str:
    """A 2-3 sentence first-person comment for ``scores`` of ``task``."""
    best = max(_BASE, key=lambda d: (scores[d], -_BASE.index(d)))
    worst = min(_BASE, key=lambda d: (scores[d], _BASE.index(d)))
    sentences = []
    if scores[best] >= 3:
        sentences.append(_POSITIVE[best](task, props))
    if scores[worst] <= 3 and worst != best:
        sentences.append(_NEGATIVE[worst](task, props))
    elif scores[worst] > 3:
        sentences.append("Nothing in it gets in my way.")
    if not sentences:
        sentences.append(_NEGATIVE[worst](task, props))
    domain = task.domain
    verdict = {1: "hardly helps me", 2: "helps me little", 3: "helps me somewhat", 4: "helps me",
               5: "helps me a lot"}[scores["decision_support"]]
    sentences.append(f"In deciding whether to {domain.decision_verb}, it {verdict}.")
    return " ".join(sentences)


def _list(items, n: int = 3) -> str:
    items = list(items)
    shown = ", ".join(items[:n])
    return shown + (", …" if len(items) > n else "") if items else "nothing specific"


def _pos_interpretability(task, p: ExplanationProperties) -> str:
    plain = " in plain words" if not p.jargon else ""
    return f"I can take in its {p.n_items} point(s) ({_list(p.items)}) quickly{plain}."


def _pos_completeness(task, p: ExplanationProperties) -> str:
    if p.family == "attribution":
        return f"The factors shown ({_list(p.items)}) carry about {p.mass_covered:.0%} of what drove the prediction."
    if p.family == "rule":
        return f"The rule ({_list(p.items, 4)}) holds for {p.precision:.0%} of similar cases."
    return f"{p.cf_valid} of the {p.cf_total} alternatives it shows really change the outcome."


def _pos_actionability(task, p: ExplanationProperties) -> str:
    if p.family == "counterfactual" and p.actions:
        return f"It tells me concretely what would change the outcome: {p.actions[0]}."
    if p.family == "rule":
        return f"Its conditions ({_list(p.items, 2)}) show which side of the line this case is on."
    return f"It points at {_list(p.items, 1)} as the main lever."


def _pos_trust(task, p: ExplanationProperties) -> str:
    if p.family == "rule":
        return f"The rule holds in {p.precision:.0%} of matching cases, which I find credible."
    if p.family == "attribution":
        return (f"The factors shown carry {p.mass_covered:.0%} of the model's reasoning and point the same way as "
                "the prediction.")
    return f"The suggested changes really flip the prediction ({p.cf_valid} of {p.cf_total})."


def _neg_interpretability(task, p: ExplanationProperties) -> str:
    w = PersonaWeights.of(task.persona)
    if p.n_items > w.capacity:
        pressure = " with the time I have" if w.time >= 0.75 else ""
        return f"{p.n_items} separate points ({_list(p.items)}) are more than I can absorb{pressure}."
    if p.jargon:
        return f"Terms like {_list(repr(j) for j in p.jargon)} mean little to me."
    if p.numbers:
        return f"It gives me {p.numbers} numbers to make sense of."
    return f"It takes effort to read ({p.words} words)."


def _neg_completeness(task, p: ExplanationProperties) -> str:
    noun = task.domain.decision_noun
    if p.family == "attribution":
        return f"The factors shown cover only {(p.mass_covered or 0):.0%} of what drove the prediction."
    if p.family == "rule":
        rest = len(task.case.features) - len(p.features)
        return (f"A rule on {p.n_items} condition(s) ({_list(p.items, 2)}) leaves the other {rest} characteristics "
                f"of this {noun} unexplained.")
    return "It shows what would change the outcome but not why the model decided as it did."


def _neg_actionability(task, p: ExplanationProperties) -> str:
    if p.family == "attribution":
        return f"It tells me what mattered ({_list(p.items, 2)}) but not what could be done about it."
    if p.family == "rule":
        return "It describes the case but suggests no concrete change."
    if not p.cf_valid:
        return f"None of its {p.cf_total} suggested changes actually flips the prediction."
    return f"Its alternatives ask for {p.n_items} changes in all ({_list(p.items, 2)}), which is hard to act on."


def _neg_trust(task, p: ExplanationProperties) -> str:
    wary = " and I am wary of automated judgements" if task.persona.level("ai_comfort") <= 0.25 else ""
    if p.family == "rule":
        return (f"The rule holds in only {p.precision:.0%} of matching cases and covers {p.coverage:.0%} of "
                f"{task.domain.decision_noun}s{wary}.")
    if p.family == "attribution":
        against = ", and on balance they point against the prediction" if not p.consistent else ""
        return f"The factors shown carry only {(p.mass_covered or 0):.0%} of the model's reasoning{against}{wary}."
    return f"Only {p.cf_valid} of {p.cf_total} suggested changes really flip the prediction{wary}."


_POSITIVE = {"interpretability": _pos_interpretability, "completeness": _pos_completeness,
             "actionability": _pos_actionability, "trust": _pos_trust}
_NEGATIVE = {"interpretability": _neg_interpretability, "completeness": _neg_completeness,
             "actionability": _neg_actionability, "trust": _neg_trust}
