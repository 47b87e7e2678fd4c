"""Turn an LLM answer into validated scores, or say precisely why it cannot be used.

Structured output gives clean JSON; servers without it wrap JSON in prose or code fences, so
:func:`parse_rating` also finds the first JSON object inside text. Whatever the route, the six
scores must be integers 1-5 and the comment non-empty: anything else raises
:class:`AnswerError` (the caller records a failed rating; no score is ever defaulted).

Parsing is linear in the answer's length: answers longer than :data:`MAX_ANSWER_CHARS` are
refused unread, at most :data:`MAX_CANDIDATES` embedded objects are tried, JSON nested too deeply
for the decoder is an :class:`AnswerError`, and rejected values are quoted with a bounded
:func:`~hexeval_engine.safe_yaml.short_repr`.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..llm.json_text import MAX_CANDIDATES, find_object  # noqa: F401  (MAX_CANDIDATES re-exported)
from ..plain_values import kind_of
from ..safe_yaml import short_repr
from .base import DIMENSIONS
from .prompt import COMMENT_INSTRUCTION

MAX_ANSWER_CHARS = 20_000
"""Longest answer parsed: a rating is six numbers and two or three sentences (a few hundred characters)."""



class AnswerError(ValueError):
    """The answer holds no usable rating (not JSON, missing fields, scores outside 1-5)."""


class RatingPayload(BaseModel):
    """A validated answer: six integer scores 1-5 and a comment."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    interpretability: int = Field(ge=1, le=5, strict=True)
    completeness: int = Field(ge=1, le=5, strict=True)
    actionability: int = Field(ge=1, le=5, strict=True)
    trust: int = Field(ge=1, le=5, strict=True)
    satisfaction: int = Field(ge=1, le=5, strict=True)
    decision_support: int = Field(ge=1, le=5, strict=True)
    comment: str = Field(min_length=1)

    @property
    def scores(self) -> dict[str, int]:
        return {d: getattr(self, d) for d in DIMENSIONS}


def parse_rating(content: str | None) -> RatingPayload:
    """Parse an answer's text into a :class:`RatingPayload`.

    Accepts a bare JSON object, one inside a fenced code block, or the first JSON object within
    prose. Keys are matched case-insensitively with spaces or hyphens read as underscores, and
    scores nested under one sub-object (``{"scores": {...}, "comment": ...}``) are lifted.
    Integer-valued scores written as strings (``"4"``) or floats (``4.0``) are accepted;
    anything else outside the integers 1-5 is rejected.

    Raises
    ------
    AnswerError
        With a message naming what is wrong and a short excerpt of the answer.
    """
    if content is None or (isinstance(content, str) and not content.strip()):
        raise AnswerError("the answer is empty")
    if not isinstance(content, str):
        raise AnswerError(f"the answer is {kind_of(content)}, not text")
    if len(content) > MAX_ANSWER_CHARS:
        raise AnswerError(f"the answer is {len(content):,} characters long; a rating needs a few hundred "
                          f"(at most {MAX_ANSWER_CHARS:,} are read)")
    try:
        obj = find_object(content)
    except RecursionError as err:
        raise AnswerError("the answer nests JSON too deeply to be a rating") from err
    if obj is None:
        raise AnswerError(f"the answer holds no JSON object: {_excerpt(content)}")
    data = _normalise(obj)
    try:
        payload = RatingPayload.model_validate(data)
    except ValidationError as err:
        problems = "; ".join(_problem(e) for e in err.errors())
        raise AnswerError(f"the answer's rating is invalid: {problems}") from err
    if copies_instruction(payload.comment):
        raise AnswerError("the comment copies the instructions (\u201c" + COMMENT_INSTRUCTION[:40] + "\u2026\u201d) "
                          "instead of judging the explanation, so its scores are not a judgement either; a larger or "
                          "instruction-tuned model usually follows them (check personas.llm_model)")
    return payload


#: Characters in a row a comment may share with the instruction on what to write before it counts as copied.
COPIED_CHARS = 40


def copies_instruction(comment: str) -> bool:
    """Whether ``comment`` holds :data:`COPIED_CHARS` characters in a row of the instruction that says what a
    comment should be (Gemma 3 270M wrote it back into 21 of 24 comments). Quoting the case or the explanation
    is judging it, so only this instruction counts."""
    text, instruction = " ".join(comment.split()).lower(), COMMENT_INSTRUCTION.lower()
    return any(text[k:k + COPIED_CHARS] in instruction for k in range(0, len(text) - COPIED_CHARS + 1))


def _normalise(obj: dict) -> dict:
    data = {_key(k): v for k, v in obj.items()}
    if not any(d in data for d in DIMENSIONS):
        nested = [v for v in data.values() if isinstance(v, dict) and any(_key(k) in DIMENSIONS for k in v)]
        if len(nested) == 1:
            data = {**{_key(k): v for k, v in nested[0].items()}, **{k: v for k, v in data.items()
                                                                     if not isinstance(v, dict)}}
    for d in DIMENSIONS:
        data[d] = _integer(data.get(d)) if d in data else data.get(d)
        if data[d] is None:
            data.pop(d)
    return data


def _integer(value):
    if isinstance(value, bool):
        return value  # rejected by strict validation: True is not a score
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+(\.0+)?\s*", value):
        return int(float(value))
    return value


def _key(key) -> str:
    return re.sub(r"[\s\-]+", "_", str(key).strip().lower())


def _problem(e: dict) -> str:
    field = ".".join(str(p) for p in e["loc"]) or "answer"
    if e["type"] == "missing":
        return f"'{field}' is missing"
    return f"'{field[:60]}' = {short_repr(e.get('input'), 60)} ({e['msg']})"


def _excerpt(text: str, limit: int = 120) -> str:
    text = " ".join(text[:limit * 4].split())
    return repr(text if len(text) <= limit else text[:limit] + "…")
