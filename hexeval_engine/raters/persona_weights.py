"""A persona's six levels as numbers, for the simulated rater."""

from __future__ import annotations

from dataclasses import dataclass

from ..personas import Persona


@dataclass(frozen=True)
class PersonaWeights:
    """A persona's six levels as numbers in [0, 1]."""

    ai: float
    tech: float
    justify: float
    act: float
    time: float
    risk: float

    @classmethod
    def of(cls, p: Persona) -> "PersonaWeights":
        return cls(p.level("ai_comfort"), p.level("technical_background"), p.level("need_to_justify"),
                   p.level("need_to_act"), p.level("time_pressure"), p.level("risk_aversion"))

    @property
    def capacity(self) -> float:
        """How many items the persona takes in comfortably."""
        return max(1.5, 2 + 3 * self.ai + 3 * self.tech - 2 * self.time)
