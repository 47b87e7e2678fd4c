"""Plain labels and one-sentence help of metrics (from their specs), with the direction read from the metrics table.

A label is what a column, a chart panel or a report row is called; the help is the sentence a person reads
in a tooltip (Results) or under the label (report). Both live in the metric's spec
(:mod:`hexeval_engine.metrics.registry`) and avoid the papers' names for the measures (Lipschitz, Gini,
entropy, AUC …): the papers are cited in ``docs/metrics.md`` and the registry.
"""

from __future__ import annotations

from ..metrics.registry import ALIASES, METRICS
from ..vocabulary import humanise

ARROWS = {"higher": "↑", "lower": "↓"}
def metric_title(metric: str) -> str:
    """``fidelity_insertion`` -> ``Prediction rebuilt from top features``; an unknown metric (or an original
    HEXEval alias, shown next to its canonical metric) as words."""
    spec = METRICS.get(metric)
    return spec.label if spec is not None and spec.label else humanise(metric)


def metric_help(metric: str, fallback: str = "") -> str:
    """The metric's one-sentence help; ``fallback`` (a run's stored meaning) for a metric this release does not know."""
    metric = ALIASES.get(metric, metric)
    spec = METRICS.get(metric)
    if spec is not None and spec.help:
        return spec.help
    text = (fallback or "").strip()
    return text if not text or text.endswith(".") else text + "."


def direction_label(metric: str, direction: str) -> str:
    """``Prediction rebuilt from top features ↑``: a panel's title, short enough for a phone's width; the chart's
    title says what the arrows mean."""
    return f"{metric_title(metric)} {ARROWS[direction]}"
