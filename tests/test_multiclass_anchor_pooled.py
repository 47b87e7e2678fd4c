"""Multi-class Anchor: the searches of every class group run together, sharing model calls (issue 21,
second pass), and find the rules a search on each case's own one-class view finds.

Oracle: each class group's view explained on its own by a fresh Anchor explainer (the first pass's path).
"""

from __future__ import annotations

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier

from hexeval_engine import evaluate
from hexeval_engine.explainers.base import explained_classes, instance_seed
from hexeval_engine.explainers.registry import build_explainer
from hexeval_engine.technical.class_groups import case_groups

FEATURES = ["a", "b", "c"]
SETTINGS = {"evaluation": {"sample_size": 9, "bootstrap_resamples": 100,
                           "explainers": {"anchor": {"max_instances": 9}, "dice": {"max_instances": 9},
                                          "lime": {"num_samples": 300, "stability_subset": 2}},
                           "stability": {"repeats": 2}, "sanity": {"randomisation_cases": 2}},
            "personas": {"enabled": False}}


@pytest.fixture(scope="module")
def fruits(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fruits")
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(500, 3)), columns=FEATURES)
    y = np.select([X["a"] > 0.5, X["b"] > 0.0], ["apple", "banana"], "cherry")
    X.assign(fruit=y).to_csv(folder / "data.csv", index=False)
    model = RandomForestClassifier(n_estimators=30, max_depth=5, random_state=0).fit(X, y)
    joblib.dump(model, folder / "m.joblib")
    result = evaluate(folder / "m.joblib", folder / "data.csv", "fruit", output_dir=folder / "runs",
                      allow_pickle=True, config_overrides=SETTINGS)
    return model, result


def test_pooled_rules_equal_each_views_own_search(fruits):
    _, result = fruits
    anchors = {e.instance_id: e for e in result.technical.explanations if e.method == "Anchor"}
    assert len(anchors) == 9
    groups = case_groups(result.model, result.data, result.config, sorted(anchors))
    assert len({g.explained for g in groups}) >= 2  # more than one class: the searches were pooled across views
    state = result.config.evaluation.random_state
    pooled_calls = {e.extra["pooled_model_calls"] for e in anchors.values()}
    separate_calls = 0
    for group in groups:
        X = result.data.X_test.iloc[group.ids][FEATURES].reset_index(drop=True)
        classes, probabilities = explained_classes(group.model, X)
        own = build_explainer("Anchor", group.model, group.data, group.config, seed=0).explain(
            X, group.ids, classes, probabilities, [instance_seed(state, i, "Anchor") for i in group.ids])
        separate_calls += own[0].extra["pooled_model_calls"]
        for e in own:
            mine = anchors[e.instance_id]
            assert [(c.feature, c.op, c.value) for c in mine.rule.conditions] == \
                [(c.feature, c.op, c.value) for c in e.rule.conditions]
            assert mine.rule.precision == pytest.approx(e.rule.precision, abs=1e-12)
            assert mine.rule.coverage == pytest.approx(e.rule.coverage, abs=1e-12)
            assert mine.extra["class_view"]["name"] == group.task.name(group.explained)
    assert len(pooled_calls) == 1 and pooled_calls.pop() < separate_calls




def test_instance_metrics_name_the_explained_class(fruits):
    model, result = fruits
    table = pd.read_csv(result.output_path / "instance_metrics.csv")
    X_test = result.data.X_test[FEATURES]
    expected = {int(i): f"fruit {model.predict(X_test.iloc[[int(i)]])[0]}" for i in table["instance_id"].unique()}
    assert set(table["method"]) >= {"SHAP", "LIME", "Anchor", "DiCE", "Random"}
    assert (table["explained_class"] == table["instance_id"].map(expected)).all()
