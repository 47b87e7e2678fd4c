"""A model's kind reads in words first, its class names after, wherever a person reads it."""

from __future__ import annotations

from hexeval_engine.models.model_words import model_words
from hexeval_engine.report.sections import model_data_section


def test_known_kinds_read_in_words_with_the_technical_form_after():
    assert model_words("ColumnTransformer → RandomForestClassifier") == \
        "Random forest (ColumnTransformer → RandomForestClassifier)"
    assert model_words("XGBClassifier") == "Gradient-boosted trees (XGBoost) (XGBClassifier)"
    assert model_words("OneHotEncoder → StandardScaler → LogisticRegression").startswith("Logistic regression (")


def test_an_unknown_class_keeps_its_name_and_nothing_reads_model():
    assert model_words("MyOwnScorer") == "MyOwnScorer"
    assert model_words("") == "Model" and model_words(None) == "Model"


def test_report_names_the_model_in_words():
    html = model_data_section({"model": {"type": "ColumnTransformer → RandomForestClassifier", "source": "m.skops"}})
    assert "Random forest (ColumnTransformer → RandomForestClassifier)" in html
