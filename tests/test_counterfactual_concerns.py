"""What a recommendation card says of a method's counterfactuals and rules: the counts it gives are the data's.

The walk of 29 Nov 2026: on heart, DiCE found no counterfactual for 12 of 20 cases and every one of the 24 it found
flipped the prediction, yet the Patient's card said "60% of its counterfactuals do not change the model's
prediction" and "about 47 of 60 counterfactuals are implausible" (a case without counterfactuals scores 0 in both
means, and 60 was three per case whether found or not).
"""

from __future__ import annotations

import pandas as pd

from hexeval_engine.metrics.compute import compute_instance_metrics
from hexeval_engine.recommend.checks import constraint_findings
from hexeval_engine.runtime.explain import explain_instances


def _means(per_instance: pd.DataFrame) -> pd.DataFrame:  # the technical table's view: per-method means
    return per_instance.groupby(["method", "metric"], as_index=False)["value"].mean()


def test_the_card_counts_cases_without_counterfactuals_and_only_the_counterfactuals_found(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    ids = list(range(20))
    explanations = explain_instances(model, data, config, ids, ["DiCE"])
    per_instance = compute_instance_metrics(model, data, explanations, config)
    # the oracle: the explanations themselves
    found = [e for e in explanations if e.counterfactuals]
    empty = len(explanations) - len(found)
    with_invalid = sum(1 for e in found if not all(cf.flips for cf in e.counterfactuals))
    assert 0 < empty < len(explanations), "the sample must hold cases with and without counterfactuals"

    concerns, excluded = constraint_findings(_means(per_instance), per_instance, "DiCE", config)
    text = " | ".join(concerns)
    assert excluded is None
    assert f"it found no counterfactual for {empty} of {len(explanations)} cases" in concerns, text
    if with_invalid:
        assert (f"in {with_invalid} of the {len(found)} cases it found counterfactuals for, some do not change the "
                "model's prediction") in concerns, text
    else:
        assert "do not change the model's prediction" not in text
    assert "of 60 counterfactuals" not in text and "% of its counterfactuals" not in text
    implausible = [c for c in concerns if "implausible" in c]
    for concern in implausible:  # a count of cases among those with counterfactuals, never more
        assert f"of the {len(found)} cases it found counterfactuals for" in concern, concern


def test_a_method_that_found_no_counterfactual_at_all_is_left_out_for_that_reason(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    explanations = explain_instances(model, data, config, list(range(20)), ["DiCE"])
    empty = [e for e in explanations if not e.counterfactuals]
    per_instance = compute_instance_metrics(model, data, empty, config)
    _, excluded = constraint_findings(_means(per_instance), per_instance, "DiCE", config)
    assert excluded == f"it found no counterfactual for any of the {len(empty)} cases"


def test_a_rule_concern_gives_the_mean_cover_of_its_rules_not_a_sum_of_overlapping_rows():
    """The audit of 29 Nov: "on 192 covered test rows" was the sum of 20 rules' coverage of the same 61 held-out
    rows."""
    from hexeval_engine.config.loader import validate_config

    config = validate_config({})
    threshold = config.evaluation.explainers.anchor.precision_threshold
    precision, support = [threshold - 0.2, threshold - 0.1, threshold], [5, 7, 9]
    per_instance = pd.DataFrame(
        [{"method": "Anchor", "instance_id": i, "metric": "rule_precision_test", "value": p, "derived": False}
         for i, p in enumerate(precision)]
        + [{"method": "Anchor", "instance_id": i, "metric": "rule_support_test", "value": float(n), "derived": False}
           for i, n in enumerate(support)])
    concerns, _ = constraint_findings(_means(per_instance), per_instance, "Anchor", config)
    mean = sum(precision) / 3
    assert concerns == [f"its rules hold for {mean:.0%} of the held-out cases they cover (the mean over its 3 rules, "
                        f"each covering 7.0 held-out cases on average), below the {threshold:.0%} they were searched "
                        "for"]
