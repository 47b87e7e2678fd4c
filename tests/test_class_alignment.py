"""A model whose classes_ order puts the positive label first is read the right way round.

scikit-learn sorts ``classes_``, so with a target ``churned``/``stayed`` and positive label
``churned`` the positive probability is column 0. HEXEval must explain P(churned), not P(stayed).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import skops.io as sio
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from xgboost import XGBClassifier

from hexeval_engine import evaluate, load_data, load_model, validate_model_data_compatibility


def _churn(tmp_path, n=400):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"tenure": rng.integers(1, 72, n).astype(float),
                          "contract": rng.choice(["monthly", "yearly"], n)})
    risk = -0.08 * frame["tenure"] + np.where(frame["contract"] == "monthly", 2.0, -1.0) + 1.5
    frame["status"] = np.where(risk + rng.normal(size=n) > 0, "churned", "stayed")
    csv = tmp_path / "churn.csv"
    frame.to_csv(csv, index=False)
    return frame, csv


def test_string_target_positive_label_sorted_first(tmp_path):
    frame, csv = _churn(tmp_path)
    X, y = frame[["tenure", "contract"]], frame["status"]
    pipe = Pipeline([("pre", ColumnTransformer([("oh", OneHotEncoder(), ["contract"])], remainder="passthrough")),
                     ("clf", LogisticRegression(max_iter=1000))]).fit(X, y)
    assert list(pipe.classes_) == ["churned", "stayed"]
    path = tmp_path / "churn.skops"
    sio.dump(pipe, path)

    data = load_data(csv, "status", positive_label="churned")
    model = load_model(path)
    result = validate_model_data_compatibility(model, data)

    assert data.positive_label == "churned"
    assert result["status"] == "valid" and result["checks"]["sample_accuracy"] > 0.7, result
    assert not any("worse than chance" in w for w in result["warnings"])
    expected = pipe.predict_proba(data.X_test)[:, list(pipe.classes_).index("churned")]
    np.testing.assert_allclose(model.predict_proba(data.X_test)[:, 1], expected)
    assert model.positive_index == 0


def test_model_classes_differ_from_target_values_warns(tmp_path):
    frame, csv = _churn(tmp_path)
    X = frame[["tenure"]]
    clf = XGBClassifier(n_estimators=10, max_depth=2).fit(X, (frame["status"] == "churned").astype(int))
    path = tmp_path / "churn.json"
    clf.save_model(path)
    frame[["tenure", "status"]].to_csv(csv, index=False)

    data = load_data(csv, "status", positive_label="churned")
    model = load_model(path)
    result = validate_model_data_compatibility(model, data)

    note = next(w for w in result["warnings"] if "model's classes" in w)
    assert "(0, 1)" in note and "'churned'" in note and "data.positive_label" in note
    assert model.positive_index == 1 and result["checks"]["sample_accuracy"] > 0.7


def test_explanations_name_the_target_labels_when_the_config_does_not(tmp_path):
    frame, csv = _churn(tmp_path)
    X, y = frame[["tenure", "contract"]], frame["status"]
    pipe = Pipeline([("pre", ColumnTransformer([("oh", OneHotEncoder(), ["contract"])], remainder="passthrough")),
                     ("clf", LogisticRegression(max_iter=1000))]).fit(X, y)
    path = tmp_path / "churn.skops"
    sio.dump(pipe, path)
    small = {"data": {"positive_label": "churned"}, "personas": {"enabled": False},
             "evaluation": {"sample_size": 5, "bootstrap_resamples": 100, "stability": {"repeats": 1},
                            "explainers": {"lime": {"num_samples": 100, "stability_subset": 1},
                                           "anchor": {"enabled": False}, "dice": {"enabled": False}}}}
    result = evaluate(path, csv, "status", config_overrides=small, save=False)
    texts = [e.text for e in result.technical.explanations if e.ok]
    assert texts and all("status churned" in t or "status stayed" in t for t in texts), texts[:2]
    assert not any("positive outcome" in t or "negative outcome" in t for t in texts)
    assert result.config.domain.positive_outcome == "status churned"
    # wording the config does set is kept
    worded = small | {"domain": {"positive_outcome": "likely to leave"}}
    assert evaluate(path, csv, "status", config_overrides=worded, save=False).config.domain.positive_outcome \
        == "likely to leave"


def test_class_note_is_not_added_to_missing_feature_errors(tmp_path):
    frame, csv = _churn(tmp_path)
    clf = XGBClassifier(n_estimators=10, max_depth=2).fit(frame[["tenure"]], (frame["status"] == "churned").astype(int))
    path = tmp_path / "churn.json"
    clf.save_model(path)
    frame[["contract", "status"]].to_csv(csv, index=False)  # the model's 'tenure' is missing

    result = validate_model_data_compatibility(load_model(path), load_data(csv, "status", positive_label="churned"))

    assert result["status"] == "invalid"
    assert any("lacks: tenure" in e for e in result["errors"]), result["errors"]
    assert not any("model's classes" in w for w in result["warnings"]), result["warnings"]
