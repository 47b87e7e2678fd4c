"""The persona schema: who rates the explanations, and the attributes the simulated rater weighs.

A persona file is a YAML mapping with one key, ``personas``, holding a list of personas::

    personas:
      - name: Dr. Sam Okafor
        role: Lead Cardiologist
        audience: professional
        experience_years: 18
        ...

Free-text fields (``risk_profile``, ``decision_style``, ``mental_model``, ``priorities``,
``heuristics``, ``explanation_preferences``) are shown to an LLM rater as they are. The six
*levels* (``ai_comfort``, ``technical_background``, ``need_to_justify``, ``need_to_act``,
``time_pressure``, ``risk_aversion``) are validated enums that the simulated rater turns into
numbers (see :data:`LEVEL_VALUES` and ``docs/simulated_rater.md``); the LLM rater sees them too.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class Level(str, Enum):
    """A five-step ordinal level, written in YAML as ``very_low`` … ``very_high``."""

    very_low = "very_low"
    low = "low"
    medium = "medium"
    high = "high"
    very_high = "very_high"

    @property
    def value01(self) -> float:
        """The level as a number in [0, 1] (``very_low`` = 0, ``medium`` = 0.5, ``very_high`` = 1)."""
        return LEVEL_VALUES[self.value]


LEVEL_VALUES = {"very_low": 0.0, "low": 0.25, "medium": 0.5, "high": 0.75, "very_high": 1.0}

DIMENSION_NAMES = ("interpretability", "completeness", "actionability", "trust", "satisfaction", "decision_support")
"""The six rated dimensions, in the order of the ratings table."""

DEFAULT_DIMENSION_WEIGHTS = {
    "professional": {"interpretability": 0.2, "completeness": 0.2, "actionability": 0.1, "trust": 0.2,
                     "satisfaction": 0.1, "decision_support": 0.2},
    "end_user": {"interpretability": 0.25, "completeness": 0.05, "actionability": 0.3, "trust": 0.15,
                 "satisfaction": 0.05, "decision_support": 0.2},
}
"""What a stakeholder's score weighs when the persona file gives no ``dimension_weights``.

A professional must understand, check and justify a decision (interpretability, completeness,
trust and decision support count equally, satisfaction and actionability less); the person the
decision is about needs to understand it and to know what they can do (interpretability,
actionability, decision support), and is not the one who audits completeness. See
``docs/simulated_rater.md``.
"""

QUESTION_NAMES = ("why", "what_if", "will_it_hold", "how_to_change")
"""The four questions a stakeholder asks of an explanation (``docs/metrics.md``, "Evidence per question")."""

QUESTION_TEXT = {"why": "why did the model say this", "what_if": "what will the model say for a similar case",
                 "will_it_hold": "when does this answer stay the same", "how_to_change": "what can be done to change it"}
"""Each question as a person asks it."""


class QuestionWeights(BaseModel):
    """How much a stakeholder needs each question answered, and why (the reason is shown on their card).

    The weights are 0 or more, at least one positive; they are normalised to sum to 1. A persona file without
    ``questions`` weighs the four questions equally and the card says the persona declared none.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    why: float = Field(0.0, ge=0)
    what_if: float = Field(0.0, ge=0)
    will_it_hold: float = Field(0.0, ge=0)
    how_to_change: float = Field(0.0, ge=0)
    reason: str = Field(min_length=1, description="why this stakeholder asks these questions, in one sentence")

    @model_validator(mode="after")
    def _some_weight(self):
        if sum(getattr(self, q) for q in QUESTION_NAMES) <= 0:
            raise ValueError("at least one question needs a positive weight (e.g. why: 1)")
        return self

    def normalised(self) -> dict[str, float]:
        total = sum(getattr(self, q) for q in QUESTION_NAMES)
        return {q: float(getattr(self, q)) / total for q in QUESTION_NAMES}


EQUAL_QUESTIONS = {q: 1 / len(QUESTION_NAMES) for q in QUESTION_NAMES}


LEVEL_FIELDS = ("ai_comfort", "technical_background", "need_to_justify", "need_to_act", "time_pressure",
                "risk_aversion")


