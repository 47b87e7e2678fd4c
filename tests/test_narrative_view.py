"""The case explorer shows each narrative beside the attribution it tells, with disagreements in red."""

from __future__ import annotations

import pandas as pd
from app_helpers import app, open_page, texts

from hexeval_engine import evaluate
from hexeval_ui.narrative_view import readback_lines

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


def test_the_read_back_is_a_sentence_per_feature_with_the_disagreements_in_red():
    """The earlier walk: a seven-column table (Feature, Rank, Narrative's rank, Direction, …) scrolled sideways on a
    phone and repeated what agreed; each feature is now one sentence that says only what differs."""
    lines = readback_lines(_checks())
    assert lines == [
        ":green[:material/check:] **chest pain type** (ranked 1st, towards the prediction, value typical angina): "
        "the narrative says the same.",
        ":red[:material/close: **maximum heart rate achieved** (ranked 2nd, away from the prediction, value 150): the "
        "narrative says it points towards the prediction and gives its value as 172.]",
        ":gray[**number of major vessels** (ranked 3rd, towards the prediction, value 2): the narrative leaves it out.]"]


def test_case_explorer_shows_the_narratives_of_a_case(tmp_path):
    result = evaluate(usecase="heart", config_overrides=FAST, output_dir=tmp_path / "outputs")
    at = open_page(app(viewed_run=str(result.output_path)), "app_pages/results.py")
    page = texts(at)
    real = result.narratives[~result.narratives["manipulated"]]
    iid = at.selectbox(key="case_pick").value
    for text in real.loc[real["instance_id"] == iid, "text"]:
        assert text in page
    assert "Narratives of this case" in page and "template narrator (built-in, no LLM)" in page
    assert "Read back, feature by feature" in page and "the narrative says the same." in page
    assert any("Manipulation check" in e.label for e in at.expander)
