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


def test_the_randomisation_check_gives_wide_re_runs_the_real_searches_budget_and_says_so():
    from hexeval_engine.technical import sanity
    from hexeval_engine.technical.run import TechnicalResult

    data, model = _wide_case()
    config = HexevalConfig()
    config.evaluation.sanity.randomisation_cases = 3
    ids = [0, 1, 2]
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = explained_classes(model, X)
    seeds = [instance_seed(config.evaluation.random_state, i, "Anchor") for i in ids]
    real = ae.AnchorExplainer(model, data, config).explain(X, ids, classes, probabilities, seeds)
    empty = pd.DataFrame()
    technical = TechnicalResult(metrics=empty, metrics_long=empty, per_instance=empty, explanations=real,
                                instance_ids=ids, shared_instance_ids=ids)
    requests = {e.instance_id: e.extra["model_requests"] for e in real}
    plan = sanity._rerun_plan(technical.explanation, "Anchor", ids, set(ids), config, sanity.rerun_factor(data))
    assert plan == ([0, 1, 2], tuple(max(requests[i], 16) for i in ids))  # as many as the real search, not twice

    out = sanity.randomisation_check(model, data, config, technical)
    anchor = out["methods"]["Anchor"]
    assert anchor["n"] == 3 and anchor["rerun_request_factor"] == 1
    note = sanity.wide_budget_note(len(data.feature_names))
    assert note in out["notes"] and f"{len(data.feature_names)} feature columns" in note
    assert anchor["stopped_at_real_budget"] >= 1  # a model without signal: its searches reach the cap
    assert out["notes"][0] == sanity.stopped_note(anchor["stopped_at_real_budget"], 3, 1)
    assert "(as many model requests as the real search of the same case made, at least 16)" in out["notes"][0]

    narrow = data.feature_names[:sanity.WIDE_RERUN_COLUMNS - 1]
    assert sanity.rerun_factor(type("Narrow", (), {"feature_names": narrow})) == 2
