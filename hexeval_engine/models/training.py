"""Shared helper for the bundled use cases' training scripts: fit, score, save safely, write a model card."""

from __future__ import annotations

import json
from typing import Callable

from ..config import load_config
from ..data.usecase_data import load_data_for_config
from ..usecases import UseCase
from .model_loading import file_sha256
from .model_performance import class_performance, performance_from_scores, value_performance


def train_usecase(usecase: UseCase, build_pipeline: Callable) -> dict:
    """Fit ``build_pipeline(dataset)`` on the use case's training split, save it as skops, return the model card."""
    config = load_config(usecase.config_path)
    data = load_data_for_config(usecase.data_path, config, usecase.target)
    pipeline = build_pipeline(data)
    if data.is_regression:
        pipeline.fit(data.X_train, data.y_train)
        performance = value_performance(data.y_test.to_numpy(), pipeline.predict(data.X_test),
                                        y_train=data.y_train.to_numpy(), n_train=len(data.X_train),
                                        leaking_test_rows=data.quality.duplicates_crossing_split)
        return _save(usecase, pipeline, data, performance)
    multi = data.n_classes > 2
    # a multi-class model is fitted on the target's own values, so its classes_ are the labels texts name
    pipeline.fit(data.X_train, _labels(data, data.y_train) if multi else data.y_train)
    leaking = data.quality.duplicates_crossing_split
    performance = (class_performance(data.y_test.to_numpy(), pipeline.predict_proba(data.X_test),
                                     class_labels=data.class_labels, n_train=len(data.X_train),
                                     leaking_test_rows=leaking) if multi else
                   performance_from_scores(data.y_test.to_numpy(), pipeline.predict_proba(data.X_test)[:, 1],
                                           threshold=0.5, class_labels=data.class_labels,
                                           n_train=len(data.X_train), leaking_test_rows=leaking))
    return _save(usecase, pipeline, data, performance)


def _save(usecase: UseCase, pipeline, data, performance: dict) -> dict:
    """Save the fitted pipeline as skops and its model card; return the card."""
    import skops.io as sio  # loaded only when a bundled model is trained and saved

    card = {
        "usecase": usecase.name,
        "model_type": " → ".join(type(s).__name__ for _, s in pipeline.steps),
        "features": data.feature_names,
        "categorical_features": data.categorical_features,
        **performance,
        "duplicates_dropped": int(data.quality.duplicates_dropped),
        "data_remedies": dict(data.quality.remedies),
    }
    usecase.model_path.parent.mkdir(parents=True, exist_ok=True)
    sio.dump(pipeline, usecase.model_path)
    card["model_sha256"] = file_sha256(usecase.model_path)
    card["data_sha256"] = file_sha256(usecase.data_path)
    usecase.model_card_path.write_text(json.dumps(card, indent=2), encoding="utf-8")
    return card


def _labels(data, y):
    """Class indices as the target's own values (``data.class_labels``)."""
    return y.map(dict(enumerate(data.class_labels)))
