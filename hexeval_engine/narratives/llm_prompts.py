"""What the LLM narrator and the LLM extractor are asked, the JSON they must answer, and its checks."""

from __future__ import annotations

import math

import json

from ..llm.json_text import excerpt, find_object
from .facts import NarrativeFacts
from .results import Mention
from .wording import AUDIENCE_LABELS, probability_text

NARRATIVE_SCHEMA = {"type": "object", "properties": {"narrative": {"type": "string"}},
                    "required": ["narrative"], "additionalProperties": False}
NARRATE_COMPLETION_TOKENS = 250
EXTRACT_COMPLETION_TOKENS = 220


def narrate_messages(f: NarrativeFacts) -> list[dict]:
    """System and user messages asking for one narrative of ``f`` for its audience."""
    d = f.domain
    reader = (f"The reader is {d.end_user_context or 'the person the decision is about'}. Use plain words, speak "
              "to them as 'you', and leave out attribution numbers." if f.audience == "lay" else
              f"The reader is a professional {d.stakeholder_context}. You may give the attribution numbers."
              .replace("professional  ", "professional ").strip())
    terms = "".join(f"\n- {k.replace('_', ' ')}: {v}" for k, v in d.terms.items())
    system = (
        f"You explain one prediction of an AI system to {AUDIENCE_LABELS[f.audience]} as a short narrative "
        f"(80-160 words).\nDomain: {d.name}. The system predicts {d.prediction_task} to help {d.decision_verb} "
        f"each {d.decision_noun}. A positive prediction means: {d.positive_outcome}. A negative prediction "
        f"means: {d.negative_outcome}." + (f"\nTerms used here:{terms}" if terms else "") + f"\n{reader}\n\n"
        "Tell the story of the attribution table only: name every feature in it, in order of importance "
        "(say which is the most important, the second, ...), say for each whether it pushes towards or away "
        "from the predicted outcome, and state its value exactly as given. Do not mention any feature that is "
        "not in the table and do not add causes of your own.\n"
        'Answer with a JSON object {"narrative": "..."} and nothing else.')
    return [{"role": "system", "content": system}, {"role": "user", "content": _facts_text(f)}]


def _facts_text(f: NarrativeFacts) -> str:
    case = "\n".join(f"- {label}: {value}" for _, label, value in f.case)
    rows = "\n".join(f"{fact.rank + 1}. {fact.label} = {fact.value_text}; attribution {fact.attribution:+.4f} "
                     f"({'towards' if fact.sign > 0 else 'away from'} the predicted outcome)" for fact in f.top)
    chance = f" (probability {probability_text(f.probability)})" if math.isfinite(f.probability) else ""
    return (f"The {f.domain.decision_noun}:\n{case}\n\nPrediction: {f.outcome}{chance}.\n\nThe {len(f.top)} largest {f.source_method} attributions, signed "
            f"towards the predicted outcome, largest absolute value first:\n{rows or '(none: no feature had an effect)'}"
            "\n\nWrite the narrative.")


def check_narrative(content: str) -> str:
    """The narrative text of an answer; ``ValueError`` when there is none."""
    obj = json_object(content)
    text = obj.get("narrative") if isinstance(obj, dict) else None
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"no 'narrative' text in the answer ({_excerpt(content)})")
    return text.strip()


def extraction_schema(features: list[str]) -> dict:
    item = {"type": "object", "additionalProperties": False,
            "required": ["feature", "rank", "sign", "value"],
            "properties": {
                "feature": {"type": "string", "enum": list(features), "description": "the feature's identifier"},
                "rank": {"type": "integer", "description": "0 = presented as most important, 1 = second ...; "
                                                           "-1 when the narrative gives no order"},
                "sign": {"type": "string", "enum": ["towards", "away", "unstated"],
                         "description": "does the narrative say it pushes towards or away from the predicted outcome"},
                "value": {"type": "string", "description": "the feature value as stated; empty when not stated"}}}
    return {"type": "object", "additionalProperties": False, "required": ["features"],
            "properties": {"features": {"type": "array", "items": item}}}


def extract_messages(text: str, f: NarrativeFacts) -> list[dict]:
    """Messages asking which features ``text`` mentions, with rank, direction and stated value."""
    features = "\n".join(f"- {feature}: {label}" for feature, label, _ in f.case)
    system = (
        "You read a short narrative that explains one prediction of an AI system and report, for every feature "
        "it mentions, what it says. Report only what the narrative says, not what you believe is true.\n"
        "- feature: the identifier from the list below\n- rank: the importance the narrative gives it among the "
        "features it mentions (0 = most important; use the order of mention when it gives no explicit order)\n"
        "- sign: 'towards' when it says the feature pushes towards the predicted outcome, 'away' when it pushes "
        "away from it, 'unstated' otherwise\n- value: the feature's value as the narrative states it, or an empty "
        f"string\n\nFeatures (identifier: meaning):\n{features}\n\n"
        'Answer with a JSON object {"features": [{"feature", "rank", "sign", "value"}, ...]} and nothing else.')
    user = f"Predicted outcome: {f.outcome}.\n\nNarrative:\n<<<\n{text.strip()}\n>>>"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_extraction(content: str, f: NarrativeFacts) -> tuple[Mention, ...]:
    """Mentions from an extractor answer; ``ValueError`` names what is unusable."""
    obj = json_object(content)
    items = obj.get("features") if isinstance(obj, dict) else None
    if not isinstance(items, list):
        raise ValueError(f"no 'features' list in the answer ({_excerpt(content)})")
    names = {}
    for feature, label, _ in f.case:
        names[feature.lower()] = feature
        names[label.lower()] = feature
    out, seen = [], set()
    for item in items:
        if not isinstance(item, dict):
            raise ValueError(f"a features entry is not an object: {_excerpt(json.dumps(item))}")
        feature = names.get(str(item.get("feature", "")).strip().lower())
        if feature is None:
            raise ValueError(f"unknown feature {str(item.get('feature'))[:60]!r} (not one of the case's features)")
        if feature in seen:
            continue
        seen.add(feature)
        rank = item.get("rank")
        if isinstance(rank, float) and rank.is_integer():
            rank = int(rank)
        if not isinstance(rank, int) or isinstance(rank, bool) or rank < -1:
            raise ValueError(f"rank of {feature} is {rank!r}; expected an integer, -1 when unstated")
        sign = {"towards": 1, "away": -1, "unstated": None}.get(str(item.get("sign", "")).strip().lower(), "bad")
        if sign == "bad":
            raise ValueError(f"sign of {feature} is {item.get('sign')!r}; expected towards, away or unstated")
        value = str(item.get("value") or "").strip() or None
        out.append(Mention(feature, None if rank == -1 else rank, sign, value))
    return tuple(out)


def json_object(content: str) -> dict:
    """The JSON object in ``content`` (via the one extractor, :func:`~hexeval_engine.llm.json_text.find_object`).

    Raises
    ------
    ValueError
        No JSON object in the answer, or JSON nested too deeply.
    """
    try:
        obj = find_object(content or "")
    except RecursionError as err:
        raise ValueError("the answer nests JSON too deeply") from err
    if obj is None:
        raise ValueError(f"no JSON object in the answer ({_excerpt(content)})")
    return obj


def _excerpt(text: str) -> str:
    return excerpt(text)
