"""Explainers: raw-feature outputs, the explained class, determinism, DiCE constraints, fallbacks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.config.loader import deep_merge, validate_config
from hexeval_engine.errors import ConfigError, DataError
from hexeval_engine.runtime.explain import explain_instances
from hexeval_engine.explainers.anchor_explainer import AnchorExplainer
from hexeval_engine.explainers.base import explained_classes, instance_seed
from hexeval_engine.explainers.feature_mapping import output_to_raw
from hexeval_engine.models.model_wrapper import HexevalModel

SMALL = {"evaluation": {"explainers": {"lime": {"num_samples": 200}}}}


def small(config, extra=None):
    raw = deep_merge(config.model_dump(mode="json", exclude={"source"}), SMALL)
    return validate_config(deep_merge(raw, extra or {}))


#: Every feature but age and sex free, so DiCE finds counterfactuals for the shared cases of these raw-feature
#: tests (the bundled declarations leave a patient few levers; tests/test_actionability.py checks them).
FREE = {"age": "increase_only", "sex": "immutable"}


@pytest.fixture(scope="module")
def heart(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    free = {"actionability": {"features": {f: FREE.get(f, "actionable") for f in data.feature_names}}}
    return small(config, free), data, model


@pytest.fixture(scope="module")
def credit(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    return small(config), data, model


@pytest.fixture(scope="module")
def heart_explanations(heart):
    config, data, model = heart
    return explain_instances(model, data, config, [0, 1, 2, 3])


def test_feature_mapping_sums_one_hot_columns_to_raw_features(heart):
    _, data, model = heart
    mapping = output_to_raw(model, data.feature_names)
    assert mapping is not None and len(mapping) == model.transform(data.X_test.iloc[:1]).shape[1]
    names = [data.feature_names[j] for j in mapping]
    assert names.count("cp") == len(data.coder.categories["cp"])
    assert names.count("age") == 1
    assert set(names) == set(data.feature_names)


def test_every_method_explains_the_predicted_class_in_raw_features(heart, heart_explanations):
    config, data, model = heart
    classes, probabilities = explained_classes(model, data.X_test.iloc[[0, 1, 2, 3]])
    by_method = {}
    for e in heart_explanations:
        assert e.ok, e.error
        by_method.setdefault(e.method, []).append(e)
        k = [0, 1, 2, 3].index(e.instance_id)
        assert e.predicted_class == classes[k]
        assert e.probability == pytest.approx(probabilities[k])
        assert set(e.importance) == set(data.feature_names)
        assert e.text and e.technical_text
    assert list(by_method) == ["SHAP", "LIME", "Anchor", "DiCE", "Random"]
    assert {e.predicted_class for e in heart_explanations} == {0, 1}, "sample should cover both classes"


def test_tree_shap_attributions_sum_to_the_pipeline_probability(heart, heart_explanations):
    _, data, model = heart
    for e in [e for e in heart_explanations if e.method == "SHAP"]:
        assert list(e.attributions) == list(data.feature_names)
        assert e.algorithm.startswith("TreeExplainer")
        total = sum(e.attributions.values()) + e.extra["base_value"]
        assert total == pytest.approx(e.probability, abs=1e-6)


def test_shap_on_xgboost_uses_probability_output_and_is_additive(credit):
    config, data, model = credit
    out = explain_instances(model, data, config, [0, 9, 20], ["SHAP"])
    for e in out:
        assert "interventional" in e.algorithm
        assert sum(e.attributions.values()) + e.extra["base_value"] == pytest.approx(e.probability, abs=1e-4)


def test_model_agnostic_shap_for_non_tree_pipelines(heart):
    """Neither tree nor linear (linear pipelines get exact linear SHAP, see test_linear_shap.py)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    config, data, _ = heart
    pipe = Pipeline([("pre", ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), data.categorical_features),
                                                ("num", StandardScaler(), data.numeric_features)])),
                     ("knn", KNeighborsClassifier(15))]).fit(data.X_train, data.y_train)
    model = HexevalModel.from_artefact(pipe)
    cfg = small(config, {"evaluation": {"explainers": {"shap": {"background_size": 20}}}})
    (e,) = explain_instances(model, data, cfg, [5], ["SHAP"])
    assert e.algorithm.startswith("PermutationExplainer")
    assert set(e.attributions) == set(data.feature_names)
    assert sum(e.attributions.values()) + e.extra["base_value"] == pytest.approx(e.probability, abs=1e-6)


