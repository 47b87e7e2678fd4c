"""Paired comparisons and intervals of the question skills over a world's shared cases (tests' oracle side).

The intervals are percentile bootstraps over cases (:mod:`hexeval_engine.paired_stats`, not the code under test).
The checks of "Random's interval contains 0" are many (four questions, two sizes, every world of a test file):
at 95 % each, one in twenty would miss 0 by chance alone, so they are made at the Bonferroni level
``1 - 0.05 / checks`` over the file's worlds.
"""

from __future__ import annotations

from hexeval_engine.metrics.questions import QUESTIONS, question_skills
from hexeval_engine.paired_stats import mean_ci, paired_difference
from question_worlds import per_case

SIZES = ("", "_common")


def skills(w, **kwargs):
    return question_skills(w.model, w.data, w.explanations, w.config, random_state=w.config.evaluation.random_state,
                           actionability=w.actionability, **kwargs)


def lead(frame, question: str, a: str, b: str):
    """Paired difference ``a - b`` of ``skill_<question>`` (with its size suffix) over the shared cases."""
    table = per_case(frame, f"skill_{question}")
    return paired_difference(table[a].to_numpy(), table[b].to_numpy(), n_resamples=2000, seed=0)


def random_intervals(frame, *, worlds: int = 1) -> dict:
    """``{metric: (mean, low, high)}`` of Random's skill on every question and size, at the Bonferroni level of
    ``worlds`` such frames."""
    metrics = [f"skill_{q}{s}" for q in QUESTIONS for s in SIZES]
    level = 1 - 0.05 / (len(metrics) * worlds)
    out = {}
    for metric in metrics:
        values = per_case(frame, metric)["Random"].dropna().to_numpy()
        out[metric] = mean_ci(values, n_resamples=4000, confidence=level, seed=0)
    return out
