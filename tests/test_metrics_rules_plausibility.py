"""Rules evaluated on held-out rows, and counterfactual plausibility, on the bundled use cases' real data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.explanation import Condition, Counterfactual, Rule
from hexeval_engine.explainers.actionability import FIXED, feature_actionability
from hexeval_engine.metrics import CounterfactualManifold, CounterfactualSpace, held_out_rule_metrics, \
    plausibility_metrics, rule_mask


def _c(feature, op, value):
    return Condition(feature, op, value, f"{feature} {op} {value}")


@pytest.fixture(scope="module")
def heart(usecase_bundle):
    return usecase_bundle("heart")


@pytest.fixture(scope="module")
def credit(usecase_bundle):
    return usecase_bundle("credit_risk")


def test_rule_mask_on_heart_conditions(heart):
    """Numeric-coded categories (cp = 0), Anchor's numeric ranges (in) and one-sided bounds."""
    _, _, data, _ = heart
    X = data.X_test
    conditions = [_c("cp", "=", 0), _c("oldpeak", "in", (1.0, 2.5)), _c("thalach", "<=", 160.0), _c("age", ">", 50.0)]
    expected = (X["cp"] == 0) & (X["oldpeak"] > 1.0) & (X["oldpeak"] <= 2.5) & (X["thalach"] <= 160) & (X["age"] > 50)
    mask = rule_mask(conditions, X, categorical=data.categorical_features)
    assert mask.tolist() == expected.tolist() and 0 < mask.sum() < len(X)
    assert rule_mask([_c("thal", "in", [1, 3])], X, categorical=data.categorical_features).tolist() == \
        X["thal"].isin([1, 3]).tolist()  # "in" on a category is membership, even with two numbers
    assert rule_mask([], X).all()


def test_rule_mask_on_credit_conditions(credit):
    """Text categories, numeric bounds on a column with missing values, ranges and inequality."""
    _, _, data, _ = credit
    X = data.X_test
    assert X["loan_int_rate"].isna().any()
    conditions = [_c("loan_grade", "=", "D"), _c("loan_int_rate", ">", 14.0),
                  _c("person_income", "in", (30000.0, 60000.0)), _c("person_home_ownership", "!=", "OWN")]
    expected = ((X["loan_grade"] == "D") & (X["loan_int_rate"] > 14.0) & (X["person_income"] > 30000)
                & (X["person_income"] <= 60000) & (X["person_home_ownership"] != "OWN")).fillna(False)
    mask = rule_mask(conditions, X, categorical=data.categorical_features)
    assert mask.tolist() == expected.astype(bool).tolist() and mask.sum() > 0
    missing_rate = X["loan_int_rate"].isna().to_numpy()
    assert not rule_mask([_c("loan_int_rate", "<=", 100.0)], X)[missing_rate].any()  # missing satisfies nothing


def test_rule_mask_rejects_what_it_cannot_evaluate(credit):
    _, _, data, _ = credit
    with pytest.raises(ValueError, match="not a column"):
        rule_mask([_c("salary", ">", 3)], data.X_test)
    with pytest.raises(ValueError, match="not a number"):
        rule_mask([_c("loan_grade", ">", "D")], data.X_test)
    with pytest.raises(ValueError, match="operator"):
        rule_mask([_c("loan_grade", "~", "D")], data.X_test)


