"""Simulated personas answer the what-if questions by reading the explanation they were shown.

The contract is the reader of ``hexeval_engine.metrics.readers`` (``make_reader(explanation, *,
data) -> Reader`` with ``Reader.predict(rows) -> class index or -1``). Until that module is on
``main``, :func:`offline_reader` implements the same interface here, one rule per family:

* attributions (SHAP, LIME, Random, a narrative's source): a reader expects the prediction to flip
  only when the what-if changes one of the 3 features the explanation names first *and* that
  feature spoke for the current prediction; otherwise the prediction stays.
* a rule (Anchor): while the changed row still meets every condition the rule's class is expected;
  a row that breaks a condition leaves the reader unable to say (-1, counted as wrong).
* counterfactuals (DiCE): a change of a feature a counterfactual changes, towards its value, is
  expected to flip the prediction; any other change keeps it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TOP_K = 3


class OfflineReader:
    """What a reader of one explanation expects the model to predict for changed rows."""

    def __init__(self, record: dict, original_row: pd.Series):
        self.record = record
        self.original = original_row
        self.predicted = int(record.get("predicted_class", 0))

    def predict(self, rows: pd.DataFrame) -> np.ndarray:
        return np.array([self._one(row) for _, row in rows.iterrows()], dtype=int)

    def _changed(self, row: pd.Series) -> list[str]:
        return [f for f in row.index if str(row[f]) != str(self.original[f])]

    def _one(self, row: pd.Series) -> int:
        changed = self._changed(row)
        rec = self.record
        attributions = rec.get("attributions") or (rec.get("extra") or {}).get("source_attributions")
        if rec.get("rule"):
            return self._rule(row)
        if rec.get("counterfactuals"):
            return self._counterfactual(row, changed)
        if attributions:
            top = sorted(attributions, key=lambda f: -abs(float(attributions[f])))[:TOP_K]
            # attributions are towards class 1: a positive value speaks for class 1
            supports = [f for f in changed if f in top and (float(attributions[f]) > 0) == (self.predicted == 1)]
            return 1 - self.predicted if supports else self.predicted
        return -1

    def _rule(self, row: pd.Series) -> int:
        for cond in self.record["rule"].get("conditions", []):
            if not _holds(row.get(cond["feature"]), cond.get("op"), cond.get("value")):
                return -1
        return self.predicted

    def _counterfactual(self, row: pd.Series, changed: list[str]) -> int:
        for cf in self.record["counterfactuals"]:
            for f, change in (cf.get("changes") or {}).items():
                if f in changed and _towards(self.original[f], row[f], change[-1] if isinstance(change, list) else change):
                    return 1 - self.predicted
        return self.predicted


def _number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _holds(value, op, bound) -> bool:
    a, b = _number(value), _number(bound)
    if op in ("=", "==") or a is None or b is None:
        return str(value) == str(bound) if (a is None or b is None) else a == b
    return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b, "!=": a != b}.get(op, False)


def _towards(old, new, target) -> bool:
    o, n, t = _number(old), _number(new), _number(target)
    if o is None or n is None or t is None:
        return str(new) == str(target)
    return abs(n - t) < abs(o - t)


def offline_reader(record: dict, *, data) -> OfflineReader:
    """The reader of one saved explanation record (``explanations.jsonl``) of test row ``instance_id``."""
    return OfflineReader(record, data.X_test.iloc[int(record["instance_id"])])


def persona_answers(study: dict, explanations: list[dict], data) -> pd.DataFrame:
    """Each simulated reader's answer to each item's what-if: ``instance_index, explanation_type,
    simulation_answer, simulation_correct`` (unanswerable: answer -1, counted wrong)."""
    by_key = {(r["method"], int(r["instance_id"])): r for r in explanations if not r.get("error")}
    rows = []
    for item in study["items"]:
        wi = item.get("what_if")
        record = by_key.get((item["method"], int(item["instance_index"])))
        if record is None and item["method"] == "Narrative":
            source = next((r for (m, i), r in by_key.items() if m == "SHAP" and i == int(item["instance_index"])), None)
            record = source
        if wi is None or record is None:
            continue
        reader = offline_reader(record, data=data)
        changed = data.X_test.iloc[[int(item["instance_index"])]].copy()
        changed[wi["feature"]] = wi["value"]
        answer = int(reader.predict(changed)[0])
        rows.append({"instance_index": int(item["instance_index"]), "explanation_type": item["method"],
                     "simulation_answer": answer, "simulation_correct": answer == int(wi["answer"])})
    return pd.DataFrame(rows, columns=["instance_index", "explanation_type", "simulation_answer", "simulation_correct"])
