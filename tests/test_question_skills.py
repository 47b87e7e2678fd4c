"""The question skills' nulls, formulas and edge cases (issue 32), on small models with hand-made explanations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from metrics_synthetic import _dataset, linear_case
from sklearn.linear_model import LinearRegression, LogisticRegression

from hexeval_engine.config.loader import validate_config
from hexeval_engine.explanation import Condition, Counterfactual, Explanation, Rule
from hexeval_engine.metrics.questions import SKILL_METRICS, question_skills
from hexeval_engine.metrics.questions.shown import common_size, read_shown
from hexeval_engine.metrics.questions.what_if import what_if_skill
from hexeval_engine.metrics.questions.will_it_hold import will_it_hold_skill
from hexeval_engine.models.model_wrapper import HexevalModel

CONFIG = validate_config({})


def _explanations(data, model, ids, *, null_method="Null"):
    """A null explanation (attributions all 0: it shows nothing) and a real-looking attribution per case."""
    proba = model.predict_proba(data.X_test.iloc[ids])
    out = []
    for i, p in zip(ids, proba):
        c = int(p[1] >= 0.5)
        zero = {f: 0.0 for f in data.feature_names}
        out.append(Explanation(null_method, i, c, float(p[c]), attributions=zero))
        out.append(Explanation("SHAP", i, c, float(p[c]), attributions={f: 0.1 * (j + 1) for j, f in
                                                                         enumerate(data.feature_names)}))
    return out


def test_a_reader_who_sees_nothing_scores_exactly_zero_on_every_question():
    case = linear_case()
    ids = list(range(12))
    frame = question_skills(case.model, case.data, _explanations(case.data, case.model, ids), CONFIG, random_state=3)
    null = frame[(frame["method"] == "Null") & frame["metric"].isin(SKILL_METRICS)]
    assert len(null) == len(ids) * len(SKILL_METRICS)
    measured = null.dropna(subset=["value"])
    assert len(measured) >= len(null) // 2
    assert (measured["value"] == 0.0).all(), measured[measured["value"] != 0]


def test_always_stays_and_always_abstaining_score_zero_and_a_perfect_reader_scores_one_half():
    rng = np.random.default_rng(0)
    keeps = rng.random(300) < 0.8
    strata = rng.integers(0, 4, 300)
    assert what_if_skill(np.ones(300), keeps, strata)[0] == 0.0
    assert what_if_skill(np.full(300, -1), keeps, strata)[0] == 0.0
    assert what_if_skill(keeps.astype(int), keeps, strata)[0] == pytest.approx(0.5)
    assert will_it_hold_skill(np.ones(300, bool), keeps, strata)[0] == 0.0
    assert will_it_hold_skill(np.zeros(300, bool), keeps, strata)[0] == 0.0
    assert will_it_hold_skill(keeps, keeps, strata)[0] == pytest.approx(1.0)


def test_will_it_hold_is_coverage_times_precision_lift_over_the_base_rate():
    keeps = np.array([1] * 6 + [0] * 4, bool)
    region = np.array([1, 1, 1, 1, 0, 0, 1, 0, 0, 0], bool)  # 5 inside, 4 of them kept
    skill, precision, coverage, reason = will_it_hold_skill(region, keeps)
    b = 0.6
    assert (precision, coverage, reason) == (0.8, 0.5, None)
    assert skill == pytest.approx(coverage * (precision - b) / (b * (1 - b)))  # = 4/6 - 1/4


def test_balanced_accuracy_weighs_kept_and_flipped_neighbours_equally():
    keeps = np.array([1, 1, 1, 1, 1, 1, 1, 1, 0, 0], bool)
    expected = np.array([1, 1, 1, 1, 0, 0, -1, -1, 0, 1])
    skill, balanced, _ = what_if_skill(expected, keeps)
    assert balanced == pytest.approx(0.5 * ((4 + 0.5 * 2) / 8 + 1 / 2))
    assert skill == pytest.approx(balanced - 0.5)


def test_no_flipped_neighbour_gives_nan_with_a_reason():
    skill, _, reason = what_if_skill(np.ones(5), np.ones(5, bool))
    assert np.isnan(skill) and "no neighbour" in reason


def test_an_unknown_family_is_not_measured_and_says_why():
    case = linear_case()
    odd = Explanation("Narrative", 0, 1, 0.7, text="a story")
    frame = question_skills(case.model, case.data, [odd], CONFIG, random_state=0)
    assert frame["value"].isna().all() and set(frame["metric"]) == set(SKILL_METRICS)
    reasons = frame.attrs["reasons"]
    assert len(reasons) == len(SKILL_METRICS) and all("shows no attributions" in r["reason"] for r in reasons)


def test_cutting_to_the_common_size():
    features = ["a", "b", "c", "d"]
    attribution = Explanation("SHAP", 0, 1, 0.8, attributions={"a": 0.1, "b": -0.5, "c": 0.3, "d": 0.0})
    shown, _ = read_shown(attribution, feature_names=features, top_k=5)
    assert shown.features == ("b", "c", "a") and shown.cut(2, scales={}).features == ("b", "c")
    assert shown.supporting == ("c", "a")
    rule = Explanation("Anchor", 0, 1, 0.8, rule=Rule([Condition("c", ">", 1, "c > 1"), Condition("a", "<=", 2, ""),
                                                       Condition("c", "<", 5, "")], 0.9, 0.2))
    cut = read_shown(rule, feature_names=features, top_k=5)[0].cut(1, scales={})
    assert cut.features == ("c",) and [c.op for c in cut.conditions] == [">", "<"]
    cf = Explanation("DiCE", 0, 1, 0.8, counterfactuals=[
        Counterfactual({"a": (0.0, 1.0), "b": (0.0, 5.0)}, 0.3, True, {}),
        Counterfactual({"d": (0.0, 3.0)}, 0.4, True, {})])
    cut = read_shown(cf, feature_names=features, top_k=5)[0].cut(2, scales={"a": 1.0, "b": 10.0, "d": 1.0})
    assert cut.features == ("a", "d") and cut.changes == ({"a": (0.0, 1.0)}, {"d": (0.0, 3.0)})
    assert common_size([3, 0, 2]) == 2 and common_size([0]) == 1


def _multiclass():
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(600, 5)), columns=[f"x{j}" for j in range(5)])
    y = pd.Series(np.argmax(X.to_numpy()[:, :3] + rng.normal(scale=0.3, size=(600, 3)), axis=1), name="y")
    data = _dataset(X, y, [], n_train=400)
    data.class_labels = (0, 1, 2)
    model = HexevalModel.from_artefact(LogisticRegression(max_iter=2000).fit(data.X_train, data.y_train), data_classes=3)
    return data, model


def test_multiclass_reads_the_explained_class_against_the_rest():
    data, model = _multiclass()
    ids = list(range(10))
    proba = model.class_probabilities(data.X_test.iloc[ids])
    exps = []
    for i, p in zip(ids, proba):
        c = int(np.argmax(p))
        exps.append(Explanation("Null", i, c, float(p[c]), attributions={f: 0.0 for f in data.feature_names}))
        exps.append(Explanation("SHAP", i, c, float(p[c]), attributions={f"x{c}": 0.4, "x3": 0.01}))
    frame = question_skills(model, data, exps, CONFIG, random_state=1)
    why = frame[(frame["metric"] == "skill_why") & (frame["method"] == "SHAP")]["value"]
    assert why.mean() > 0.05  # naming the class's own feature carries its probability, more than random pairs
    null = frame[(frame["method"] == "Null") & frame["metric"].isin(SKILL_METRICS)]["value"].dropna()
    assert len(null) and (null == 0).all()


def test_regression_moves_are_in_target_standard_deviations():
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(500, 4)), columns=list("abcd"))
    y = pd.Series(3.0 * X["a"] + 0.1 * X["b"] + rng.normal(scale=0.1, size=500), name="y")
    data = _dataset(X, y, [], n_train=350)
    data.class_labels = ()
    model = HexevalModel.from_artefact(LinearRegression().fit(data.X_train, data.y_train), data_classes=0)
    exps = [Explanation(m, i, 1, 0.9, attributions={f: 1.0}) for i in range(8) for m, f in (("A", "a"), ("B", "b"))]
    frame = question_skills(model, data, exps, CONFIG, random_state=0)
    move = frame[frame["metric"] == "why_move"].pivot(index="instance_id", columns="method", values="value")
    # redrawing a moves the prediction towards the mean by 3 |x_a - mean| on average, in target deviations
    # (sd(y) ~ 3): about |z_a| per case; redrawing b moves it by about 0.03 |z_b|
    z = (data.X_test["a"].iloc[:8] - data.X_train["a"].mean()).abs() / data.X_train["a"].std()
    assert np.corrcoef(move["A"], z)[0, 1] > 0.9
    assert move["A"].mean() > 0.3 and move["B"].abs().max() < 0.1
