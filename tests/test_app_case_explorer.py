"""Case explorer on a real simulated run with narratives: each persona's own text, readable attribution labels."""

from __future__ import annotations

import pandas as pd
import pytest

from app_helpers import app, open_page
from hexeval_engine import evaluate
from hexeval_ui.ratings_view import escape_markdown
from test_evaluate_e2e import small_config

RESULTS = "app_pages/results.py"


@pytest.fixture
def heart_run(tmp_path, monkeypatch):
    out = tmp_path / "outputs"
    monkeypatch.setenv("HEXEVAL_OUTPUTS", str(out))
    result = evaluate(usecase="heart", config_path=small_config(tmp_path, "heart"), output_dir=out,
                      config_overrides={"narratives": {"enabled": True}}, rater="simulated")
    return result.output_path


def test_narrative_column_shows_the_text_the_selected_persona_read(heart_run):
    ratings = pd.read_csv(heart_run / "persona_ratings.csv", keep_default_na=False)
    stories = ratings[(ratings["explanation_type"] == "Narrative") & (ratings["explanation_text"] != "")]
    iid = int(stories["instance_index"].iloc[0])
    mine = stories[stories["instance_index"] == iid]
    patient = mine.loc[mine["persona_role"] == "Patient", "explanation_text"].iloc[0]
    doctor = mine.loc[mine["persona_role"] == "Lead Cardiologist", "explanation_text"].iloc[0]
    assert patient != doctor, "the fixture needs a lay and a professional narrative"

    at = open_page(app(viewed_run=str(heart_run)), RESULTS)
    at.selectbox(key="case_pick").set_value(iid).run()
    at.selectbox(key="case_persona").set_value("Patient").run()
    assert not at.exception, [e.value for e in at.exception]
    shown = _read_by(at, "Patient")
    assert escape_markdown(patient) in shown, "the Patient's Narrative column shows the lay text the Patient read"
    assert escape_markdown(doctor) not in shown

    at.selectbox(key="case_persona").set_value("Lead Cardiologist").run()
    shown = _read_by(at, "Lead Cardiologist")
    assert escape_markdown(doctor) in shown and escape_markdown(patient) not in shown


def _read_by(at, role: str) -> list[str]:
    """The texts under each "As <role> read it" heading of the explanation columns."""
    values = [m.value for m in at.markdown]
    return [values[i + 1] for i, v in enumerate(values[:-1]) if v == f"**As {role} read it**"]


def test_attribution_numbers_carry_the_features_plain_labels(heart_run):
    at = open_page(app(viewed_run=str(heart_run)), RESULTS)
    weights = [m.value for m in at.markdown if m.value.startswith("**Weights of the largest features")]
    assert weights, "SHAP's numbers are shown outside the technical form"
    body = weights[0]
    assert "the prediction)" in body
    for raw in ("exang", "oldpeak", "thalach", "trestbps", "_"):
        assert raw not in body, f"raw column name {raw!r} in: {body}"
    values = [t.value for t in at.table if list(t.value.columns) == ["Feature", "Value"]]
    assert values and len(values[0]) == 13, "the case's 13 values are on the page, not in a collapsed expander"
    assert not any(e.label.startswith("Feature values of case") for e in at.expander)


def test_each_method_says_what_it_gives_in_words_and_keeps_its_class_name_for_the_technical_form(heart_run):
    at = open_page(app(viewed_run=str(heart_run)), RESULTS)
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert "An if-then rule under which the model keeps this prediction." in captions
    assert "Changes to this case that would flip the prediction." in captions
    class_names = [c for c in captions if "Explainer" in c]  # TreeExplainer, LimeTabularExplainer, ...
    assert class_names, "the technical form still names the algorithm"
    assert all(c.startswith("Algorithm: ") for c in class_names), class_names
    technical = [e for e in at.expander if e.label == "Technical form"]
    assert any("Algorithm: " in c.value for e in technical for c in e.caption)