def test_held_out_precision_support_and_lift(credit):
    _, _, data, model = credit
    X = data.X_test
    predicted = model.predict(X)
    rule = Rule([_c("loan_grade", "=", "D"), _c("loan_percent_income", ">", 0.3)], precision=0.97, coverage=0.02)
    covered = ((X["loan_grade"] == "D") & (X["loan_percent_income"] > 0.3)).to_numpy()
    explained = int(np.flatnonzero(covered)[0])
    values = held_out_rule_metrics(rule, 1, X, predicted, exclude=explained, categorical=data.categorical_features)
    others = covered.copy()
    others[explained] = False
    rest = np.ones(len(X), bool)
    rest[explained] = False
    assert values["rule_support_test"] == others.sum()
    assert values["rule_precision_test"] == pytest.approx((predicted[others] == 1).mean())
    assert values["rule_coverage_test"] == pytest.approx(others.sum() / rest.sum())
    assert values["rule_precision_lift"] == pytest.approx(values["rule_precision_test"] - (predicted[rest] == 1).mean())
    assert values["rule_precision_lift"] > 0.3  # a rule that singles out risky loans beats the base rate
    # the empty rule applies to everything: its precision is the base rate and it adds nothing
    empty = held_out_rule_metrics(Rule([], 0.84, 1.0), 0, X, predicted, exclude=0)
    assert empty["rule_precision_lift"] == pytest.approx(0.0, abs=1e-12) and empty["rule_coverage_test"] == 1.0
    nothing = held_out_rule_metrics(Rule([_c("loan_grade", "=", "Z")], 0.9, 0.0), 1, X, predicted, exclude=0)
    assert nothing["rule_support_test"] == 0 and math.isnan(nothing["rule_precision_test"])
    assert math.isnan(nothing["rule_precision_lift"])


@pytest.fixture(scope="module")
def credit_manifold(credit):
    _, config, data, model = credit
    features = list(data.feature_names)
    predicted_train = model.predict(data.X_train[features])
    manifold = CounterfactualManifold.from_data(data, predicted_train, k=5, reference_rows=300, random_state=0)
    return manifold, predicted_train


def _young_applicant(data, model):
    """A test applicant close to 24 years old and 70,000 income whom the model refuses (predicts default)."""
    X = data.X_test
    refused = model.predict(X) == 1
    score = (X["person_age"] - 24).abs() / 3 + (X["person_income"] - 70_000).abs() / 20_000
    return X[refused].loc[score[refused].idxmin()]


def _cf(instance, **new):
    return Counterfactual({f: (instance[f], v) for f, v in new.items()}, 0.3, True, {**instance.to_dict(), **new})


def test_far_counterfactual_is_flagged_implausible(credit, credit_manifold):
    _, config, data, model = credit
    manifold, predicted_train = credit_manifold
    x = _young_applicant(data, model)
    kinds = feature_actionability(config, data.feature_names)  # the bundled config's actionability section
    space = CounterfactualSpace.from_data(data, immutable_features=[f for f, k in kinds.items() if k in FIXED],
                                          feature_ranges=config.evaluation.explainers.dice.feature_ranges)
    # the suggestion the issue reports: income raised to 478,298 (inside the configured range, so the old check passed)
    far = plausibility_metrics(x, 1, [_cf(x, person_income=478_298)], manifold, space)
    assert far["counterfactual_in_range"] == 0.0
    assert far["counterfactual_knn_ratio"] > 2.0
    assert far["counterfactual_plausible"] == 0.0
    # a real accepted applicant (as the counterfactual row) sits on the data: close and in range
    accepted = data.X_train[predicted_train == 0].iloc[0]
    real = Counterfactual({}, 0.2, True, accepted.to_dict())
    free = CounterfactualSpace.from_data(data)  # no immutable features: the real row may differ in any of them
    near = plausibility_metrics(x, 1, [real], manifold, free)
    assert near["counterfactual_knn_ratio"] < 2.0 < far["counterfactual_knn_ratio"]
    both = plausibility_metrics(x, 1, [real, _cf(x, person_income=478_298)], manifold, free)
    assert both["counterfactual_plausible"] == pytest.approx(near["counterfactual_plausible"] / 2)
    # a counterfactual that does not change the prediction is never plausible, however close
    invalid = Counterfactual({}, 0.8, False, accepted.to_dict())
    assert plausibility_metrics(x, 1, [invalid], manifold, free)["counterfactual_plausible"] == 0.0
    # changing a fixed feature (a past default stays on the credit file) is not plausible either
    flipped = "N" if x["cb_person_default_on_file"] == "Y" else "Y"
    erased = plausibility_metrics(x, 1, [_cf(x, cb_person_default_on_file=flipped)], manifold, space)
    assert erased["counterfactual_plausible"] == 0.0


