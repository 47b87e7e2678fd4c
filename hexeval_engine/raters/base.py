"""The one rater interface: (persona, case, explanation) -> :class:`Rating`.

A rater never invents a rating: when it cannot produce six valid scores it returns a failed
:class:`Rating` (``status == "failed"``, ``scores is None``) with the reason in ``error``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence, runtime_checkable

from ..config.schema import Domain
from ..explanation import Explanation
from ..personas import Persona
from ..ratings_summary import DIMENSIONS


@dataclass(frozen=True)
class CaseFeature:
    """One raw feature value as a persona sees it."""

    name: str  # raw CSV column
    description: str  # e.g. "resting blood pressure (mm Hg)" (falls back to the column name)
    value: str  # display form of the raw value, e.g. "typical angina", "145"


@dataclass(frozen=True)
class Case:
    """The instance being explained, in raw terms, with the model's prediction.

    ``probability_positive`` is the model's probability of the positive class; ``outcome`` is the
    domain's wording of the predicted class (``positive_outcome`` or ``negative_outcome``). For a
    multi-class model ``classes`` names every class, ``outcome`` is the predicted class's name and
    ``probability_positive`` its probability.
    """

    instance_id: int
    features: tuple[CaseFeature, ...]
    predicted_class: int
    outcome: str
    probability_positive: float
    threshold: float = 0.5
    classes: tuple = ()  # multi-class: the names of all classes (the prediction is the most probable one)
    value: float | None = None  # regression: the predicted value (``outcome`` words it)
    #: ``(feature, lowest, highest)`` of each numeric feature in the training data, so a rule bound at the
    #: edge reads as the value itself (``ca <= 0`` -> "is 0", not "is at most 0").
    ranges: tuple = ()
    #: ``(feature, lean)``: which way past cases with this case's value lean (+1 towards the positive class,
    #: -1 away, 0 neither), what someone who has seen many such cases knows (:mod:`.case_leanings`).
    leanings: tuple = ()

    def lean_of(self, feature: str) -> int:
        """+1 when past cases like this one on ``feature`` lean to the positive class, -1 away, 0 neither or unknown."""
        for name, lean in self.leanings:
            if name == feature:
                return int(lean)
        return 0

    def range_of(self, feature: str) -> tuple:
        """``(lowest, highest)`` of ``feature`` in the training data, ``(None, None)`` when unknown."""
        for name, low, high in self.ranges:
            if name == feature:
                return low, high
        return None, None

    def description_of(self, feature: str) -> str:
        for f in self.features:
            if f.name == feature:
                return f.description
        return feature


@dataclass(frozen=True)
class RatingTask:
    """One rating to produce: a persona rates one explanation of one case (run ``run``).

    ``label`` is what the persona is told the explanation is called ("Explanation A" by default,
    the method name when ``show_method_names`` is on).
    """

    persona: Persona
    case: Case
    explanation: Explanation
    domain: Domain
    label: str
    run: int = 0


MAX_ERROR_CHARS = 500
"""Longest failure reason a rating records."""


@dataclass
class Rating:
    """The outcome of one :class:`RatingTask`.

    ``scores`` maps each of :data:`DIMENSIONS` to an integer 1-5, or is ``None`` for a failed
    rating. ``calls`` counts HTTP requests sent for it (retries included), ``retries`` the
    retried ones; a cached or simulated rating sends none. Token counts are those of the
    response (for a cached rating: of the original call).
    """

    status: str  # "ok" | "failed"
    scores: dict[str, int] | None = None
    comment: str = ""
    error: str = ""
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    calls: int = 0
    retries: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @classmethod
    def failed(cls, error: str, **kwargs) -> "Rating":
        """A failed rating; the reason is kept short (:data:`MAX_ERROR_CHARS`) whatever a server sent."""
        error = str(error)
        if len(error) > MAX_ERROR_CHARS:
            error = error[:MAX_ERROR_CHARS - 1] + "…"
        return cls(status="failed", error=error, **kwargs)


@dataclass(frozen=True)
class UsageEstimate:
    """What a batch of rating tasks will cost before it runs."""

    ratings: int
    calls: int  # requests expected (ratings not already cached)
    cached: int  # ratings the cache already answers
    prompt_tokens: int
    completion_tokens: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict:
        return {"ratings": self.ratings, "calls": self.calls, "cached": self.cached,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "tokens": self.tokens}


ProgressFn = Callable[[int, int, str], None]


@runtime_checkable
class Rater(Protocol):
    """What every rater provides.

    Attributes
    ----------
    name : str
        ``"simulated"`` or ``"openai"``; written to the ``rater`` column of every rating.
    model : str
        The model that produced the ratings (``"simulated-v1"`` for the built-in simulator).
    """

    name: str
    model: str

    def rate(self, task: RatingTask) -> Rating:
        """Rate one task; never raises for a per-rating failure (returns a failed Rating)."""

    def rate_many(self, tasks: Sequence[RatingTask], on_progress: ProgressFn | None = None) -> list[Rating]:
        """Rate all tasks, results in task order; ``on_progress(done, total, message)`` after each."""

    def estimate(self, tasks: Sequence[RatingTask]) -> UsageEstimate:
        """Calls and tokens the tasks will need (zero calls for a rater without an API)."""

    def close(self) -> None:
        """Release connections (a no-op for raters that hold none)."""
