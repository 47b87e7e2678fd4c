"""An uploaded pipeline that one-hot encodes number-coded columns gets them explained as categories, as the model
reads them: the same columns the test built the pipeline with, a note saying so, the user's own list respected."""

from __future__ import annotations

import pandas as pd
import pytest
import skops.io as sio
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from hexeval_engine import evaluate, get_usecase
from hexeval_engine.models.encoded_columns import model_category_columns
from hexeval_engine.models.model_wrapper import HexevalModel
from hexeval_ui.upload import UploadedFile, check_upload

CATEGORIES = ["cp", "thal"]
SMALL = {"evaluation": {"sample_size": 4, "sanity": {"randomisation_check": False},
                        "explainers": {"anchor": {"max_instances": 4}, "dice": {"max_instances": 2}}},
         "personas": {"enabled": False}, "narratives": {"enabled": False}, "recommendations": {"enabled": False}}


def _heart() -> pd.DataFrame:
    return pd.read_csv(get_usecase("heart").data_path)


def _pipeline(frame: pd.DataFrame, *, by_position: bool = False) -> Pipeline:
    X, y = frame.drop(columns="target"), frame["target"]
    numeric = [c for c in X.columns if c not in CATEGORIES]
    cats = [X.columns.get_loc(c) for c in CATEGORIES] if by_position else CATEGORIES
    nums = [X.columns.get_loc(c) for c in numeric] if by_position else numeric
    pre = ColumnTransformer([("cat", make_pipeline(SimpleImputer(strategy="most_frequent"),
                                                   OneHotEncoder(handle_unknown="ignore")), cats),
                             ("num", StandardScaler(), nums)])
    return Pipeline([("pre", pre), ("lr", LogisticRegression(max_iter=2000))]).fit(X, y)


@pytest.mark.parametrize("by_position", [False, True], ids=["columns by name", "columns by position"])
def test_the_columns_the_pipeline_encodes_are_found(by_position):
    frame = _heart()
    model = HexevalModel.from_artefact(_pipeline(frame, by_position=by_position))
    assert model_category_columns(model) == CATEGORIES


def test_an_upload_explains_encoded_number_columns_as_categories(tmp_path):
    frame = _heart()
    model_path = tmp_path / "model.skops"
    sio.dump(_pipeline(frame), model_path)
    result = evaluate(model_path, get_usecase("heart").data_path, target_column="target", config_overrides=SMALL,
                      save=False)
    assert result.data.categorical_features == CATEGORIES
    assert "ca" in result.data.numeric_features  # the pipeline scales it: it stays a number
    assert any("cp and thal hold numbers" in n and "data.categorical_features" in n for n in result.data.quality.notes)
    rules = [c for e in result.technical.explanations if e.rule is not None for c in e.rule.conditions]
    assert rules, "Anchor explained no case"
    assert all(c.op in ("=", "!=") for c in rules if c.feature in CATEGORIES)  # never "cp <= 1.5"


def test_a_config_that_lists_categorical_columns_is_respected(tmp_path):
    model_path = tmp_path / "model.skops"
    sio.dump(_pipeline(_heart()), model_path)
    overrides = {**SMALL, "data": {"categorical_features": ["cp"]}}
    result = evaluate(model_path, get_usecase("heart").data_path, target_column="target", config_overrides=overrides,
                      save=False)
    assert result.data.categorical_features == ["cp"]
    assert not any("hold numbers" in n for n in result.data.quality.notes)


def test_the_dashboard_upload_check_says_the_same(tmp_path):
    model_path = tmp_path / "model.skops"
    sio.dump(_pipeline(_heart()), model_path)
    check = check_upload(UploadedFile("model.skops", model_path.read_bytes()),
                         UploadedFile("heart.csv", get_usecase("heart").data_path.read_bytes()), "target")
    assert check.ok, check.errors
    assert check.dataset_summary["categorical_features"] == CATEGORIES
    assert any("cp and thal hold numbers" in n for n in check.quality.notes)
