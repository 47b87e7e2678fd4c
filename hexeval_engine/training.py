"""Shared helper for the bundled use cases' training scripts: fit, score, save safely, write a model card."""

from __future__ import annotations

import json
from typing import Callable

import numpy as np
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_score, recall_score, roc_auc_score

from .config import load_config
from .model_loading import file_sha256
from .usecase_data import load_data_for_config
from .usecases import UseCase


def train_usecase(usecase: UseCase, build_pipeline: Callable) -> dict:
    """Fit ``build_pipeline(dataset)`` on the use case's training split, save it as skops, return the model card."""
    import skops.io as sio

    config = load_config(usecase.config_path)
    data = load_data_for_config(usecase.data_path, config, usecase.target)
    pipeline = build_pipeline(data)
    pipeline.fit(data.X_train, data.y_train)
    proba = pipeline.predict_proba(data.X_test)[:, 1]
    pred = (proba >= 0.5).astype(int)
    y = data.y_test.to_numpy()
    card = {
        "usecase": usecase.name,
        "model_type": " → ".join(type(s).__name__ for _, s in pipeline.steps),
        "n_train": int(len(data.X_train)),
        "n_test": int(len(data.X_test)),
        "features": data.feature_names,
        "categorical_features": data.categorical_features,
        "test_roc_auc": float(roc_auc_score(y, proba)),
        "test_accuracy": float(accuracy_score(y, pred)),
        "test_precision": float(precision_score(y, pred, zero_division=0)),
        "test_recall": float(recall_score(y, pred, zero_division=0)),
        "test_f1": float(f1_score(y, pred, zero_division=0)),
        "confusion_matrix": confusion_matrix(y, pred, labels=[0, 1]).tolist(),
        "threshold": 0.5,
        "duplicates_dropped": int(data.quality.duplicates_dropped),
        "positive_rate_test": float(np.mean(y)),
    }
    usecase.model_path.parent.mkdir(parents=True, exist_ok=True)
    sio.dump(pipeline, usecase.model_path)
    card["model_sha256"] = file_sha256(usecase.model_path)
    card["data_sha256"] = file_sha256(usecase.data_path)
    usecase.model_card_path.write_text(json.dumps(card, indent=2), encoding="utf-8")
    return card