class Persona(BaseModel):
    """One stakeholder who rates explanations.

    Attributes
    ----------
    name : str
        A (gender-neutral) name, unique within the file.
    role : str
        Job or situation, e.g. "Lead Cardiologist", "Loan Applicant".
    audience : {"professional", "end_user"}
        ``end_user`` personas are the people the decision is about; their prompt uses the domain's
        ``end_user_context`` instead of ``stakeholder_context``.
    experience_years : int
        Years in the role (0 for an end user without professional experience).
    risk_profile, decision_style, mental_model, explanation_preferences : str
        Free text describing how the persona thinks.
    priorities, heuristics : list of str
        What the persona needs from an explanation; rules of thumb they apply.
    ai_comfort, technical_background, need_to_justify, need_to_act, time_pressure, risk_aversion : Level
        Ordinal attributes weighed by the simulated rater.
    dimension_weights : dict, optional
        ``{dimension: weight >= 0}`` over the six rated dimensions (:data:`DIMENSION_NAMES`): how
        much each counts in this stakeholder's score in the recommendation. A dimension left out
        weighs 0; omitted altogether, the audience's default (:data:`DEFAULT_DIMENSION_WEIGHTS`).
    questions : QuestionWeights, optional
        How much this stakeholder needs each of the four questions answered (:data:`QUESTION_NAMES`) and why.
        The measured verdict for the stakeholder weighs each question's skill by it; omitted, the questions
        weigh equally (the card says so).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    role: str = Field(min_length=1)
    audience: Literal["professional", "end_user"] = "professional"
    experience_years: int = Field(ge=0, le=70)
    risk_profile: str = Field(min_length=1)
    decision_style: str = Field(min_length=1)
    mental_model: str = Field(min_length=1)
    priorities: list[str] = Field(min_length=1)
    heuristics: list[str] = Field(min_length=1)
    explanation_preferences: str = Field(min_length=1)
    ai_comfort: Level
    technical_background: Level
    need_to_justify: Level
    need_to_act: Level
    time_pressure: Level
    risk_aversion: Level
    dimension_weights: dict[Literal[DIMENSION_NAMES], float] | None = None
    questions: QuestionWeights | None = None

    @field_validator("dimension_weights")
    @classmethod
    def _usable_weights(cls, value):
        if value is None:
            return value
        negative = {k: v for k, v in value.items() if not v >= 0}
        if negative:
            raise ValueError(f"weights must be 0 or more, got {negative}; write e.g. actionability: 0.3")
        if sum(value.values()) <= 0:
            raise ValueError("at least one dimension weight must be positive (e.g. trust: 1)")
        return value

    @field_validator("priorities", "heuristics")
    @classmethod
    def _no_blank_items(cls, value: list[str]) -> list[str]:
        if any(not str(v).strip() for v in value):
            raise ValueError("items must be non-empty text")
        return value

    @property
    def is_end_user(self) -> bool:
        return self.audience == "end_user"

    def weights(self) -> dict[str, float]:
        """The six dimension weights, summing to 1 (the persona's own, else its audience's default)."""
        given = self.dimension_weights or DEFAULT_DIMENSION_WEIGHTS[self.audience]
        total = sum(given.values())
        return {d: float(given.get(d, 0.0)) / total for d in DIMENSION_NAMES}

    def question_weights(self) -> dict[str, float]:
        """The four question weights, summing to 1 (equal when the persona declares none)."""
        return self.questions.normalised() if self.questions is not None else dict(EQUAL_QUESTIONS)

    def level(self, name: str) -> float:
        """The numeric value in [0, 1] of one of :data:`LEVEL_FIELDS`."""
        if name not in LEVEL_FIELDS:
            raise KeyError(f"{name!r} is not a persona level; levels are {', '.join(LEVEL_FIELDS)}")
        return getattr(self, name).value01


class PersonaFile(BaseModel):
    """The top level of a persona YAML file."""

    model_config = ConfigDict(extra="forbid")

    personas: list[dict] = Field(min_length=1)
