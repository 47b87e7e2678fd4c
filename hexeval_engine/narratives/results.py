"""Plain result records of the narrative stage: a narration, a mention, an extraction."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Narration:
    """One narrator answer: the text, or a recorded failure (``error``) with no text."""

    text: str = ""
    error: str = ""
    cached: bool = False
    calls: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.error and bool(self.text.strip())


@dataclass(frozen=True)
class Mention:
    """What a narrative says about one feature it names.

    ``rank`` is the importance the narrative gives it (0 = described as most important), ``sign``
    +1 when described as pushing towards the predicted outcome and -1 away from it, ``value`` the
    feature value as stated; each is ``None`` when the narrative does not say.
    """

    feature: str
    rank: int | None
    sign: int | None
    value: str | None


@dataclass
class Extraction:
    """The mentions read from one narrative, or a recorded failure."""

    mentions: tuple[Mention, ...] = ()
    extractor: str = ""
    error: str = ""
    cached: bool = False
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.error
