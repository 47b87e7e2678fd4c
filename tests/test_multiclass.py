"""Multi-class models end to end: each case is explained for the class the model predicts (issue 21).

Oracles never reuse the code under test: the known generating features of a synthetic 3-class problem,
the scikit-learn model itself (re-predicting counterfactual rows and held-out rows), and scikit-learn's
own metrics for the model card.
"""

from __future__ import annotations

import json

import joblib
import numpy as np
import pandas as pd
import pytest
from scipy.stats import wilcoxon
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import confusion_matrix, roc_auc_score

from hexeval_engine import evaluate

FEATURES = ["a", "b", "c", "d", "e"]
COLOURS = np.array(["blue", "green", "red"])  # sorted, as scikit-learn orders classes_
SETTINGS = {"evaluation": {"sample_size": 20, "bootstrap_resamples": 200,
                           "explainers": {"anchor": {"max_instances": 20}, "dice": {"max_instances": 20},
                                          "lime": {"num_samples": 400, "stability_subset": 4}},
                           "stability": {"repeats": 2}, "sanity": {"randomisation_cases": 4}},
            "personas": {"enabled": False}}


def _three_colours(n=600, seed=0):
    """Class scores 2.5a (red), 2.5b (green) and 0 (blue): only a and b decide the class."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=FEATURES)
    scores = np.column_stack([np.zeros(n), 2.5 * X["b"], 2.5 * X["a"]])
    y = COLOURS[np.argmax(scores + 0.3 * rng.gumbel(size=scores.shape), axis=1)]
    return X, y


@pytest.fixture(scope="module")
def colours(tmp_path_factory):
    folder = tmp_path_factory.mktemp("colours")
    X, y = _three_colours()
    csv = folder / "colours.csv"
    X.assign(colour=y).to_csv(csv, index=False)
    model = LogisticRegression(max_iter=1000).fit(X, y)
    path = folder / "model.joblib"
    joblib.dump(model, path)
    result = evaluate(path, csv, "colour", output_dir=folder / "runs", allow_pickle=True, config_overrides=SETTINGS)
    return model, result


def _explained(result, method):
    return [e for e in result.technical.explanations if e.method == method and e.ok]


def test_each_case_is_explained_for_its_predicted_class(colours):
    model, result = colours
    X_test = result.data.X_test[FEATURES]
    ids = result.technical.instance_ids
    predicted = model.predict(X_test.iloc[ids])
    assert result.technical.explained_classes == {i: str(p) for i, p in zip(ids, predicted)}
    assert len(set(predicted)) == 3  # the sample holds every class, so every group ran
    shap = _explained(result, "SHAP")
    for e in shap:
        name = e.extra["class_view"]["name"]
        assert name == f"colour {result.technical.explained_classes[e.instance_id]}"
        assert f"why {name} rather than the other two" in e.text
        proba = model.predict_proba(X_test.iloc[[e.instance_id]])[0]
        assert e.extra["class_view"]["probability"] == pytest.approx(proba.max())
    manifest = json.loads((result.output_path / "run.json").read_text())
    assert manifest["task"]["description"] == "3-class classification"
    assert manifest["task"]["explained_classes"] == {str(k): v for k, v in result.technical.explained_classes.items()}


@pytest.mark.parametrize("method", ["SHAP", "LIME"])
def test_attributions_rank_the_deciding_features_first_and_beat_random(colours, method):
    _, result = colours
    explanations = _explained(result, method)
    assert len(explanations) == 20
    top_two = [set(sorted(e.attributions, key=lambda f: -abs(e.attributions[f]))[:2]) for e in explanations]
    assert sum(t == {"a", "b"} for t in top_two) >= 0.9 * len(top_two), top_two
    per = result.technical.per_instance
    deletion = per[per.metric == "fidelity_deletion"].pivot(index="instance_id", columns="method", values="value")
    paired = deletion[[method, "Random"]].dropna()
    assert len(paired) >= 15
    # lower deletion area is better: removing the named features first must hurt the prediction sooner
    assert wilcoxon(paired[method], paired["Random"], alternative="less").pvalue < 0.01


def test_counterfactuals_reach_the_runner_up_class(colours):
    model, result = colours
    X_test = result.data.X_test[FEATURES]
    reached, found = 0, 0
    for e in _explained(result, "DiCE"):
        proba = model.predict_proba(X_test.iloc[[e.instance_id]])[0]
        runner_up = model.classes_[np.argsort(-proba)[1]]
        assert e.extra["class_view"]["target"] == f"colour {runner_up}"
        found += bool(e.counterfactuals)
        for cf in e.counterfactuals:
            again = model.predict(pd.DataFrame([cf.row])[FEATURES])[0]
            assert cf.flips == (again == runner_up), (cf.row, again, runner_up)
            reached += again == runner_up
    assert found >= 15 and reached >= 15


def test_counterfactuals_aim_at_the_configured_class(tmp_path):
    X, y = _three_colours(seed=1)
    csv = tmp_path / "colours.csv"
    X.assign(colour=y).to_csv(csv, index=False)
    model = LogisticRegression(max_iter=1000).fit(X, y)
    joblib.dump(model, tmp_path / "m.joblib")
    only_dice = {"evaluation": {"sample_size": 8, "bootstrap_resamples": 100,
                                "explainers": {"shap": {"enabled": False}, "lime": {"enabled": False},
                                               "anchor": {"enabled": False}, "dice": {"max_instances": 8}},
                                "sanity": {"randomisation_check": False}},
                 "data": {"counterfactual_target": "red"}, "personas": {"enabled": False}}
    result = evaluate(tmp_path / "m.joblib", csv, "colour", allow_pickle=True, save=False, config_overrides=only_dice)
    X_test = result.data.X_test[FEATURES]
    checked = 0
    for e in _explained(result, "DiCE"):
        predicted = model.predict(X_test.iloc[[e.instance_id]])[0]
        proba = model.predict_proba(X_test.iloc[[e.instance_id]])[0]
        aim = "red" if predicted != "red" else model.classes_[np.argsort(-proba)[1]]
        for cf in e.counterfactuals:
            if cf.flips:
                assert model.predict(pd.DataFrame([cf.row])[FEATURES])[0] == aim
                checked += 1
    assert checked >= 5


def _covered(rule, X: pd.DataFrame) -> np.ndarray:
    ops = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
    mask = np.ones(len(X), dtype=bool)
    for c in rule.conditions:
        mask &= ops[c.op](X[c.feature].to_numpy(), float(c.value))
    return mask


def test_anchor_precision_is_held_out_and_against_the_class_base_rate(colours):
    model, result = colours
    X_test = result.data.X_test[FEATURES]
    predicted = model.predict(X_test)
    per = result.technical.per_instance
    values = per[per.method == "Anchor"].pivot(index="instance_id", columns="metric", values="value")
    checked = 0
    for e in _explained(result, "Anchor"):
        if e.instance_id not in values.index:
            continue
        c = result.technical.explained_classes[e.instance_id]
        use = np.arange(len(X_test)) != e.instance_id
        covered = _covered(e.rule, X_test) & use
        hits = predicted == c
        if covered.any():
            precision = hits[covered].mean()
            assert values.loc[e.instance_id, "rule_precision_test"] == pytest.approx(precision)
            assert values.loc[e.instance_id, "rule_precision_lift"] == pytest.approx(precision - hits[use].mean())
            checked += 1
    assert checked >= 10


def test_model_card_and_signal_check_per_class(colours):
    model, result = colours
    X_test, y_test = result.data.X_test[FEATURES], result.data.y_test.to_numpy()
    truth = np.asarray(result.data.class_labels)[y_test]
    card = result.manifest["model"]["performance"]
    assert card["class_labels"] == list(COLOURS)
    assert card["confusion_matrix"] == confusion_matrix(truth, model.predict(X_test), labels=COLOURS).tolist()
    assert [c["support"] for c in card["per_class"]] == [int((truth == k).sum()) for k in COLOURS]
    macro = roc_auc_score(truth, model.predict_proba(X_test), multi_class="ovr", average="macro")
    assert card["roc_auc"] == pytest.approx(macro)
    signal = result.sanity["signal"]
    assert signal["has_signal"] and signal["roc_auc"] == pytest.approx(macro)
    assert signal["roc_auc_ci_low"] > 0.5
