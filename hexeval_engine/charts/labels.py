"""Axis labels that carry a metric's direction, read from the metrics table."""

from __future__ import annotations

ARROWS = {"higher": "↑", "lower": "↓"}


def metric_title(metric: str) -> str:
    """``fidelity_insertion`` -> ``Fidelity insertion``."""
    return metric.replace("_", " ").capitalize()


def direction_label(metric: str, direction: str) -> str:
    """``Fidelity insertion ↑ (higher is better)``."""
    return f"{metric_title(metric)} {ARROWS[direction]} ({direction} is better)"
