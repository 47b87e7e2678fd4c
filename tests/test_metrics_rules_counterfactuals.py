"""Rule and counterfactual metrics: each moves in its declared direction."""

from __future__ import annotations

import math

import pytest
from metrics_synthetic import mixed_case

from hexeval_engine.explanation import Condition, Counterfactual, Rule
from hexeval_engine.metrics import CounterfactualSpace, counterfactual_metrics, rule_coverage, rule_length, \
    rule_precision
from hexeval_engine.metrics.counterfactuals import diversity, plausibility, proximity, sparsity, validity


def _cond(feature, op, value):
    return Condition(feature, op, value, f"{feature} {op} {value}")


def test_rule_metrics_read_the_rule():
    short = Rule([_cond("grade", "=", "D")], precision=0.97, coverage=0.3)
    long = Rule([_cond("grade", "=", "D"), _cond("age", ">", 40), _cond("rate", "<=", 12)], 0.91, 0.05)
    assert (rule_precision(short), rule_coverage(short), rule_length(short)) == (0.97, 0.3, 1.0)
    assert rule_length(long) > rule_length(short)
    assert rule_length(Rule([], 0.8, 1.0)) == 0.0
    with pytest.raises(ValueError, match="precision"):
        rule_precision(Rule([], 1.4, 0.2))


@pytest.fixture(scope="module")
def space_and_instance():
    case = mixed_case()
    space = CounterfactualSpace.from_data(case.data, immutable_features=["age"], feature_ranges={"rate": (0.0, 20.0)})
    return case, space, case.data.X_test.iloc[0]


def _cf(instance, flips=True, **new):
    row = {**instance.to_dict(), **new}
    return Counterfactual({f: (instance[f], v) for f, v in new.items()}, 0.4, flips, row)


def test_validity_is_share_of_flips(space_and_instance):
    _, _, x = space_and_instance
    assert validity([_cf(x, True, rate=5.0), _cf(x, False, rate=6.0)]) == 0.5
    assert validity([_cf(x, True, rate=5.0)]) == 1.0
    assert validity([]) == 0.0


def test_sparsity_and_proximity_grow_with_the_change(space_and_instance):
    _, space, x = space_and_instance
    near = [_cf(x, rate=x["rate"] + 0.5)]
    far = [_cf(x, rate=x["rate"] + 5.0, income=x["income"] + 20, grade="A" if x["grade"] != "A" else "B")]
    assert sparsity(x, near, space) == 1.0 and sparsity(x, far, space) == 3.0
    assert proximity(x, near, space) < proximity(x, far, space)
    assert proximity(x, near, space) == pytest.approx(0.5 / space.scales["rate"] / 4)


def test_distinct_counterfactuals_raise_diversity(space_and_instance):
    _, space, x = space_and_instance
    similar = [_cf(x, rate=x["rate"] + 1.0), _cf(x, rate=x["rate"] + 1.1)]
    distinct = [_cf(x, rate=x["rate"] + 1.0), _cf(x, income=x["income"] - 15, grade="A" if x["grade"] != "A" else "B")]
    assert diversity(x, distinct, space) > diversity(x, similar, space) > 0
    assert math.isnan(diversity(x, similar[:1], space))


def test_immutable_or_out_of_range_changes_lower_plausibility(space_and_instance):
    _, space, x = space_and_instance
    fine = _cf(x, rate=15.0)
    assert plausibility(x, [fine, fine], space) == 1.0
    assert plausibility(x, [fine, _cf(x, age=int(x["age"]) + 5)], space) == 0.5
    assert plausibility(x, [fine, _cf(x, rate=25.0)], space) == 0.5  # outside the configured range
    assert plausibility(x, [fine, _cf(x, income=10_000.0)], space) == 0.5  # outside the training range
    assert plausibility(x, [fine, _cf(x, grade="Z")], space) == 0.5  # category never seen


def test_no_counterfactual_found(space_and_instance):
    _, space, x = space_and_instance
    values = counterfactual_metrics(x, [], space)
    assert values["counterfactual_validity"] == 0.0
    assert all(math.isnan(v) for k, v in values.items() if k != "counterfactual_validity")


def test_values_come_from_changes_when_row_is_empty(space_and_instance):
    _, space, x = space_and_instance
    cf = Counterfactual({"rate": (x["rate"], x["rate"] + 2.0)}, 0.3, True, {})
    assert sparsity(x, [cf], space) == 1.0
    assert proximity(x, [cf], space) == pytest.approx(2.0 / space.scales["rate"] / 4)


def test_unknown_feature_in_settings_is_rejected():
    case = mixed_case()
    with pytest.raises(ValueError, match="unknown feature"):
        CounterfactualSpace.from_data(case.data, immutable_features=["sex"])