def test_anchor_rules_speak_in_raw_values_and_labels(heart, heart_explanations):
    _, data, _ = heart
    coder = data.coder
    rules = [e.rule for e in heart_explanations if e.method == "Anchor"]
    assert any(r.conditions for r in rules)
    for rule in rules:
        assert 0 <= rule.precision <= 1 and 0 <= rule.coverage <= 1
        for c in rule.conditions:
            assert c.feature in data.feature_names
            assert c.text.startswith(c.feature) or c.op == "in"
            if c.op == "=":
                assert c.value in coder.categories[c.feature]
                assert c.text == f"{c.feature} = {coder.label(c.feature, c.value)}"
            else:
                assert c.feature in data.numeric_features
    cp_values = set(coder.categories["cp"])
    labels = {coder.label("cp", v) for v in cp_values}
    assert "typical angina" in labels  # value labels from the use case are what rules show


def test_anchor_conditions_hold_for_the_explained_instance(credit):
    config, data, model = credit
    ids = [0, 1, 2]
    for e in explain_instances(model, data, config, ids, ["Anchor"]):
        row = data.X_test.iloc[e.instance_id]
        for c in e.rule.conditions:
            value = row[c.feature]
            if c.op == "=":
                assert value == c.value
            elif c.op == ">":
                assert value > c.value
            elif c.op == "<=":
                assert value <= c.value
            else:
                assert c.value[0] < value <= c.value[1]


def test_pooled_anchor_searches_equal_searches_alone(heart):
    config, data, model = heart
    ids = [0, 3]
    X = data.X_test.iloc[ids].reset_index(drop=True)
    classes, probabilities = explained_classes(model, X)
    seeds = [instance_seed(42, i, "Anchor") for i in ids]
    together = AnchorExplainer(model, data, config).explain(X, ids, classes, probabilities, seeds)
    for k in range(len(ids)):
        (alone,) = AnchorExplainer(model, data, config).explain(X.iloc[[k]], [ids[k]], classes[k:k + 1],
                                                                probabilities[k:k + 1], seeds[k:k + 1])
        assert alone.rule == together[k].rule


def test_dice_respects_immutable_features_and_ranges(credit):
    config, data, model = credit
    settings = config.evaluation.explainers.dice
    out = explain_instances(model, data, config, [0, 1, 2], ["DiCE"])
    assert any(e.counterfactuals for e in out)
    for e in out:
        row = data.X_test.iloc[e.instance_id]
        for cf in e.counterfactuals:
            kinds = config.actionability.features
            assert not {f for f in cf.changes if kinds.get(f) in ("immutable", "not_actionable")}
            assert e.extra["non_actionable_counterfactuals"] == 0
            assert set(cf.row) == set(data.feature_names)
            for feature, (old, new) in cf.changes.items():
                assert old == row[feature] or (pd.isna(old) and pd.isna(row[feature]))
                if kinds.get(feature) == "increase_only":
                    assert new >= old, (feature, old, new)
                if feature in settings.feature_ranges:
                    low, high = settings.feature_ranges[feature]
                    assert min(low, old) <= new <= max(high, old)
                if feature in data.categorical_features:
                    assert new in data.coder.categories[feature]
            assert cf.flips == (cf.probability < 0.5)
        shares = e.importance
        assert e.importance_derived and set(shares) == set(data.feature_names)
        if e.counterfactuals:
            changed = {f for cf in e.counterfactuals for f in cf.changes}
            assert {f for f, v in shares.items() if v > 0} == changed


