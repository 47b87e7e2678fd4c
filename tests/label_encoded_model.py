"""A bare XGBClassifier trained as the original HEXEval trains its credit model: every text column
coded with scikit-learn's LabelEncoder (sorted categories -> 0, 1, ...), no pipeline."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from sklearn.preprocessing import LabelEncoder
from xgboost import XGBClassifier

from hexeval_engine import get_usecase


def label_encoded_credit_model(folder: Path, rows: int = 6000) -> tuple[Path, Path]:
    """(model.json, data.csv): the first ``rows`` credit-risk rows and a bare XGBoost trained on them."""
    frame = pd.read_csv(get_usecase("credit_risk").data_path).head(rows)
    data_path = folder / "credit_sample.csv"
    frame.to_csv(data_path, index=False)
    X = frame.drop(columns="loan_status")
    for col in X.columns:
        if not pd.api.types.is_numeric_dtype(X[col]):
            X[col] = LabelEncoder().fit_transform(X[col])
    model = XGBClassifier(n_estimators=40, max_depth=4, learning_rate=0.2, random_state=0, n_jobs=1)
    model.fit(X, frame["loan_status"])
    model_path = folder / "credit_label_encoded.json"
    model.save_model(model_path)
    return model_path, data_path
