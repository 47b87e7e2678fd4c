"""Simulated personas answer the what-if questions through the reader of the explanation they saw.

One reader per explanation family, the one the fair-evidence metrics use
(:func:`hexeval_engine.metrics.readers.make_reader`): an attribution reader (SHAP, LIME, Random)
subtracts the shown contributions of the features the what-if changes from the shown probability; a
rule reader (Anchor) gives the rule's class while the changed row still meets the rule and abstains
outside it; a counterfactual reader (DiCE) expects the other class when the change follows a shown
counterfactual. A narrative retells its source explanation, so it is read through that source.

The simulated reader is the same for every role (it knows only the explanation), so its answers carry
no role. An abstention (answer ``-1``) is neither right nor wrong: it scores as a guess at chance
(0.5), as :func:`hexeval_engine.metrics.readers.reader_accuracy` counts it. A what-if whose
explanation cannot be read (it failed) is recorded as a failure with its reason, never answered.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..explanation import NARRATIVE_METHOD, Condition, Counterfactual, Explanation, Rule, SimilarCase
from ..metrics.readers import ABSTAIN, make_reader

ANSWER_COLUMNS = ["persona_name", "persona_role", "instance_index", "explanation_type", "simulation_answer",
                  "simulation_correct", "status", "error"]
"""Columns of ``study/persona_answers.csv`` (simulated readers and LLM personas alike)."""

CHANCE = 0.5
"""Score of an abstention on a two-option question."""


def explanation_from_record(record: dict) -> Explanation:
    """The :class:`~hexeval_engine.explanation.Explanation` a line of ``explanations.jsonl`` was made from."""
    rule = record.get("rule")
    cfs = record.get("counterfactuals")
    examples = record.get("examples")
    return Explanation(
        method=str(record["method"]), instance_id=int(record["instance_id"]),
        predicted_class=int(record["predicted_class"]), probability=float(record["probability"]),
        attributions=record.get("attributions"),
        rule=None if rule is None else Rule([Condition(**c) for c in rule.get("conditions", [])],
                                            float(rule.get("precision", float("nan"))),
                                            float(rule.get("coverage", float("nan")))),
        counterfactuals=None if cfs is None else [
            Counterfactual({f: tuple(v) for f, v in (cf.get("changes") or {}).items()}, float(cf.get("probability", 0.0)),
                           bool(cf.get("flips")), dict(cf.get("row") or {})) for cf in cfs],
        examples=None if examples is None else [
            SimilarCase(**{**x, "differs": {f: tuple(v) for f, v in (x.get("differs") or {}).items()}}) for x in examples],
        text=str(record.get("text") or ""), error=record.get("error"), extra=dict(record.get("extra") or {}))


def source_record(item: dict, by_key: dict) -> dict | None:
    """The explanation record an item's reader reads: its own, or a narrative's source explanation."""
    key = (item["method"], int(item["instance_index"]))
    record = by_key.get(key)
    if item["method"] == NARRATIVE_METHOD and record is not None:
        source = (record.get("extra") or {}).get("source_method")
        return by_key.get((str(source), key[1]))
    return record


def changed_row(data, item: dict) -> pd.DataFrame:
    """The case of an item with its what-if applied (one raw row)."""
    row = data.X_test.iloc[[int(item["instance_index"])]].copy()
    row[item["what_if"]["feature"]] = item["what_if"]["value"]  # the whole column: its dtype follows the value
    return row


def reader_answers(study: dict, explanations: list[dict], data, *, top_k: int) -> pd.DataFrame:
    """Each item's what-if answered by the reader of its explanation (columns :data:`ANSWER_COLUMNS`).

    Parameters
    ----------
    study : dict
        The study (its items carry the what-if and the model's answer).
    explanations : list of dict
        The run's ``explanations.jsonl`` records.
    data : Dataset
        The run's data (``instance_index`` is a row of ``data.X_test``).
    top_k : int
        How many attributions or counterfactuals the explanation showed (``personas.top_k_features``).
    """
    by_key = {(str(r["method"]), int(r["instance_id"])): r for r in explanations}
    rows = []
    for item in study["items"]:
        what_if = item.get("what_if")
        if what_if is None:
            continue
        base = {"persona_name": "", "persona_role": "", "instance_index": int(item["instance_index"]),
                "explanation_type": item["method"]}
        record = source_record(item, by_key)
        try:
            if record is None:
                raise ValueError(f"the run has no {item['method']} explanation of case {item['instance_index']}")
            reader = make_reader(explanation_from_record(record), data=data, top_k=top_k)
        except ValueError as err:
            rows.append({**base, "simulation_answer": pd.NA, "simulation_correct": pd.NA, "status": "failed",
                         "error": str(err)})
            continue
        answer = int(reader.predict(changed_row(data, item))[0])
        rows.append({**base, "simulation_answer": answer,
                     "simulation_correct": pd.NA if answer == ABSTAIN else answer == int(what_if["answer"]),
                     "status": "ok", "error": ""})
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


def answer_scores(frame: pd.DataFrame) -> np.ndarray:
    """Per answer: 1 right, 0 wrong, :data:`CHANCE` for an abstention, NaN for a failure or no answer."""
    answer = pd.to_numeric(frame["simulation_answer"], errors="coerce").to_numpy(dtype=float)
    scores = frame["simulation_correct"].map(_truth).to_numpy(dtype=float, copy=True)
    scores[answer == ABSTAIN] = CHANCE
    if "status" in frame:
        scores[frame["status"].astype(str).to_numpy() != "ok"] = np.nan
    return scores


def _truth(value) -> float:
    """1.0/0.0 for a stored truth value (``True``, ``"True"``, 1 ...), NaN when missing."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return np.nan
    if isinstance(value, str):
        return {"true": 1.0, "false": 0.0, "1": 1.0, "0": 0.0}.get(value.strip().lower(), np.nan)
    return float(bool(value))
