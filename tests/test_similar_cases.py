"""The ``Examples`` method (similar cases, issue 33): nearest training cases by the model's answer.

The oracle is a brute-force loop over the training rows written here (distance as the method documents it:
numeric gaps in training standard deviations, a category mismatch 1, the mean over features), never the
explainer's own vectorised code.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.tree import DecisionTreeClassifier

from hexeval_engine import get_usecase, load_config, load_model
from hexeval_engine.config.loader import validate_config
from hexeval_engine.data.usecase_data import load_data_for_config
from hexeval_engine.models.prepare import prepare_usecase
from hexeval_engine.data.coding import FeatureCoder
from hexeval_engine.data.dataset import Dataset, DataQualityReport
from hexeval_engine.errors import ConfigError
from hexeval_engine.explainers.base import explained_classes
from hexeval_engine.explainers.registry import build_explainer, enabled_methods, spec_of
from hexeval_engine.explainers.render import render_into
from hexeval_engine.metrics.questions.shown import EXAMPLE, read_shown
from hexeval_engine.metrics.questions.what_if import reader_keeps
from hexeval_engine.metrics.readers import ABSTAIN, ChangedMemo
from hexeval_engine.models.model_wrapper import HexevalModel
from hexeval_engine.technical.class_groups import case_groups
from hexeval_engine.technical.sanity import explanation_similarity


def _data(X: pd.DataFrame, y, categorical, n_train):
    X_train, X_test = X.iloc[:n_train].reset_index(drop=True), X.iloc[n_train:].reset_index(drop=True)
    y = pd.Series(np.asarray(y, dtype=int), name="y")
    y_train, y_test = y.iloc[:n_train].reset_index(drop=True), y.iloc[n_train:].reset_index(drop=True)
    features = list(X.columns)
    return Dataset(X_train, X_test, y_train, y_test, "y", features, list(categorical),
                   [f for f in features if f not in categorical], (0, 1), DataQualityReport(len(X), X.shape[1] + 1),
                   FeatureCoder.fit(X, list(categorical)))


def _model(data, columns):
    """A tree on ``columns`` only (the others are dropped before it)."""
    pipe = Pipeline([("pick", ColumnTransformer([("keep", "passthrough", list(columns))], remainder="drop")),
                     ("tree", DecisionTreeClassifier(random_state=0))])
    return HexevalModel.from_artefact(pipe.fit(data.X_train, data.y_train))


def _config(**examples):
    return validate_config({"evaluation": {"explainers": {"examples": {"enabled": True, **examples}}}})


def _explain(model, data, config, ids):
    X = data.X_test.iloc[ids]
    classes, probabilities = explained_classes(model, X)
    explainer = build_explainer("Examples", model, data, config, seed=0)
    return explainer.explain(X, ids, classes, probabilities, [0] * len(ids))


def test_nearest_cases_match_a_brute_force_search():
    rng = np.random.default_rng(3)
    n = 90
    X = pd.DataFrame({"x1": rng.random(n).round(3), "x2": (rng.random(n) * 10).round(2),
                      "c": rng.choice(["red", "green", "blue"], size=n)})
    y = (X["x1"] > 0.5).astype(int)
    data = _data(X, y, ["c"], n_train=70)
    model = _model(data, ["x1"])
    config = _config(n_examples=3, n_same=2, min_difference=0.25)
    ids = list(range(8))
    explanations = _explain(model, data, config, ids)
    train = data.X_train
    answers = model.predict(train)
    sd = {f: float(np.std(train[f].to_numpy(dtype=float), ddof=1)) for f in ("x1", "x2")}
    for e, iid in zip(explanations, ids):
        case = data.X_test.iloc[iid]
        cls = int(model.predict(data.X_test.iloc[[iid]])[0])
        distances = []
        for j in range(len(train)):
            gaps = [abs(case["x1"] - train["x1"][j]) / sd["x1"], abs(case["x2"] - train["x2"][j]) / sd["x2"],
                    0.0 if case["c"] == train["c"][j] else 1.0]
            distances.append((sum(gaps) / 3, j))
        distances.sort()
        other = [j for d, j in distances if answers[j] != cls][:3]
        same = [j for d, j in distances if answers[j] == cls and d > 0][:2]
        assert [x.index for x in e.examples] == other + same
        assert [x.same_outcome for x in e.examples] == [False] * 3 + [True] * 2
        for x in e.examples:
            j = x.index
            expected = {f for f in ("x1", "x2") if abs(case[f] - train[f][j]) / sd[f] >= 0.25}
            expected |= {"c"} if case["c"] != train["c"][j] else set()
            assert set(x.differs) == expected
            for f in x.differs:
                assert x.differs[f] == (case[f], train[f][j])
            assert x.prediction == answers[j]
        # the example with the other outcome always differs in x1, the only feature the model reads
        assert all("x1" in x.differs for x in e.examples if not x.same_outcome)
        assert e.importance_derived and e.importance["x1"] == 1.0


def _fixed_world():
    """The model says 1 when age >= 60 or income > 50; age and group cannot change, income can."""
    X = pd.DataFrame({"age": [55, 65, 56, 30, 70, 40, 45, 55],
                      "income": [40, 40, 60, 20, 90, 45, 52, 40],
                      "group": ["a", "a", "a", "b", "b", "a", "b", "a"]})
    y = ((X["age"] >= 60) | (X["income"] > 50)).astype(int)
    data = _data(X, y, ["group"], n_train=7)  # the test case: age 55, income 40, group a (answer 0)
    return data, _model(data, ["age", "income"])


def test_a_similar_case_that_differs_only_in_what_cannot_change_is_marked_and_said():
    data, model = _fixed_world()
    config = validate_config({"evaluation": {"explainers": {"examples": {"enabled": True, "n_examples": 2,
                                                                          "n_same": 0}}},
                              "actionability": {"features": {"age": "immutable", "group": "immutable"}}})
    (e,) = _explain(model, data, config, [0])
    first, second = e.examples
    assert first.index == 1 and set(first.differs) == {"age"} and first.only_fixed_differences
    assert second.index == 2 and not second.only_fixed_differences and "income" in second.differs
    assert e.extra["fixed_only_examples"] == 1
    render_into(e, {f: data.X_test[f].iloc[0] for f in data.feature_names}, data, config)
    assert "cannot change" in e.text
    assert e.text.count("cannot change") == 1
    # how to change: towards the nearest other-outcome case, on what may change: here nothing
    shown, _ = read_shown(e, feature_names=data.feature_names, top_k=5)
    assert shown.kind == EXAMPLE and shown.changes[0] == {"age": (55, 65)}


def test_the_what_if_reader_answers_like_the_nearest_shown_case():
    data, model = _fixed_world()
    config = validate_config({"evaluation": {"explainers": {"examples": {"enabled": True, "n_examples": 1,
                                                                          "n_same": 0}}}})
    (e,) = _explain(model, data, config, [0])
    shown, _ = read_shown(e, feature_names=data.feature_names, top_k=5)
    case = data.X_test.iloc[0]
    rows = pd.DataFrame({"age": [55, 64, 60, 56], "income": [40, 40, 40, 40], "group": ["a", "a", "a", "b"]})
    keeps = reader_keeps(shown, case, rows, changed=ChangedMemo(rows), categorical=["group"])
    # the case (age 55) keeps, the shown case (age 65) flips; 60 is halfway: no answer
    assert list(keeps) == [1, 0, ABSTAIN, 1]


def test_the_randomisation_similarity_compares_the_cases_shown():
    data, model = _fixed_world()
    config = _config(n_examples=2, n_same=1)
    (e,) = _explain(model, data, config, [0])
    assert explanation_similarity(e, e, data.feature_names) == 1.0
    other = build_explainer("Examples", model, data, config, seed=0)
    other.answers = 1 - other.answers  # a model answering every training case the other way
    (flipped,) = other.explain(data.X_test.iloc[[0]], [0], [0], [0.9], [0])
    assert explanation_similarity(e, flipped, data.feature_names) < 0.5


def test_it_is_a_method_through_its_spec_only():
    spec = spec_of("Examples")
    assert spec.family == "example" and spec.aims_at_target and spec.settings_key == "examples"
    config = validate_config({"evaluation": {"explainers": {"examples": {"enabled": True}}}})
    assert "Examples" in enabled_methods(config)
    assert "Examples" not in enabled_methods(validate_config({}))


def test_a_bad_setting_is_named():
    config = validate_config({"evaluation": {"explainers": {"examples": {"enabled": True, "n_examples": 0}}}})
    data, model = _fixed_world()
    with pytest.raises(ConfigError, match=r"examples has a bad setting \(n_examples = 0: Input should be greater"):
        build_explainer("Examples", model, data, config, seed=0)
    with pytest.raises(ConfigError, match="n_example = 3"):
        enabled_methods(validate_config({"evaluation": {"explainers": {"examples": {"n_example": 3}}}}))


def _bundled(name):
    uc = get_usecase(name)
    prepare_usecase(uc)
    config = load_config(uc.config_path)
    data = load_data_for_config(uc.data_path, config)
    return config, data, load_model(uc.model_path, data=data)


def _group_explanations(name, n=6):
    config, data, model = _bundled(name)
    out = []
    for group in case_groups(model, data, config, list(range(n))):
        explainer = build_explainer("Examples", group.counterfactual_model, group.data, group.counterfactual_config,
                                    seed=0)
        X = data.X_test.iloc[group.ids]
        classes, probabilities = explained_classes(group.counterfactual_model, X)
        out += [(group, e) for e in explainer.explain(X, group.ids, classes, probabilities, [0] * len(group.ids))]
    return data, model, out


def test_multi_class_examples_get_the_class_aimed_for():
    data, model, explained = _group_explanations("wine")
    assert explained
    for group, e in explained:
        others = [x for x in e.examples if not x.same_outcome]
        assert len(others) == 3
        rows = pd.DataFrame([x.row for x in others])[list(data.feature_names)]
        assert set(model.predict_class(rows)) == {group.reached}  # the runner-up class (or the configured target)
        same = pd.DataFrame([x.row for x in e.examples if x.same_outcome])[list(data.feature_names)]
        assert set(model.predict_class(same)) == {group.explained}


def test_regression_examples_lie_on_the_other_side_of_the_band():
    data, model, explained = _group_explanations("diabetes")
    assert explained
    for group, e in explained:
        others = pd.DataFrame([x.row for x in e.examples if not x.same_outcome])[list(data.feature_names)]
        values = model.predict_value(others)
        aimed = group.counterfactual_model.predict_proba(others)[:, 1] < 0.5
        assert aimed.all() and len(values) == 3


def test_heart_end_to_end_with_examples(tmp_path):
    import copy
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from small_runs import QUICK

    from hexeval_engine import evaluate

    overrides = copy.deepcopy(QUICK)
    overrides["evaluation"]["explainers"]["examples"] = {"enabled": True, "max_instances": 6}
    result = evaluate(usecase="heart", config_overrides=overrides, output_dir=tmp_path)
    metrics = result.technical_metrics.set_index("method")
    assert "Examples" in metrics.index
    assert np.isfinite(metrics.loc["Examples", "skill_why"]) and np.isfinite(metrics.loc["Examples", "skill_what_if"])
    assert "Examples" in result.recommendations["methods"]
    written = pd.read_csv(next(tmp_path.rglob("technical_metrics.csv")))
    assert "Examples" in set(written["method"])
    examples = [e for e in result.technical.explanations if e.method == "Examples"]
    assert examples and all(e.ok and e.examples and e.text for e in examples)
    # a persona's words never carry a code or a column name
    assert all("thalach" not in e.text and "trestbps" not in e.text for e in examples)
    assert result.sanity["randomisation"]["methods"]["Examples"]["ignores_model"] is False


def test_a_saved_explanation_reads_back_and_its_reader_answers_like_the_nearest_case():
    import json

    from hexeval_engine.metrics.readers import make_reader
    from hexeval_engine.study.forward import explanation_from_record

    data, model = _fixed_world()
    config = validate_config({"evaluation": {"explainers": {"examples": {"enabled": True, "n_examples": 1,
                                                                          "n_same": 0}}}})
    (e,) = _explain(model, data, config, [0])
    back = explanation_from_record(json.loads(json.dumps(e.to_dict(), default=str)))
    assert back.examples == e.examples
    rows = pd.DataFrame({"age": [55, 64, 60], "income": [40, 40, 40], "group": ["a", "a", "a"]})
    # the case is answered 0; the shown case (age 65) got 1; age 60 lies halfway
    assert list(make_reader(back, data=data).predict(rows)) == [0, 1, ABSTAIN]


def test_personas_see_a_similar_case_they_cannot_become_as_asking_the_impossible():
    from hexeval_engine.raters import Case, CaseFeature
    from hexeval_engine.raters.properties import measure

    data, model = _fixed_world()
    config = validate_config({"evaluation": {"explainers": {"examples": {"enabled": True, "n_examples": 2,
                                                                          "n_same": 0}}},
                              "actionability": {"features": {"age": "immutable", "group": "immutable"}}})
    (e,) = _explain(model, data, config, [0])
    case = Case(0, tuple(CaseFeature(f, f, str(data.X_test[f].iloc[0])) for f in data.feature_names), 0, "no", 0.9)
    props = measure(e, case)
    assert props.alternatives == 2
    fixed_only, other = e.examples
    # every difference of the first case is infeasible (age), the second's income difference is feasible
    assert len(props.infeasible) == len([f for f in fixed_only.differs]) + len(
        [f for f in other.differs if f in ("age", "group")])
    assert any("income" in c for c in props.feasible)
