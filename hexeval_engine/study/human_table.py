"""The table of people's answers, ``human_ratings.csv``: one row per participant x item.

Columns (public, the CSV template shares them): ``participant_id, role, explanation_type,
instance_index``, the six dimensions, ``comment, simulation_answer, simulation_correct``.
"""

from __future__ import annotations

import pandas as pd

from ..ratings_summary import DIMENSIONS
from .create import items_by_id
from .storage import all_answers

KEY_COLUMNS = ("participant_id", "role", "explanation_type", "instance_index")
TEMPLATE_COLUMNS = (*KEY_COLUMNS, *DIMENSIONS, "comment", "simulation_answer")
COLUMNS = (*TEMPLATE_COLUMNS, "simulation_correct")


def human_ratings(run_dir, study: dict) -> pd.DataFrame:
    """Every answer given through study links plus imported ones (``study["imported"]``)."""
    items = items_by_id(study)
    rows = []
    for record in all_answers(run_dir):
        for item_id, answer in record.get("answers", {}).items():
            item = items.get(item_id)
            if item is None:
                continue
            rows.append({"participant_id": record["participant_id"], "role": record.get("role") or "",
                         "explanation_type": item["method"], "instance_index": item["instance_index"],
                         **{d: answer[d] for d in DIMENSIONS}, "comment": answer.get("comment", ""),
                         "simulation_answer": answer.get("simulation_answer")})
    rows += list(study.get("imported", []))
    frame = pd.DataFrame(rows, columns=list(TEMPLATE_COLUMNS))
    truth = {(int(i["instance_index"])): (i.get("what_if") or {}).get("answer") for i in study["items"]}
    frame["simulation_answer"] = pd.to_numeric(frame["simulation_answer"], errors="coerce").astype("Int64")
    expected = frame["instance_index"].map(lambda i: truth.get(int(i))).astype("Int64")
    frame["simulation_correct"] = (frame["simulation_answer"] == expected).astype("boolean")
    frame.loc[frame["simulation_answer"].isna() | expected.isna(), "simulation_correct"] = pd.NA
    return frame


def as_persona_table(humans: pd.DataFrame) -> pd.DataFrame:
    """People's answers in the shape of ``persona_ratings`` (for the recommender): each participant a rater."""
    return pd.DataFrame({"persona_name": humans["participant_id"], "persona_role": humans["role"],
                         "explanation_type": humans["explanation_type"], "instance_index": humans["instance_index"],
                         **{d: humans[d] for d in DIMENSIONS}, "status": "ok"})
