"""The binary no-signal check on a target with text labels (issue 21, first pass left it comparing the
encoded 0/1 target with the label text, so every row looked negative).

Oracle: scikit-learn's ``roc_auc_score`` on the text target compared with the positive label, and the
classifier's own ``predict_proba`` column for that label.
"""

from __future__ import annotations

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from hexeval_engine.config import load_config
from hexeval_engine.data.dataset import load_data
from hexeval_engine.models.compatibility import validate_model_data_compatibility
from hexeval_engine.models.model_loading import load_model
from hexeval_engine.technical.sanity import signal_check


@pytest.mark.parametrize("positive", ["churned", "stayed"])
def test_signal_check_with_text_labels_matches_scikit_learn(tmp_path, positive):
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["tenure", "calls", "spend"])
    churn = X["calls"] - X["tenure"] + 0.5 * rng.normal(size=400) > 0
    frame = X.assign(outcome=np.where(churn, "churned", "stayed"))
    csv = tmp_path / "churn.csv"
    frame.to_csv(csv, index=False)
    model = LogisticRegression().fit(X, frame["outcome"])
    joblib.dump(model, tmp_path / "m.joblib")

    data = load_data(csv, "outcome", positive_label=positive)
    wrapped = load_model(tmp_path / "m.joblib", allow_pickle=True, data=data)
    validate_model_data_compatibility(wrapped, data)
    check = signal_check(wrapped, data, load_config())

    # the held-out rows' text labels, looked up in the file by their feature values (the split renumbers rows)
    truth = {tuple(r): label for r, label in zip(X.to_numpy().tolist(), frame["outcome"])}
    held_out = data.X_test[list(X.columns)]
    labels = np.array([truth[tuple(r)] for r in held_out.to_numpy().tolist()])
    column = list(model.classes_).index(positive)
    expected = roc_auc_score(labels == positive, model.predict_proba(held_out)[:, column])
    assert expected > 0.8
    assert check["roc_auc"] == pytest.approx(expected, abs=1e-12)
    assert check["has_signal"] and check["roc_auc_ci_low"] > 0.5