def test_instances_with_missing_values_are_explained(credit):
    config, data, model = credit
    missing = np.flatnonzero(data.X_test[["person_emp_length", "loan_int_rate"]].isna().any(axis=1).to_numpy())
    iid = int(missing[0])
    out = explain_instances(model, data, config, [iid], ["LIME", "Anchor", "DiCE"])
    for e in out:
        assert e.ok, e.error
        assert e.extra["filled_for_explainer"]


def test_rendering_uses_descriptions_and_value_labels(heart, heart_explanations):
    config, _, _ = heart
    shap_text = next(e.text for e in heart_explanations if e.method == "SHAP")
    descriptions = config.domain.feature_descriptions.values()
    assert any(d in shap_text for d in descriptions)
    assert config.domain.positive_outcome in shap_text or config.domain.negative_outcome in shap_text
    dice = next(e for e in heart_explanations if e.method == "DiCE" and e.counterfactuals)
    assert "would become" in dice.text and "CF1" in dice.technical_text


def test_same_seed_same_lime_explanation_and_other_seed_differs(heart):
    config, data, model = heart
    a = explain_instances(model, data, config, [3], ["LIME"], seed=1)[0]
    b = explain_instances(model, data, config, [3], ["LIME"], seed=1)[0]
    c = explain_instances(model, data, config, [3], ["LIME"], seed=2)[0]
    assert a.attributions == b.attributions
    assert a.attributions != c.attributions


def test_bad_requests_raise_hexeval_errors(heart):
    config, data, model = heart
    with pytest.raises(DataError, match="not rows of the test set"):
        explain_instances(model, data, config, [len(data.X_test)], ["SHAP"])
    with pytest.raises(ConfigError, match="Unknown explanation method"):
        explain_instances(model, data, config, [0], ["GradCAM"])
    bad = small(config, {"evaluation": {"explainers": {"dice": {"immutable_features": ["height"]}}}})
    (e,) = explain_instances(model, data, bad, [0], ["DiCE"])
    assert "height" in e.error and "immutable_features" in e.error


def test_tree_shap_stays_exact_when_the_positive_label_sorts_first(tmp_path):
    """churned/stayed with positive 'churned': predict_proba column 0 is positive; tree SHAP must use it
    (explaining column 1 fails the additivity check and falls back to the approximate permutation method)."""
    import numpy as np
    import pandas as pd
    import skops.io as sio
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    from hexeval_engine import load_config, load_data, load_model
    from hexeval_engine.runtime.explain import explain_instances

    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({"tenure": rng.integers(1, 60, n), "plan": rng.choice(["monthly", "yearly"], n),
                      "spend": rng.normal(50, 15, n).round(1)})
    churn = (X["tenure"] < 15) ^ (rng.random(n) < 0.15)
    csv = tmp_path / "churn.csv"
    X.assign(status=np.where(churn, "churned", "stayed")).to_csv(csv, index=False)
    data = load_data(csv, "status", positive_label="churned")
    pre = ColumnTransformer([("plan", OneHotEncoder(), ["plan"])], remainder="passthrough")
    y_text = np.where(data.y_train == 1, "churned", "stayed")
    pipe = Pipeline([("pre", pre), ("model", RandomForestClassifier(50, max_depth=4, random_state=0))])
    sio.dump(pipe.fit(data.X_train, y_text), tmp_path / "m.skops")
    model = load_model(tmp_path / "m.skops")
    from hexeval_engine import validate_model_data_compatibility

    assert validate_model_data_compatibility(model, data)["status"] == "valid"  # aligns classes as evaluate() does
    assert model.positive_index == 0
    config = load_config(overrides={"personas": {"enabled": False}})
    explanations = explain_instances(model, data, config, [0, 1, 2], methods=["SHAP"])
    assert all(e.algorithm.startswith("TreeExplainer") for e in explanations), [e.algorithm for e in explanations]
