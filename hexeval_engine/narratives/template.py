"""The built-in template narrator: deterministic, varied sentences from the attribution table, no LLM.

It is what runs without an API key. Every sentence names one feature with an explicit rank
("the second most important factor"), the case's value and a direction phrase from
:mod:`~hexeval_engine.narratives.cues`, so the narrative says exactly what the table says — the
offline extractor reads it back and the faithfulness metrics score it 1.0 when it is given the
true table. Phrasing varies with the case (a stable hash picks among equivalent forms), not at
random. Narratives it writes are labelled "template narrator (built-in, no LLM)".
"""

from __future__ import annotations

import math

import hashlib
import time

from ..vocabulary import signed, value_clause
from .cues import ORDINAL_WORDS
from .facts import FeatureFact, NarrativeFacts
from .wording import probability_text
from .results import Narration

TEMPLATE_MODEL = "template-v1"

_LAY_TOWARDS = ("makes this prediction more likely", "supports this prediction", "points towards this prediction")
_LAY_AWAY = ("makes this prediction less likely", "counts against this prediction",
             "points away from this prediction")
_PRO_TOWARDS = ("supports the prediction", "pushes towards the prediction")
_PRO_AWAY = ("counts against the prediction", "pushes away from the prediction")


class TemplateNarrator:
    """Deterministic narratives of :class:`NarrativeFacts` (no network, no randomness)."""

    kind = "simulated"
    name = "template"
    model = TEMPLATE_MODEL
    label = "template narrator (built-in, no LLM)"

    def narrate_many(self, facts: list[NarrativeFacts], on_progress=None) -> list[Narration]:
        out = []
        for i, f in enumerate(facts, start=1):
            out.append(self.narrate(f))
            if on_progress:
                on_progress(i, len(facts), f"Narrative of case {f.instance_id} written ({f.audience})")
        return out

    def narrate(self, facts: NarrativeFacts) -> Narration:
        start = time.perf_counter()
        text = lay_text(facts) if facts.audience == "lay" else professional_text(facts)
        return Narration(text=text, latency_s=time.perf_counter() - start)

    def close(self) -> None:
        """Nothing to release."""


def lay_text(facts: NarrativeFacts) -> str:
    """A narrative for the person the decision is about: plain words, no attribution numbers."""
    chance = _with_probability(facts)
    parts = [_pick(facts, -1, (f"The model's assessment is: {facts.outcome}{chance}.",
                               f"The model's prediction for your case: {facts.outcome}{chance}."))]
    if not facts.top:
        parts.append("No single detail of your case stood out in this assessment.")
        return " ".join(parts)
    previous_sign = None
    for fact in facts.top:
        also = " also" if fact.sign == previous_sign else ""
        cue = _pick(facts, fact.rank, _LAY_TOWARDS if fact.sign > 0 else _LAY_AWAY)
        subject = f"your {fact.label}"
        forms = (f"{_opening(fact)} {subject}, which is {fact.value_text}, and it{also} {cue}.",
                 f"{_opening(fact)} {subject} ({fact.value_text}): it{also} {cue}.",
                 f"{_opening(fact)} {subject}, {value_clause(fact.value_text)}; this{also} {cue}.")
        parts.append(_pick(facts, fact.rank, forms))
        previous_sign = fact.sign
    parts.append("Other details of your case played a smaller part.")
    return " ".join(parts)


def professional_text(facts: NarrativeFacts) -> str:
    """A narrative for professionals: the same story with the attribution values."""
    chance = f" (probability {probability_text(facts.probability)})" if math.isfinite(facts.probability) else ""
    parts = [f"Prediction: {facts.outcome}{chance}. "
             f"The {len(facts.top)} largest {facts.source_method} attributions, signed towards the predicted "
             "outcome, tell this story."]
    if not facts.top:
        parts[0] = (f"Prediction: {facts.outcome} (probability {probability_text(facts.probability)}). "
                    f"No feature has a non-zero {facts.source_method} attribution.")
        return parts[0]
    largest = max(abs(f.attribution) for f in facts.top) or 1.0
    for fact in facts.top:
        cue = _pick(facts, fact.rank, _PRO_TOWARDS if fact.sign > 0 else _PRO_AWAY)
        # in words ("here male: it counts against the prediction only slightly"), never "sex = male (attribution
        # -0.037)"; the second form gives the weight for the reader who wants the number
        forms = (f"{_opening(fact)} {fact.label}, here {fact.value_text}: it {cue} {_strength(fact, largest)}.",
                 f"{_opening(fact)} {fact.label}, here {fact.value_text}; with a weight of "
                 f"{signed(fact.attribution, 3)} it {cue}.")
        parts.append(_pick(facts, fact.rank, forms))
    parts.append("The remaining features contribute less.")
    return " ".join(parts)


def _strength(fact: FeatureFact, largest: float) -> str:
    """How much a factor weighs beside the largest of the story, in words."""
    share = abs(fact.attribution) / largest
    return "strongly" if share >= 0.6 else "moderately" if share >= 0.3 else "only slightly"


def _opening(fact: FeatureFact) -> str:
    if fact.rank == 0:
        return "The most important factor is"
    return f"The {ORDINAL_WORDS.get(fact.rank, f'number {fact.rank + 1}')} most important factor is"


def _pick(facts: NarrativeFacts, slot: int, options: tuple[str, ...]) -> str:
    digest = hashlib.sha256(f"{facts.instance_id}|{facts.audience}|{slot}".encode()).digest()
    return options[digest[0] % len(options)]


def _with_probability(facts: NarrativeFacts) -> str:
    """``", with a probability of 80%"``; ``""`` for a regressor's prediction (it has none)."""
    return f", with a probability of {probability_text(facts.probability)}" if math.isfinite(facts.probability) else ""
