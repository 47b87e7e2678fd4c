"""The case explorer shows each narrative beside the attribution it tells, with disagreements in red."""

from __future__ import annotations

import pandas as pd
from app_helpers import app, open_page, texts

from hexeval_engine import evaluate
from hexeval_ui.narrative_view import comparison_styler, comparison_table

FAST = {"evaluation": {"sample_size": 6, "explainers": {"lime": {"enabled": False}, "anchor": {"enabled": False},
                                                       "dice": {"enabled": False}}},
        "narratives": {"enabled": True}}


def _checks():
    base = dict(narrative_id=0, instance_id=3, audience="lay", manipulated=False, in_table=True, mentioned=True)
    return pd.DataFrame([
        {**base, "feature": "cp", "label": "chest pain type", "true_rank": 0, "stated_rank": 0, "rank_ok": True,
         "true_sign": 1, "stated_sign": 1, "sign_ok": True, "true_value": "typical angina",
         "stated_value": "typical angina", "value_ok": True},
        {**base, "feature": "thalach", "label": "maximum heart rate achieved", "true_rank": 1, "stated_rank": 1,
         "rank_ok": True, "true_sign": -1, "stated_sign": 1, "sign_ok": False, "true_value": "150",
         "stated_value": "172", "value_ok": False},
        {**base, "feature": "ca", "label": "number of major vessels", "true_rank": 2, "stated_rank": None,
         "rank_ok": None, "true_sign": 1, "stated_sign": None, "sign_ok": None, "true_value": "2",
         "stated_value": "", "value_ok": None, "mentioned": False},
    ])


def test_comparison_marks_exactly_the_disagreeing_cells():
    table = comparison_table(_checks())
    assert table["Feature"].tolist() == ["chest pain type", "maximum heart rate achieved", "number of major vessels"]
    assert table.loc[1, "Direction"] == "away from the prediction"
    assert table.loc[1, "Narrative's direction"] == "towards the prediction"
    assert table.loc[2, "Narrative's rank"] == "not stated" and table.loc[0, "Rank"] == 1
    styles = comparison_styler(table)._compute().ctx
    columns = list(table.columns)
    red = {(r, columns[c]) for (r, c), css in styles.items() if any("#fde0dc" in v for _, v in css)}
    assert red == {(1, "Narrative's direction"), (1, "Narrative's value")}


def test_case_explorer_shows_the_narratives_of_a_case(tmp_path):
    result = evaluate(usecase="heart", config_overrides=FAST, output_dir=tmp_path / "outputs")
    at = open_page(app(viewed_run=str(result.output_path)), "app_pages/results.py")
    page = texts(at)
    real = result.narratives[~result.narratives["manipulated"]]
    iid = at.selectbox(key="case_pick").value
    for text in real.loc[real["instance_id"] == iid, "text"]:
        assert text in page
    assert "Narratives of this case" in page and "template narrator (built-in, no LLM)" in page
    assert any("Narrative's rank" in d.value.columns for d in at.dataframe)
    assert any("Manipulation check" in e.label for e in at.expander)
