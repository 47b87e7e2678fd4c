"""Anchor on wide data (issue 36, item 5: 300 numeric columns): what changes there and what must not."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from xgboost import XGBClassifier

from hexeval_engine.explainers import anchor_explainer as ae
from hexeval_engine.explainers.base import explained_classes, instance_seed
from hexeval_engine.models.model_wrapper import HexevalModel
from metrics_synthetic import _dataset

from hexeval_engine.config import HexevalConfig


def _wide_case(columns=ae.UNCACHED_COLUMNS, rows=300, seed=36):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(rows, columns))
    X = pd.DataFrame(values, columns=[f"m{i:03d}" for i in range(columns)]).round(3)
    y = pd.Series((values[:, 0] - values[:, 1] > 0).astype(int), name="y")
    data = _dataset(X, y, [], n_train=rows * 4 // 5)
    pipe = Pipeline([("impute", SimpleImputer(strategy="median")),
                     ("model", XGBClassifier(n_estimators=10, max_depth=2, n_jobs=1, random_state=0))])
    return data, HexevalModel.from_artefact(pipe.fit(data.X_train, data.y_train))


def _explain(data, model, ids):
    config = HexevalConfig()
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = explained_classes(model, X)
    seeds = [instance_seed(config.evaluation.random_state, i, "Anchor") for i in ids]
    explainer = ae.AnchorExplainer(model, data, config)
    out = explainer.explain(X, ids, classes, probabilities, seeds)
    return [(e.rule.conditions, e.rule.precision, e.rule.coverage, e.extra["model_requests"]) for e in out], explainer


def test_wide_data_sends_rows_uncached_and_finds_the_same_rules(monkeypatch):
    data, model = _wide_case()
    wide, explainer = _explain(data, model, [0, 1])
    assert not explainer.predictor.cache
    monkeypatch.setattr(ae, "UNCACHED_COLUMNS", 10**6)  # the oracle: the same searches with the row cache
    cached, cached_explainer = _explain(data, model, [0, 1])
    assert cached_explainer.predictor.cache
    assert wide == cached
    assert explainer.predictor.rows > cached_explainer.predictor.rows  # repeated rows were really sent again
