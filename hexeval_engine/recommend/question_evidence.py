"""The measured evidence a stakeholder's verdict is built from: per case, each method's skill on each question.

Public interface (stable)
-------------------------
``QUESTIONS``                                        ``("why", "what_if", "will_it_hold", "how_to_change")``
``question_tables(per_instance, methods) -> {q: DataFrame}``   index ``instance_id``, one column per method:
                                                     ``skill_<q>_common`` (every method cut to the common size)
``weighted_skill(tables, weights, methods) -> DataFrame``      per case, the question-weighted skill
``support_table(per_instance, metric) -> DataFrame``           a supporting column (``why_move_common`` …)
``support_tables(per_instance, metrics, methods) -> {metric: DataFrame}``  several of them in one pass

A skill is the method's score minus that of a reader who saw no explanation (``metrics/questions``), so 0 means
"no help". On a case where a question can be measured (some method has a value), a method without a value
for it (its explanation shows nothing a reader of that question can apply) counts as 0: it answers no better
than no explanation. A question no method could be measured on for a case (no neighbour changes the answer,
the person can change nothing) is left out of that case for every method, and the remaining questions'
weights are renormalised, so every method is weighed the same way on every case.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics.table import canonical_methods, case_table

QUESTIONS = ("why", "what_if", "will_it_hold", "how_to_change")
SKILL_SUFFIX = "_common"


def skill_metric(question: str, *, common: bool = True) -> str:
    return f"skill_{question}{SKILL_SUFFIX if common else ''}"


def _pivot(per_instance: pd.DataFrame, metric: str, methods) -> pd.DataFrame:
    rows = per_instance[per_instance["metric"] == metric]
    if rows.empty:
        return pd.DataFrame(columns=list(methods))
    return case_table(rows).reindex(columns=list(methods))


def has_question_evidence(per_instance: pd.DataFrame | None) -> bool:
    """Whether a per-case table carries the question skills (runs before them do not)."""
    return per_instance is not None and len(per_instance) > 0 and \
        per_instance["metric"].isin([skill_metric(q) for q in QUESTIONS]).any()


def question_tables(per_instance: pd.DataFrame, methods) -> dict[str, pd.DataFrame]:
    """Per question, the common-size skill per case (rows) and method (columns), on the same cases."""
    skills = _metric_tables(per_instance, [skill_metric(q) for q in QUESTIONS], methods)
    tables = {q: skills[skill_metric(q)] for q in QUESTIONS}
    cases = sorted(set().union(*(t.index for t in tables.values())))
    out = {}
    for q, t in tables.items():
        t = t.reindex(index=cases).astype(float)
        measurable = t.notna().any(axis=1)
        t.loc[measurable] = t.loc[measurable].fillna(0.0)  # no answer on a measurable case: no help (0)
        out[q] = t
    return out


def weighted_skill(tables: dict[str, pd.DataFrame], weights: dict[str, float], methods) -> pd.DataFrame:
    """Per case, ``sum_q w_q skill_q / sum_q w_q`` over the questions measurable on that case (same for all)."""
    methods = list(methods)
    first = next(iter(tables.values()))
    used = [(tables[q], w) for q, w in weights.items() if w > 0 and q in tables]
    if all(t.index.equals(first.index) for t, _ in used):  # question_tables' tables: the same cases in each
        return _weighted_aligned(first.index, used, methods)
    total = pd.DataFrame(0.0, index=first.index, columns=methods)
    mass = pd.Series(0.0, index=first.index)
    for q, w in weights.items():
        if w <= 0 or q not in tables:
            continue
        t = tables[q].reindex(columns=methods)
        measurable = t.notna().any(axis=1)
        total = total.add(t.fillna(0.0).mul(w), fill_value=0.0)
        mass = mass.add(measurable.astype(float) * w, fill_value=0.0)
    out = total.div(mass.where(mass > 0), axis=0)
    return out


def _weighted_aligned(index, used: list, methods: list) -> pd.DataFrame:
    """:func:`weighted_skill` of tables on the same cases, in arrays (the same sums in the same order, without
    aligning frames nine times per recommendation)."""
    total = np.zeros((len(index), len(methods)))
    mass = np.zeros(len(index))
    for table, w in used:
        values = table.reindex(columns=methods).to_numpy(dtype=float)
        missing = np.isnan(values)
        total = total + np.where(missing, 0.0, values) * w
        mass = mass + (~missing).any(axis=1).astype(float) * w
    with np.errstate(invalid="ignore", divide="ignore"):
        out = total / np.where(mass > 0, mass, np.nan)[:, None]
    return pd.DataFrame(out, index=index, columns=methods)


def support_table(per_instance: pd.DataFrame, metric: str, methods) -> pd.DataFrame:
    """A supporting column of the questions (``how_to_change_success_common`` …), cases × methods."""
    return support_tables(per_instance, [metric], methods)[metric]


def support_tables(per_instance: pd.DataFrame, metrics, methods) -> dict[str, pd.DataFrame]:
    """:func:`support_table` of each of ``metrics``, from one pass over the per-case table."""
    return _metric_tables(per_instance, metrics, methods)


def _metric_tables(per_instance: pd.DataFrame, metrics, methods) -> dict[str, pd.DataFrame]:
    """``{metric: cases x methods}`` of each of ``metrics``: their rows taken first, then the method names of those
    rows made canonical (not every row of the per-case table)."""
    rows = per_instance[per_instance["metric"].isin(list(metrics))]
    rows = rows.assign(method=canonical_methods(rows["method"]))
    columns = _plain_columns(rows)
    return {metric: _pivot(rows, metric, methods) if columns is None else _pivot_arrays(rows, columns, metric, methods)
            for metric in metrics}


def _plain_columns(rows: pd.DataFrame):
    """``(metric, instance_id, method, value)`` as arrays when the ids are integers and the names text (every run's
    per-case table), else ``None`` (then each table is made by :func:`case_table`)."""
    ids = rows["instance_id"]
    if not pd.api.types.is_integer_dtype(ids.dtype):
        return None
    names = rows["method"].to_numpy(dtype=object)
    metrics = rows["metric"].to_numpy(dtype=object)
    if not all(isinstance(n, str) for n in set(names)):
        return None
    return metrics, ids.to_numpy(), names, rows["value"].to_numpy(dtype=float)


def _pivot_arrays(rows: pd.DataFrame, columns: tuple, metric: str, methods) -> pd.DataFrame:
    """:func:`_pivot` from arrays: one value per case and method (a per-case table has one; a table with several
    for a pair, whose mean pandas takes, goes through :func:`_pivot`)."""
    metrics, ids, names, values = columns
    keep = (metrics == metric) & ~np.isnan(values)
    if not keep.any():
        return _pivot(rows, metric, methods)  # no row, or none with a value: the general path's empty table
    id_levels, i = np.unique(ids[keep], return_inverse=True)
    name_levels, j = np.unique(names[keep], return_inverse=True)
    counts = np.zeros((len(id_levels), len(name_levels)), dtype=np.int64)
    np.add.at(counts, (i, j), 1)
    if counts.max() > 1:
        return _pivot(rows, metric, methods)
    table = np.full(counts.shape, np.nan)
    table[i, j] = values[keep]
    frame = pd.DataFrame(table, index=pd.Index(id_levels, name="instance_id"),
                         columns=pd.Index(name_levels, name="method", dtype=rows["method"].dtype))
    return frame.reindex(columns=list(methods))
