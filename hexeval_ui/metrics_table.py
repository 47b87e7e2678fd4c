"""The technical metrics as a presentation table: one row per method, one column per metric.

Only formatting happens here (no metric is computed): each cell shows the engine's value with its
confidence interval, ``0.61 [0.55, 0.67]``; the column header carries the direction arrow read
from the long table, and the column's tooltip the metric's meaning. Values computed on a derived
importance vector (Anchor's rule features, DiCE's changed features) carry :data:`DERIVED_MARK`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from hexeval_engine.charts.labels import ARROWS, metric_title
from hexeval_engine.explanation import METHODS
from hexeval_engine.technical_table import as_long, method_errors

DERIVED_MARK = "†"
NOT_APPLICABLE = "—"


@dataclass(frozen=True)
class MetricsTable:
    frame: pd.DataFrame  # method, status, then one text column per metric
    help: dict[str, str]  # column label -> tooltip (meaning, direction, derived note)
    failed: dict[str, str]  # method -> error message
    any_derived: bool


def number(value, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NOT_APPLICABLE
    value = float(value)
    if value != 0 and abs(value) < 10 ** -digits:
        return f"{value:.{digits}g}"
    return f"{value:.{digits}f}"


def with_interval(value, low, high, digits: int = 2) -> str:
    """``0.61 [0.55, 0.67]``; the bare value when the interval is unknown; a dash for no value."""
    text = number(value, digits)
    if text == NOT_APPLICABLE:
        return text
    if low is None or high is None or any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        return text
    return f"{text} [{number(low, digits)}, {number(high, digits)}]"


def column_label(metric: str, direction: str) -> str:
    return f"{metric_title(metric)} {ARROWS.get(direction, '')}".strip()


def build_metrics_table(wide: pd.DataFrame | None, long: pd.DataFrame | None) -> MetricsTable:
    """The presentation table of a run's technical metrics (long table preferred, wide as fallback)."""
    table = as_long(long if long is not None and len(long) else wide)
    failed = method_errors(wide)
    methods = [m for m in METHODS if m in set(table["method"]) | set(failed)]
    metrics = list(dict.fromkeys(table["metric"]))
    rows, help_, any_derived = [], {}, False
    for metric in metrics:
        spec = table[table["metric"] == metric].iloc[0]
        label = column_label(metric, spec["direction"])
        meaning = spec["meaning"] if isinstance(spec["meaning"], str) else ""
        help_[label] = f"{meaning} ({spec['direction']} is better)".strip()
    for method in methods:
        row = {"method": method, "status": f"failed: {failed[method]}" if method in failed else "ok"}
        mrows = table[table["method"] == method].set_index("metric")
        for metric in metrics:
            label = column_label(metric, table.loc[table["metric"] == metric, "direction"].iloc[0])
            if metric not in mrows.index:
                row[label] = NOT_APPLICABLE
                continue
            r = mrows.loc[metric]
            cell = with_interval(r["value"], r["ci_low"], r["ci_high"])
            if bool(r["derived"]) and cell != NOT_APPLICABLE:
                cell += f" {DERIVED_MARK}"
                any_derived = True
            row[label] = cell
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["method", "status", *help_])
    # A metric that no method has a value for only adds an empty column.
    keep = [c for c in help_ if (frame[c] != NOT_APPLICABLE).any()]
    return MetricsTable(frame[["method", "status", *keep]], {k: help_[k] for k in keep}, failed, any_derived)
