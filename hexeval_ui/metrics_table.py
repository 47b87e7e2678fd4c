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

from hexeval_engine.charts.labels import ARROWS, metric_help, metric_title
from hexeval_engine.metrics import get_spec
from hexeval_engine.metrics.table import as_long, method_errors, method_order

DERIVED_MARK = "†"
NOT_APPLICABLE = "—"


#: Registry category -> section title, in the order shown.
CATEGORIES = {"question": "Answers to the stakeholders' questions: skill over no explanation (compared across methods)",
              "question_detail": "Behind each answer", "claim": "What each explanation claims (older runs)", "fidelity": "Fidelity", "parsimony": "Parsimony", "stability": "Stability", "rule": "Rules (Anchor)",
              "counterfactual": "Counterfactuals (DiCE)"}


@dataclass(frozen=True)
class MetricGroup:
    title: str
    frame: pd.DataFrame  # method, then one text column per metric; only methods with a value here
    help: dict[str, str]  # column label -> tooltip (meaning and direction)
    continues: bool = False  # a later part of a table too wide for one: shown under the first part, without a title


@dataclass(frozen=True)
class MetricsTable:
    groups: list[MetricGroup]
    failed: dict[str, str]  # method -> error message
    any_derived: bool


def number(value, digits: int = 2, *, signed: bool = False) -> str:
    """``0.61``; ``+0.61`` with ``signed`` (a skill over a reference); a dash for no value.

    Every cell has the same number of decimals (``0.0053`` and ``-1.1e-17`` read ``0.01`` and ``0.00``); a value
    that rounds to zero reads ``0.00``, never ``-0.00``; from 1,000 on a whole number with separators.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NOT_APPLICABLE
    if abs(float(value)) >= 1000:  # a count of cases: "4,075", not "4075.00"
        digits = 0
    text = f"{float(value):{'+' if signed else ''},.{digits}f}"
    return text.lstrip("+-") if float(text.replace(",", "")) == 0 else text


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


def _category(metric: str) -> str:
    try:
        return get_spec(metric).category
    except KeyError:
        return "other"


def build_metrics_table(wide: pd.DataFrame | None, long: pd.DataFrame | None) -> MetricsTable:
    """The run's technical metrics as one small table per metric category (long table preferred)."""
    table = as_long(long if long is not None and len(long) else wide)
    table = table[table["value"].notna()]
    failed = method_errors(wide)
    groups, any_derived = [], False
    by_category: dict[str, list[str]] = {}
    for metric in dict.fromkeys(table["metric"]):
        by_category.setdefault(_category(metric), []).append(metric)
    for category in [*CATEGORIES, *sorted(set(by_category) - set(CATEGORIES))]:
        metrics = by_category.get(category)
        if not metrics:
            continue
        rows, help_ = [], {}
        for metric in metrics:
            spec = table[table["metric"] == metric].iloc[0]
            meaning = spec["meaning"] if isinstance(spec["meaning"], str) else ""
            direction = f"{spec['direction'].capitalize()} is better."
            help_[column_label(metric, spec["direction"])] = f"{metric_help(metric, meaning)} {direction}".strip()
        sub = table[table["metric"].isin(metrics)]
        for method in method_order(set(sub["method"])):
            row = {"method": method}
            mrows = sub[sub["method"] == method].set_index("metric")
            for metric, label in zip(metrics, help_):
                if metric not in mrows.index:
                    row[label] = NOT_APPLICABLE
                    continue
                r = mrows.loc[metric]
                row[label] = with_interval(r["value"], r["ci_low"], r["ci_high"])
                if bool(r["derived"]):
                    row[label] += f" {DERIVED_MARK}"
                    any_derived = True
            rows.append(row)
        groups.append(MetricGroup(CATEGORIES.get(category, category.capitalize()),
                                  pd.DataFrame(rows, columns=["method", *help_]), help_))
    return MetricsTable(groups, failed, any_derived)


#: What each kind of method gives, in words, for the methods overview.
FAMILY_WORDS = {"attribution": "feature weights", "rule": "a rule", "counterfactual": "changes that flip the outcome",
                "narrative": "a written explanation", "baseline": "random weights (reference)"}
OVERVIEW_COLUMNS = {"method": "Method", "family": "Gives", "algorithm": "Algorithm", "n_instances": "Compared",
                    "n_explained": "Explained", "seconds": "Seconds", "status": "Status"}


def overview_table(wide: pd.DataFrame | None) -> pd.DataFrame:
    """Per method, with readable column labels: what it gives, algorithm, cases compared and explained, seconds, status."""
    columns = list(OVERVIEW_COLUMNS.values())
    if wide is None or wide.empty or "method" not in wide.columns:
        return pd.DataFrame(columns=columns)
    failed = method_errors(wide)
    frame = wide.reindex(columns=[c for c in OVERVIEW_COLUMNS if c != "status"]).copy()
    frame["family"] = [FAMILY_WORDS.get(f, f) for f in frame["family"]]
    frame["status"] = [f"failed: {failed[m]}" if m in failed else "ok" for m in frame["method"]]
    return frame.rename(columns=OVERVIEW_COLUMNS)


def timing_note(manifest: dict) -> str:
    """One sentence on what the seconds per method cover and how they add up (empty for runs without timings)."""
    timings = (manifest or {}).get("timings", {})
    per_method = timings.get("per_method") or {}
    total, shared = per_method.get("total"), per_method.get("shared")
    if total is None or shared is None:
        return ""
    stage = timings.get("technical")  # the stage's clock also covers what surrounds the methods' work
    took = (f"{total:.2f} s of the {stage:.2f} s the technical evaluation took" if stage is not None
            and f"{stage:.2f}" != f"{total:.2f}" else f"the {total:.2f} s the technical evaluation took")
    return (f"Seconds per method cover its explanations, its stability runs and its metrics. With {shared:.2f} s of "
            f"work no single method owns (the model's predictions for the sample, the noisy copies, the summaries) "
            f"they add up to {took}.")
