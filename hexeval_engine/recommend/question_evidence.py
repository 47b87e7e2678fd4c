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

from ..metrics.table import canonical_methods, case_tables

QUESTIONS = ("why", "what_if", "will_it_hold", "how_to_change")
SKILL_SUFFIX = "_common"


def skill_metric(question: str, *, common: bool = True) -> str:
    return f"skill_{question}{SKILL_SUFFIX if common else ''}"


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
    """Per case, ``sum_q w_q skill_q / sum_q w_q`` over the questions measurable on that case (same for all).

    The cases are those of the first table and of every weighted one (:func:`question_tables` gives every question
    the same cases); a case a table lacks is not measurable for that question."""
    methods = list(methods)
    index = next(iter(tables.values())).index
    used = [(tables[q], w) for q, w in weights.items() if w > 0 and q in tables]
    for table, _ in used:
        if not table.index.equals(index):
            index = index.union(table.index)
    total = np.zeros((len(index), len(methods)))
    mass = np.zeros(len(index))
    for table, w in used:
        values = table.reindex(index=index, columns=methods).to_numpy(dtype=float)
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
    rows made canonical (not every row of the per-case table), then one pass over them
    (:func:`~..metrics.table.case_tables`)."""
    rows = per_instance[per_instance["metric"].isin(list(metrics))]
    rows = rows.assign(method=canonical_methods(rows["method"]))
    return {metric: pd.DataFrame(columns=list(methods)) if table is None else table.reindex(columns=list(methods))
            for metric, table in case_tables(rows, metrics).items()}