def test_range_check_uses_training_percentiles_and_seen_categories(credit, credit_manifold):
    _, _, data, model = credit
    manifold, _ = credit_manifold
    x = _young_applicant(data, model)
    high = float(data.X_train["person_income"].quantile(0.995))
    assert not manifold.in_range({**x.to_dict(), "person_income": high}, x)  # above the 99th percentile
    assert manifold.in_range({**x.to_dict(), "person_income": float(x["person_income"]) + 1000}, x)
    assert not manifold.in_range({**x.to_dict(), "loan_grade": "Z"}, x)
    assert manifold.in_range({**x.to_dict(), "loan_grade": "A"}, x)


def test_no_counterfactual_and_undefined_distance(credit, credit_manifold, heart):
    _, _, data, model = credit
    manifold, _ = credit_manifold
    x = _young_applicant(data, model)
    space = CounterfactualSpace.from_data(data)
    none = plausibility_metrics(x, 1, [], manifold, space)
    assert none["counterfactual_plausible"] == 0.0
    assert math.isnan(none["counterfactual_knn_ratio"]) and math.isnan(none["counterfactual_in_range"])
    # a model that predicts one class for every training row leaves the other class without neighbours
    _, _, hdata, _ = heart
    one_class = CounterfactualManifold.from_data(hdata, np.zeros(len(hdata.X_train), dtype=int))
    hx = hdata.X_test.iloc[0]
    moved = Counterfactual({}, 0.3, True, {**hx.to_dict(), "chol": float(hx["chol"]) + 5})
    values = plausibility_metrics(hx, 0, [moved], one_class, CounterfactualSpace.from_data(hdata))
    assert math.isnan(values["counterfactual_knn_ratio"]) and math.isnan(values["counterfactual_plausible"])


def test_typical_distance_is_seeded_and_excludes_the_row_itself(heart):
    _, _, data, model = heart
    predicted = model.predict(data.X_train)
    a = CounterfactualManifold.from_data(data, predicted, reference_rows=50, random_state=1)
    b = CounterfactualManifold.from_data(data, predicted, reference_rows=50, random_state=1)
    assert a.typical == b.typical and all(v > 0 for v in a.typical.values())
    rows = pd.DataFrame([data.X_train.iloc[i] for i in range(5)])
    assert np.isfinite(a.knn_ratio(rows, predicted[:5])).all()


def test_embedding_by_hand(credit, credit_manifold):
    """Numeric columns standardised (missing at the mean), each category a 1/sqrt(2) one-hot, in the manifold's order."""
    manifold, _ = credit_manifold
    _, _, data, _ = credit
    rows = data.X_test.iloc[:7].copy()
    rows.iloc[0, rows.columns.get_loc(manifold.numeric[0])] = np.nan
    rows.iloc[1, rows.columns.get_loc(manifold.categorical[0])] = None
    got = manifold.embed(rows)
    want = []
    for _, row in rows.iterrows():
        cells = []
        for j, f in enumerate(manifold.numeric):
            x = pd.to_numeric(row[f], errors="coerce")
            cells.append(0.0 if pd.isna(x) else (float(x) - manifold.means[j]) / manifold.stds[j])
        for f in manifold.categorical:
            cells += [math.sqrt(0.5) if not pd.isna(row[f]) and str(row[f]) == level else 0.0
                      for level in manifold.codes[f]]
        want.append(cells)
    np.testing.assert_allclose(got, np.array(want), rtol=1e-12, atol=0)
    assert got[0, 0] == 0.0 and not got[1, len(manifold.numeric):len(manifold.numeric) + len(manifold.codes[manifold.categorical[0]])].any()


@pytest.mark.parametrize("shape, k", [((40, 5000), 5), ((7, 3000), 1), ((30, 900), 5), ((10, 20000), 12)])
def test_the_k_smallest_per_row_are_a_full_sorts(shape, k):
    """The bounded selection (probe columns, then the values under the bound) against sorting every row; ties,
    repeated values and excluded (infinite) entries included."""
    from hexeval_engine.metrics.plausibility import _smallest  # a private helper, tested on its own

    rng = np.random.default_rng(k)
    sq = np.round(rng.random(shape) * 50, 1)  # many ties
    sq[np.arange(shape[0]), rng.integers(0, shape[1], shape[0])] = np.inf
    sq[:, 3] = 0.0
    want = np.sort(sq, axis=1)[:, :k]
    np.testing.assert_array_equal(_smallest(sq.copy(), k), want)
