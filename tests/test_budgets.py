"""Per-instance time budgets and the memory-aware row cap: slow cases fail alone, results stay the same."""

from __future__ import annotations

import time

import numpy as np
import pytest

from hexeval_engine.config.loader import deep_merge, validate_config
from hexeval_engine.explainers import base
from hexeval_engine.runtime.explain import explain_instances
from hexeval_engine.explainers.base import CodedPredictor, ExplainerSpace, TimeBudgetExceeded
from hexeval_engine.runtime.lockstep import run_lockstep
from hexeval_engine.explainers.shap_explainer import ShapExplainer
from hexeval_engine.models.model_wrapper import HexevalModel


def _with(config, extra):
    return validate_config(deep_merge(config.model_dump(mode="json", exclude={"source"}), extra))


def test_a_search_over_budget_fails_alone_and_the_others_finish():
    def search(slow):
        def run(predict):
            total = 0.0
            for _ in range(3):
                if slow:
                    time.sleep(0.05)  # its own time, while it holds the baton
                total += float(predict(np.ones((2, 1))).sum())
            return total
        return run

    results = run_lockstep([search(False), search(True), search(False)], [1, 2, 3], lambda M: M[:, 0] * 0.5,
                           budget_seconds=0.08, budget_setting="evaluation.explainers.anchor.time_budget_seconds")
    assert results[0] == results[2] == 3.0
    assert isinstance(results[1], TimeBudgetExceeded)
    message = str(results[1])
    assert "time budget of 0.08 s per case" in message
    assert "evaluation.explainers.anchor.time_budget_seconds" in message


def test_a_pooled_model_call_is_charged_to_the_searches_by_rows():
    def search(rows):
        def run(predict):
            return predict(np.ones((rows, 1)))
        return run

    def slow_model(M):
        time.sleep(0.2)
        return M[:, 0]

    # one call of 0.2 s shared 1 : 99 by rows: the big search is over a 0.1 s budget at its next request
    results = run_lockstep([lambda p: (search(1)(p), search(1)(p)), lambda p: (search(99)(p), search(99)(p))],
                           [1, 2], slow_model, budget_seconds=0.1, budget_setting="x")
    assert not isinstance(results[0], BaseException)
    assert isinstance(results[1], TimeBudgetExceeded)


def test_anchor_over_budget_is_a_recorded_failure_and_other_methods_go_on(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    config = _with(config, {"evaluation": {"explainers": {"anchor": {"time_budget_seconds": 1e-6},
                                                          "lime": {"num_samples": 100}}}})
    out = explain_instances(model, data, config, [0, 1], ["LIME", "Anchor"])
    lime = [e for e in out if e.method == "LIME"]
    anchor = [e for e in out if e.method == "Anchor"]
    assert all(e.ok for e in lime)
    assert all(not e.ok and "over the time budget" in e.error and "anchor.time_budget_seconds" in e.error
               for e in anchor)
    predicates = len(data.categorical_features) + 3 * len(data.numeric_features)  # at most
    counts = [int(e.error.split(" candidate conditions on ")[0].split()[-1]) for e in anchor]
    assert all(0 < n <= predicates for n in counts)  # why it stopped: how many conditions it was ranking
    assert all(f"on {len(data.feature_names)} features" in e.error for e in anchor)


def _knn(data):
    from sklearn.compose import ColumnTransformer
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    pre = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), data.categorical_features),
                             ("num", StandardScaler(), data.numeric_features)])
    return HexevalModel.from_artefact(Pipeline([("pre", pre), ("knn", KNeighborsClassifier(15))])
                                      .fit(data.X_train, data.y_train))


def test_permutation_shap_row_by_row_equals_one_batched_call_and_fails_rows_over_budget(usecase_bundle):
    import shap

    _, config, data, _ = usecase_bundle("heart")
    model = _knn(data)
    config = _with(config, {"evaluation": {"explainers": {"shap": {"background_size": 10}}}})
    X = data.X_test.iloc[:3][list(data.feature_names)].reset_index(drop=True)
    positive = model.predict_proba(X)[:, 1]
    explainer = ShapExplainer(model, data, config, seed=9)
    phi, base_values = explainer.attributions(X, np.ones(3, dtype=int), positive)
    assert explainer.algorithm.startswith("PermutationExplainer") and not explainer.failed_rows

    coder = data.coder  # the same explainer, one batched call (as before budgets)
    masker = shap.maskers.Independent(coder.encode(explainer.background), max_samples=len(explainer.background))
    batched = shap.PermutationExplainer(lambda Z: model.predict_proba(coder.decode(Z))[:, 1], masker,
                                        seed=9)(coder.encode(X), max_evals=500, silent=True)
    np.testing.assert_array_equal(phi, batched.values)
    np.testing.assert_array_equal(base_values, batched.base_values)

    tight = ShapExplainer(model, data, _with(config, {"evaluation": {"explainers": {"shap": {
        "time_budget_seconds": 1e-6}}}}), seed=9)
    explanations = tight.explain(X, [0, 1, 2], np.ones(3, dtype=int), positive)
    assert all(not e.ok and "shap.time_budget_seconds" in e.error for e in explanations)


def test_model_calls_are_split_at_the_memory_cap_with_the_same_answers(usecase_bundle, monkeypatch):
    _, _, data, model = usecase_bundle("credit_risk")
    space = ExplainerSpace.from_data(data)
    M = space.train[:3000]
    whole = CodedPredictor(model, data.coder).positive(M)
    assert base.rows_per_call(300) < base.rows_per_call(30)  # wider rows, fewer per call
    monkeypatch.setattr(base, "MODEL_CALL_MEMORY_BYTES", base.BYTES_PER_CELL * len(data.feature_names) * 1000)
    assert base.rows_per_call(len(data.feature_names)) == 1000
    split = CodedPredictor(model, data.coder)
    np.testing.assert_array_equal(split.positive(M), whole)
    assert split.calls == 3


def test_budget_must_be_positive(usecase_bundle):
    from hexeval_engine.errors import ConfigError

    _, config, _, _ = usecase_bundle("heart")
    with pytest.raises(ConfigError, match="time_budget_seconds"):
        _with(config, {"evaluation": {"explainers": {"dice": {"time_budget_seconds": 0}}}})
