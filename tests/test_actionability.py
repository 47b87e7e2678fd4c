"""Actionability: what the person a prediction is about can change, and DiCE honouring it."""

from __future__ import annotations

import logging

import pytest

from hexeval_engine.config.loader import validate_config
from hexeval_engine.errors import ConfigError
from hexeval_engine.runtime.explain import explain_instances
from hexeval_engine.explainers.actionability import (declares_limits, feature_actionability, features_to_vary,
                                                    forbidden_changes)
from hexeval_engine.metrics.compute import compute_instance_metrics
from hexeval_engine.recommend.checks import constraint_findings

NAMES = ["age", "sex", "chol", "ca"]


def test_declarations_defaults_and_the_old_key_read_as_immutable(caplog):
    config = validate_config({"actionability": {"features": {"age": "increase_only", "ca": "not_actionable"}},
                              "evaluation": {"explainers": {"dice": {"immutable_features": ["sex", "age"]}}}})
    with caplog.at_level(logging.WARNING):
        kinds = feature_actionability(config, NAMES)
    # the section wins over the old key for age; sex comes from the old key; chol gets the default
    assert kinds == {"age": "increase_only", "sex": "immutable", "chol": "actionable", "ca": "not_actionable"}
    assert any("deprecated" in r.getMessage() and "immutable_features" in r.getMessage() for r in caplog.records)
    assert features_to_vary(kinds) == ["age", "chol"]


def test_a_declaration_for_a_feature_the_data_lacks_names_it_and_the_fix():
    config = validate_config({"actionability": {"features": {"height": "immutable"}}})
    with pytest.raises(ConfigError, match="height.*Remove or rename"):
        feature_actionability(config, NAMES)


def test_an_unknown_kind_is_a_config_error():
    with pytest.raises(ConfigError):
        validate_config({"actionability": {"features": {"age": "sometimes"}}})


@pytest.mark.parametrize("changes, expected", [
    ({"chol": (250, 190)}, []),
    ({"age": (50, 55)}, []),                  # increase_only, the allowed direction
    ({"age": (50, 45)}, ["age"]),             # against it
    ({"sex": (1, 0), "chol": (250, 190)}, ["sex"]),
    ({"ca": (2, 0)}, ["ca"]),
])
def test_forbidden_changes(changes, expected):
    kinds = {"age": "increase_only", "sex": "immutable", "chol": "actionable", "ca": "not_actionable"}
    assert forbidden_changes(changes, kinds) == expected


def test_bundled_configs_declare_every_feature(usecase_bundle):
    for name in ("heart", "credit_risk"):
        _, config, data, _ = usecase_bundle(name)
        assert set(config.actionability.features) == set(data.feature_names), name


def test_heart_counterfactuals_suggest_no_change_to_a_diagnostic_finding(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    kinds = config.actionability.features
    findings = {f for f, k in kinds.items() if k in ("not_actionable", "immutable")}
    assert {"cp", "ca", "thal", "restecg", "slope", "oldpeak", "exang", "sex"} <= findings
    out = explain_instances(model, data, config, list(range(16)), ["DiCE"])  # case 11 has counterfactuals
    found = [cf for e in out for cf in e.counterfactuals or []]
    assert found, "no counterfactual to check"
    for e in out:
        row = data.X_test.iloc[e.instance_id]
        for cf in e.counterfactuals or []:
            assert not set(cf.changes) & findings, cf.changes
            if "age" in cf.changes:
                assert cf.changes["age"][1] >= row["age"]
        if e.ok:
            assert e.extra["non_actionable_counterfactuals"] == 0
            described = {f: data_description for f, data_description in config.domain.feature_descriptions.items()}
            for f in findings:  # the text offers no finding as a change
                assert f"change {described[f]}" not in e.text.lower()


@pytest.mark.parametrize("raw, declared", [
    ({}, False),                                                             # an upload without a config
    ({"actionability": {"features": {"age": "actionable"}}}, False),          # everything still free
    ({"actionability": {"features": {"age": "increase_only"}}}, True),
    ({"actionability": {"default": "not_actionable"}}, True),
    ({"evaluation": {"explainers": {"dice": {"immutable_features": ["sex"]}}}}, True),
])
def test_a_config_declares_limits_only_when_something_cannot_change(raw, declared):
    assert declares_limits(validate_config(raw)) is declared


def test_without_declared_limits_no_run_claims_its_counterfactuals_are_all_possible(usecase_bundle):
    """With nothing declared every change counts as possible, so "changes the person cannot make: 0" would be true
    by construction (a counterfactual that changes someone's age or sex included): the measure is not recorded,
    and the recommendation says the limits were not declared."""
    _, config, data, model = usecase_bundle("heart")
    raw = config.model_dump(mode="json", exclude={"source"})
    raw["actionability"] = {"features": {}, "default": "actionable"}
    free = validate_config(raw)
    ids = list(range(16))  # case 11 has counterfactuals under the bundled declarations
    declared = compute_instance_metrics(model, data, explain_instances(model, data, config, ids, ["DiCE"]), config)
    undeclared = compute_instance_metrics(model, data, explain_instances(model, data, free, ids, ["DiCE"]), free)
    assert "counterfactual_non_actionable" in set(declared["metric"])
    assert "counterfactual_validity" in set(undeclared["metric"])
    assert "counterfactual_non_actionable" not in set(undeclared["metric"])
    def means(per_instance):  # the recommendation's view: per-method means, as the technical table gives them
        return per_instance.groupby(["method", "metric"], as_index=False)["value"].mean()

    concerns, _ = constraint_findings(means(undeclared), undeclared, "DiCE", free)
    assert any("does not say what the person cannot change" in c for c in concerns), concerns
    concerns, _ = constraint_findings(means(declared), declared, "DiCE", config)
    assert not any("does not say what the person cannot change" in c for c in concerns), concerns
