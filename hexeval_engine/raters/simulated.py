"""The simulated rater: deterministic, transparent scores from measurable explanation properties.

It needs no network and gives the same ratings for the same inputs, so the main job runs
offline. Each score is a documented formula (``docs/simulated_rater.md``) of the
:class:`~hexeval_engine.raters.properties.ExplanationProperties` weighed by the persona's six
levels; the comment names the drivers of the highest and lowest score with the explanation's
concrete content. Ratings are labelled ``rater="simulated"``, ``model="simulated-v4"``
(v3: only what a reader is shown enters, no hidden measurement; v4: reasons checked against how such cases lean).
"""

from __future__ import annotations

import time
from typing import Sequence

from .base import DIMENSIONS, ProgressFn, Rating, RatingTask, UsageEstimate
from .persona_weights import PersonaWeights
from .properties import measure
from .simulated_comments import write_comment
from .simulated_formulas import raw_scores, round_score

SIMULATED_MODEL = "simulated-v4"


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

    def rate(self, task: RatingTask, *, measured: dict | None = None) -> Rating:
        """One rating. ``measured``: properties already measured in this batch, by explanation, case and domain
        (each persona reads the same explanation of the same case the same way: measured once)."""
        start = time.perf_counter()
        key = (id(task.explanation), id(task.case), id(task.domain))
        if measured is not None and key in measured:
            props = measured[key][1]
        else:
            props = measure(task.explanation, task.case, top_k=self.top_k, value_labels=task.domain.value_labels,
                            units=task.domain.units)
            if measured is not None:  # the task is kept with them, so the ids in the key stay its objects'
                measured[key] = (task, props)
        raw = raw_scores(props, PersonaWeights.of(task.persona))
        scores = {d: round_score(raw[d]) for d in DIMENSIONS}
        comment = write_comment(task, props, scores)
        return Rating("ok", scores, comment, latency_s=time.perf_counter() - start,
                      extra={"raw_scores": {d: round(raw[d], 3) for d in DIMENSIONS},
                             "infeasible_changes": len(props.infeasible)})

    def rate_many(self, tasks: Sequence[RatingTask], on_progress: ProgressFn | None = None) -> list[Rating]:
        out, measured = [], {}
        for i, task in enumerate(tasks, start=1):
            out.append(self.rate(task, measured=measured))
            if on_progress:
                on_progress(i, len(tasks), f"{task.persona.name} rated {task.label} "
                                           f"(case {task.case.instance_id}, run {task.run + 1})")
        return out

    def estimate(self, tasks: Sequence[RatingTask]) -> UsageEstimate:
        return UsageEstimate(len(tasks), 0, 0, 0, 0)

    def close(self) -> None:
        """Nothing to release."""
