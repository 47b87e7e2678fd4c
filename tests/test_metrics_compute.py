"""compute_instance_metrics end to end, and every registered metric moving in its declared direction.

"Good" and "Bad" explanations of the same instances are built for every metric family on the
synthetic logistic-regression case (true closed-form attributions are the good ones); the mean
of each metric must favour "Good" in the direction the registry declares. Each metric is judged
in the scenario of its own family (vector metrics on the attribution scenario, rule metrics on the
rule scenario, counterfactual metrics on the counterfactual scenario).
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from metrics_synthetic import linear_case, true_attributions

from hexeval_engine.config import HexevalConfig
from hexeval_engine.explanation import Condition, Counterfactual, Explanation, Rule
from hexeval_engine.metrics import INSTANCE_COLUMNS, METRICS, compute_instance_metrics, summarise
from hexeval_engine.metrics.claim_evidence import claim_rows
from hexeval_engine.metrics.stability import noisy_copies

N = 20


@pytest.fixture(scope="module")
def case():
    return linear_case()


@pytest.fixture(scope="module")
def config():
    cfg = HexevalConfig()
    cfg.evaluation.explainers.dice.immutable_features = ["x5"]
    return cfg


def _expl(method, i, cls, weights, features, **kw):
    return Explanation(method, i, int(cls), 0.7, attributions=dict(zip(features, map(float, weights))),
                       importance={f: abs(float(w)) for f, w in zip(features, weights)}, **kw)


def _copies(case, config, i, repeats=3):
    """The noisy copies of test row ``i`` exactly as the technical evaluation makes them, with their probabilities."""
    ev = config.evaluation
    row = case.data.X_test.iloc[[i]]
    copies = [noisy_copies(case.data, row, [i], noise_std=ev.stability.noise_std, repeat=r,
                           random_state=ev.random_state) for r in range(repeats)]
    return [case.model.predict_proba(c)[0] for c in copies]


def _attribution_scenario(case, config):
    X = case.data.X_test.iloc[:N]
    cls = case.model.predict(X)
    phi = true_attributions(case, X) * np.where(cls == 1, 1, -1)[:, None]
    feats = case.data.feature_names
    rng = np.random.default_rng(5)
    good, bad, perturbed, seeds = [], [], {}, {}
    for i in range(N):
        sparse = np.where(np.abs(phi[i]) >= np.sort(np.abs(phi[i]))[-2], phi[i], 0.0)
        good.append(_expl("Good", i, cls[i], phi[i], feats))
        good.append(_expl("GoodSparse", i, cls[i], sparse, feats))
        bad.append(_expl("Bad", i, cls[i], 1.0 / (np.abs(phi[i]) + 1e-3), feats))  # reversed ranking
        bad.append(_expl("BadSparse", i, cls[i], np.abs(phi[i]) + np.abs(phi[i]).max(), feats))  # dense
        probabilities = _copies(case, config, i)
        for method, scale in (("Good", 0.02), ("Bad", 2.0)):
            noisy = [Explanation(method, i, int(cls[i]), float(p[cls[i]]),
                                 attributions=dict(zip(feats, map(float, phi[i] + rng.normal(scale=scale,
                                                                                             size=len(feats))))))
                     for p in probabilities]
            perturbed[(method, i)] = noisy
            seeds[(method, i)] = noisy
    return good + bad, perturbed, seeds


def _rule_scenario(case):
    """Good: a rule on the feature that drives the model, on the side of the explained class; Bad: an irrelevant one.

    GoodCover / BadCover differ only in how much of the data the rule covers.
    """
    cls = case.model.predict(case.data.X_test.iloc[:N])
    high = float(case.data.X_train["x0"].quantile(0.7))
    low = float(case.data.X_train["x0"].quantile(0.3))
    irrelevant = [Condition("x4", ">", 4.0, "x4 > 4"), Condition("x5", "<=", 8.0, "x5 <= 8")]  # x4 has weight 0
    out = []
    for i in range(N):
        driver = (Condition("x0", ">", high, f"x0 > {high:.2f}") if cls[i] == 1
                  else Condition("x0", "<=", low, f"x0 <= {low:.2f}"))
        out.append(Explanation("Good", i, int(cls[i]), 0.7, rule=Rule([driver], 0.96, 0.30),
                               importance={"x0": 1.0}, importance_derived=True))
        out.append(Explanation("Bad", i, int(cls[i]), 0.7, rule=Rule(irrelevant, 0.60, 0.04),
                               importance={"x4": 1.0, "x5": 1.0}, importance_derived=True))
        out.append(Explanation("GoodCover", i, int(cls[i]), 0.7, rule=Rule(irrelevant[:1], 0.6, 0.5)))
        out.append(Explanation("BadCover", i, int(cls[i]), 0.7, rule=Rule([driver] + irrelevant, 0.6, 0.1)))
    return out


def _cf(x, flips, **new):
    return Counterfactual({f: (x[f], v) for f, v in new.items()}, 0.4, flips, {**x.to_dict(), **new})


def _cf_scenario(case):
    cls = case.model.predict(case.data.X_test.iloc[:N])
    out = []
    for i in range(N):
        x = case.data.X_test.iloc[i]
        towards = -1.0 if cls[i] == 1 else 1.0  # x0 pushes towards class 1: move it the other way
        good = [_cf(x, True, x0=x["x0"] + towards * 0.5), _cf(x, True, x2=x["x2"] + towards * 0.5)]
        bad = [_cf(x, False, x0=x["x0"] + 9, x1=x["x1"] + 9, x3=x["x3"] + 9),
               _cf(x, False, x0=x["x0"] + 9.1, x1=x["x1"] + 9.1, x3=x["x3"] + 9, x5=x["x5"] + 0.1)]
        for method, cfs in (("Good", good), ("Bad", bad)):
            changed = {f for cf in cfs for f in cf.changes}
            out.append(Explanation(method, i, int(cls[i]), 0.7, counterfactuals=cfs,
                                   importance={f: 1.0 for f in changed}, importance_derived=True))
    return out


def _means(long):
    return long.groupby(["metric", "method"])["value"].mean()


@pytest.fixture(scope="module")
def scenario_means(case, config):
    attributions, perturbed, seeds = _attribution_scenario(case, config)
    means = {}
    for family, explanations, kw in (("vector", attributions, {"perturbed": perturbed, "seed_runs": seeds}),
                                     ("rule", _rule_scenario(case), {}),
                                     ("counterfactual", _cf_scenario(case), {})):
        long = compute_instance_metrics(case.model, case.data, explanations, config, **kw)
        means[family] = _means(long).to_dict()
    # claim-scoped metrics: the true attributions against the reversed ranking, beside a one-condition rule
    # and one-change counterfactuals on the same cases (for the equal-k columns)
    claimed = [e for e in attributions if e.method in ("Good", "Bad")]
    claimed += [Explanation("Rule", e.instance_id, e.predicted_class, e.probability, rule=e.rule)
                for e in _rule_scenario(case) if e.method == "Good"]
    claimed += [Explanation("CF", e.instance_id, e.predicted_class, e.probability,
                            counterfactuals=e.counterfactuals[:1])
                for e in _cf_scenario(case) if e.method == "Good"]
    rows = claim_rows(case.model, case.data, [e for e in claimed if e.attributions is not None or e.method == "CF"
                                              or e.rule is not None], config)
    frame = pd.DataFrame(rows, columns=["method", "instance_id", "metric", "value", "derived"])
    means["claim"] = _means(frame[frame["method"].isin(["Good", "Bad", "Rule"])]).to_dict()
    return means


PAIRS = {"num_important_features": ("GoodSparse", "BadSparse"), "gini_sparseness": ("GoodSparse", "BadSparse"),
         "entropy_complexity": ("GoodSparse", "BadSparse"), "rule_support_test": ("GoodCover", "BadCover"),
         "rule_coverage_test": ("GoodCover", "BadCover"),
         "reader_coverage": ("Good", "Rule")}  # an attribution reader answers everywhere, a rule reader inside it


def _scenario(metric):
    category = METRICS[metric].category
    return category if category in ("rule", "counterfactual", "claim") else "vector"


#: The question skills' directions are tested in worlds built for each family (tests/test_question_skills*.py).
DIRECTED_HERE = [m for m, spec in METRICS.items() if spec.category not in ("question", "question_detail")]


@pytest.mark.parametrize("metric", DIRECTED_HERE)
def test_metric_moves_in_declared_direction(metric, scenario_means):
    good_name, bad_name = PAIRS.get(metric, ("Good", "Bad"))
    means = scenario_means[_scenario(metric)]
    good, bad = means[(metric, good_name)], means[(metric, bad_name)]
    assert np.isfinite(good) and np.isfinite(bad)
    if METRICS[metric].direction == "higher":
        assert good > bad
    else:
        assert good < bad


def test_few_model_calls_for_all_methods_and_flags(case, config):
    attributions, _, _ = _attribution_scenario(case, config)
    explanations = attributions + _rule_scenario(case) + _cf_scenario(case)
    explanations.append(Explanation("Good", 0, 1, 0.7, error="explainer crashed"))
    case.model.reset_counters()
    long = compute_instance_metrics(case.model, case.data, explanations, config)
    # one call for every masked row of every method, one for the test rows (rules), one for the training rows
    # (counterfactual neighbours)
    assert case.model.calls == 3
    assert list(long.columns) == INSTANCE_COLUMNS
    assert set(long["metric"]) <= set(METRICS)
    fid = long[long["metric"] == "fidelity_deletion"]
    assert len(fid) == sum(e.error is None and e.importance is not None for e in explanations)
    derived = long[long["metric"].isin(["fidelity_deletion", "gini_sparseness"])].groupby("method")["derived"].all()
    assert not derived["GoodSparse"]
    rule_rows = long[long["metric"] == "rule_precision"]
    assert not rule_rows["derived"].any() and len(rule_rows) == 4 * N
    _, summary = summarise(long, n_resamples=200, seed=0)
    expected = long.groupby(["method", "metric"])["derived"].any()
    assert summary.set_index(["method", "metric"])["derived"].sort_index().equals(expected.sort_index())
    assert expected[("Bad", "fidelity_deletion")] and not expected[("Bad", "rule_precision")]


def test_empty_input_gives_empty_table(case, config):
    long = compute_instance_metrics(case.model, case.data, [Explanation("SHAP", 0, 1, 0.5, error="x")], config)
    assert long.empty and list(long.columns) == INSTANCE_COLUMNS
    assert isinstance(long, pd.DataFrame)


def test_values_do_not_depend_on_the_method_name(case, config):
    """The Random baseline, SHAP or any other name: the same content gets the same values (paired draws)."""
    attributions, perturbed, _ = _attribution_scenario(case, config)
    good = [e for e in attributions if e.method == "Good"]

    def renamed(name):
        out = [Explanation(name, e.instance_id, e.predicted_class, e.probability, attributions=e.attributions,
                           importance=e.importance) for e in good]
        copies = {(name, iid): v for (m, iid), v in perturbed.items() if m == "Good"}
        long = compute_instance_metrics(case.model, case.data, out, config, perturbed=copies)
        return long.drop(columns="method").sort_values(["instance_id", "metric"]).reset_index(drop=True)

    pd.testing.assert_frame_equal(renamed("Random"), renamed("SHAP"))


def test_fidelity_baseline_setting_reaches_the_metrics():
    from metrics_synthetic import skewed_case

    skewed = skewed_case()
    X = skewed.data.X_test.iloc[:60]
    cls = skewed.model.predict(X)
    feats = skewed.data.feature_names
    explanations = [_expl("Truth", i, cls[i], [1.0, 1.0, 0, 0, 0, 0, 0, 0], feats) for i in range(len(X))]
    defined = {}
    for baseline in ("training_average", "other_class_average"):
        cfg = HexevalConfig()
        cfg.evaluation.fidelity.baseline = baseline
        long = compute_instance_metrics(skewed.model, skewed.data, explanations, cfg)
        defined[baseline] = long[long["metric"] == "fidelity_combined"]["value"].notna().mean()
    assert defined["other_class_average"] == 1.0 > defined["training_average"] + 0.2


def test_shared_inputs_change_no_value_and_are_computed_once(case, config):
    """Metric passes sharing one SharedInputs give the tables they give alone; the training rows and the
    noisy copies go to the model once."""
    from hexeval_engine.metrics.shared_inputs import SharedInputs

    attributions, perturbed, _ = _attribution_scenario(case, config)
    good = [e for e in attributions if e.method == "Good"]
    bad = [e for e in attributions if e.method == "Bad"]
    stab = {m: {k: v for k, v in perturbed.items() if k[0] == m} for m in ("Good", "Bad")}
    # each pass needs the training rows' classes (baseline, manifold); the first two the same noisy copies
    passes = [(good, stab["Good"]), (bad, stab["Bad"]), (_cf_scenario(case), None)]
    assert stab["Good"] and stab["Bad"]
    alone = [compute_instance_metrics(case.model, case.data, p, config, perturbed=s) for p, s in passes]
    alone_claims = claim_rows(case.model, case.data, attributions, config)
    train_rows, copy_rows = len(case.data.X_train), 3 * len({iid for _, iid in stab["Good"]})
    shared = SharedInputs(case.model, case.data)
    seen = []
    predict = case.model.predict_proba

    def counting(X):
        seen.append(len(X))
        return predict(X)

    case.model.predict_proba = counting
    try:
        together = [compute_instance_metrics(case.model, case.data, p, config, perturbed=s, shared=shared)
                    for p, s in passes]
        together_claims = claim_rows(case.model, case.data, attributions, config, shared=shared)
    finally:
        del case.model.predict_proba
    for a, b in zip(alone, together):
        pd.testing.assert_frame_equal(a, b)
    assert together_claims == alone_claims
    assert config.evaluation.fidelity.baseline == "other_class_average"
    assert seen.count(train_rows) == 1  # four passes, one prediction of the training rows
    assert seen.count(copy_rows) == 1  # two methods measured for stability, one prediction of the copies
    assert {e.method for e in good} == {"Good"} and alone[0]["metric"].eq("local_lipschitz").any()
    copied = copy.copy(case.data)  # equal content, another object: a pass given it computes its own
    assert not SharedInputs(case.model, copied).belongs_to(case.model, case.data)


def test_the_counterfactual_manifold_is_built_once_per_run_and_gives_the_same_values(case, config, monkeypatch):
    """Two counterfactual passes sharing one SharedInputs embed the training rows once and give the tables a
    fresh build gives each pass."""
    from hexeval_engine.metrics import plausibility
    from hexeval_engine.metrics.shared_inputs import SharedInputs

    counterfactuals = _cf_scenario(case)
    alone = [compute_instance_metrics(case.model, case.data, counterfactuals, config) for _ in range(2)]
    builds = []
    build = plausibility.CounterfactualManifold.from_data.__func__

    def counted(cls, *args, **kwargs):
        builds.append(1)
        return build(cls, *args, **kwargs)

    monkeypatch.setattr(plausibility.CounterfactualManifold, "from_data", classmethod(counted))
    shared = SharedInputs(case.model, case.data)
    together = [compute_instance_metrics(case.model, case.data, counterfactuals, config, shared=shared)
                for _ in range(2)]
    for a, b in zip(alone, together):
        pd.testing.assert_frame_equal(a, b)
    assert alone[0]["metric"].str.startswith("counterfactual").any()
    assert len(builds) == 1
