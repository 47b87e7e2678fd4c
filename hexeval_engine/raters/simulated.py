"""The simulated rater: deterministic, transparent scores from measurable explanation properties.

It needs no network and gives the same ratings for the same inputs, so the main job runs
offline. Each score is a documented formula (``docs/simulated_rater.md``) of the
:class:`~hexeval_engine.raters.properties.ExplanationProperties` weighed by the persona's six
levels; the comment names the drivers of the highest and lowest score with the explanation's
concrete content. Ratings are labelled ``rater="simulated"``, ``model="simulated-v1"``.
"""

from __future__ import annotations

import math
import time
from typing import Sequence

from .base import DIMENSIONS, ProgressFn, Rating, RatingTask, UsageEstimate
from .persona_weights import PersonaWeights
from .properties import ExplanationProperties, measure
from .simulated_comments import write_comment

SIMULATED_MODEL = "simulated-v1"


def raw_scores(props: ExplanationProperties, w: PersonaWeights) -> dict[str, float]:
    """The unrounded scores (each in [1, 5]) of the formulas in ``docs/simulated_rater.md``."""
    overload = max(0.0, props.n_items - w.capacity)
    interpretability = (4.5 - 0.4 * overload - 1.2 * (1 - w.tech) * min(1.0, len(props.jargon) / 3)
                        - 0.8 * (1 - w.ai) * min(1.0, props.numbers / 12) - 0.6 * w.time * min(1.0, props.words / 150))
    evidence = props.mass_covered if props.family == "attribution" else props.breadth
    reliability = (1.0 if props.consistent else 0.6) if props.family == "attribution" else props.quality
    wb = 0.4 + 0.5 * w.tech * w.justify
    completeness = 1 + 4 * (wb * evidence + (1 - wb) * reliability)
    act_content, act_generic = _action_content(props)
    actionability = 1 + 4 * (w.act * act_content + (1 - w.act) * act_generic)
    generality = min(1.0, props.coverage / 0.3) if props.coverage is not None else 0.5
    trust = 1 + 4 * (0.55 * props.quality + 0.3 * w.ai + 0.15 * generality - 0.5 * w.risk * (1 - props.quality))
    parts = {"interpretability": _clip(interpretability), "completeness": _clip(completeness),
             "actionability": _clip(actionability), "trust": _clip(trust)}
    satisfaction = _weighted(parts, {"interpretability": 1 + w.time + (1 - w.tech),
                                     "completeness": 1 + w.justify + w.tech,
                                     "actionability": 1 + 2 * w.act, "trust": 1 + w.risk})
    decision = _weighted(parts, {"interpretability": w.time, "completeness": 0.5 + w.justify,
                                 "actionability": 0.5 + 2 * w.act, "trust": 0.5 + w.risk})
    return {**parts, "satisfaction": satisfaction, "decision_support": decision}


def round_score(x: float) -> int:
    """Round half up and clip to the integers 1-5."""
    return int(min(5, max(1, math.floor(x + 0.5))))


def _action_content(props: ExplanationProperties) -> tuple[float, float]:
    """(what it offers someone who must act, what it offers someone who examines) in [0, 1]."""
    if props.family == "counterfactual":
        per_cf = len(props.items) / props.cf_total if props.cf_total else 0.0
        effort = min(1.0, 2.5 / per_cf) if per_cf else 0.0
        return props.validity * effort, 0.6 * props.validity
    if props.family == "rule":
        return 0.5, 0.5
    return 0.25, 0.5


def _weighted(parts: dict[str, float], weights: dict[str, float]) -> float:
    total = sum(weights.values())
    return sum(parts[k] * weights[k] for k in weights) / total


def _clip(x: float) -> float:
    return min(5.0, max(1.0, x))


class SimulatedRater:
    """Deterministic persona simulator (no network, no randomness).

    Parameters
    ----------
    top_k : int
        Attribution features taken as shown when the text names none of them.
    """

    name = kind = "simulated"
    model = SIMULATED_MODEL

    def __init__(self, *, top_k: int = 5):
        self.top_k = int(top_k)

    def __repr__(self) -> str:
        return f"SimulatedRater(model={self.model!r}, top_k={self.top_k})"

    def rate(self, task: RatingTask) -> Rating:
        start = time.perf_counter()
        props = measure(task.explanation, task.case, top_k=self.top_k, value_labels=task.domain.value_labels)
        raw = raw_scores(props, PersonaWeights.of(task.persona))
        scores = {d: round_score(raw[d]) for d in DIMENSIONS}
        comment = write_comment(task, props, scores)
        return Rating("ok", scores, comment, latency_s=time.perf_counter() - start,
                      extra={"raw_scores": {d: round(raw[d], 3) for d in DIMENSIONS}})

    def rate_many(self, tasks: Sequence[RatingTask], on_progress: ProgressFn | None = None) -> list[Rating]:
        out = []
        for i, task in enumerate(tasks, start=1):
            out.append(self.rate(task))
            if on_progress:
                on_progress(i, len(tasks), f"{task.persona.name} rated {task.explanation.method} "
                                           f"(case {task.case.instance_id}, run {task.run + 1})")
        return out

    def estimate(self, tasks: Sequence[RatingTask]) -> UsageEstimate:
        return UsageEstimate(len(tasks), 0, 0, 0, 0)

    def close(self) -> None:
        """Nothing to release."""
