"""compute_instance_metrics end to end, and every registered metric moving in its declared direction.

"Good" and "Bad" explanations of the same instances are built for every metric family on the
synthetic logistic-regression case (true closed-form attributions are the good ones); the mean
of each metric must favour "Good" in the direction the registry declares.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from metrics_synthetic import linear_case, true_attributions

from hexeval_engine.config import HexevalConfig
from hexeval_engine.explanation import Condition, Counterfactual, Explanation, Rule
from hexeval_engine.metrics import INSTANCE_COLUMNS, METRICS, compute_instance_metrics, summarise

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


def _attribution_scenario(case):
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
        for method, scale in (("Good", 0.02), ("Bad", 2.0)):
            noisy = [_expl(method, i, cls[i], phi[i] + rng.normal(scale=scale, size=len(feats)), feats)
                     for _ in range(3)]
            perturbed[(method, i)] = noisy
            seeds[(method, i)] = noisy
    return good + bad, perturbed, seeds


def _rule_scenario(case):
    cls = case.model.predict(case.data.X_test.iloc[:N])
    cond = [Condition(f"x{j}", ">", 0.0, f"x{j} > 0") for j in range(4)]
    out = []
    for i in range(N):
        out.append(Explanation("Good", i, int(cls[i]), 0.7, rule=Rule(cond[:1], 0.96, 0.30),
                               importance={"x0": 1.0}, importance_derived=True))
        out.append(Explanation("Bad", i, int(cls[i]), 0.7, rule=Rule(cond, 0.60, 0.04),
                               importance={f"x{j}": 1.0 for j in range(4)}, importance_derived=True))
    return out


def _cf(x, flips, **new):
    return Counterfactual({f: (x[f], v) for f, v in new.items()}, 0.4, flips, {**x.to_dict(), **new})


def _cf_scenario(case):
    cls = case.model.predict(case.data.X_test.iloc[:N])
    out = []
    for i in range(N):
        x = case.data.X_test.iloc[i]
        good = [_cf(x, True, x0=x["x0"] + 0.5), _cf(x, True, x2=x["x2"] - 0.5)]
        bad = [_cf(x, False, x0=x["x0"] + 3, x1=x["x1"] + 3, x3=x["x3"] + 3),
               _cf(x, False, x0=x["x0"] + 3.1, x1=x["x1"] + 3.1, x3=x["x3"] + 3, x5=x["x5"] + 0.1)]
        for method, cfs in (("Good", good), ("Bad", bad)):
            changed = {f for cf in cfs for f in cf.changes}
            out.append(Explanation(method, i, int(cls[i]), 0.7, counterfactuals=cfs,
                                   importance={f: 1.0 for f in changed}, importance_derived=True))
    return out


def _means(long):
    return long.groupby(["metric", "method"])["value"].mean()


@pytest.fixture(scope="module")
def scenario_means(case, config):
    attributions, perturbed, seeds = _attribution_scenario(case)
    means = {}
    for explanations, kw in ((attributions, {"perturbed": perturbed, "seed_runs": seeds}),
                             (_rule_scenario(case), {}), (_cf_scenario(case), {})):
        long = compute_instance_metrics(case.model, case.data, explanations, config, **kw)
        means.update(_means(long).to_dict())
    return means


PAIRS = {"num_important_features": ("GoodSparse", "BadSparse"), "gini_sparseness": ("GoodSparse", "BadSparse"),
         "entropy_complexity": ("GoodSparse", "BadSparse")}


@pytest.mark.parametrize("metric", list(METRICS))
def test_metric_moves_in_declared_direction(metric, scenario_means):
    good_name, bad_name = PAIRS.get(metric, ("Good", "Bad"))
    good, bad = scenario_means[(metric, good_name)], scenario_means[(metric, bad_name)]
    assert np.isfinite(good) and np.isfinite(bad)
    if METRICS[metric].direction == "higher":
        assert good > bad
    else:
        assert good < bad


def test_one_model_call_for_all_methods_and_flags(case, config):
    attributions, _, _ = _attribution_scenario(case)
    explanations = attributions + _rule_scenario(case) + _cf_scenario(case)
    explanations.append(Explanation("Good", 0, 1, 0.7, error="explainer crashed"))
    case.model.reset_counters()
    long = compute_instance_metrics(case.model, case.data, explanations, config)
    assert case.model.calls == 1
    assert list(long.columns) == INSTANCE_COLUMNS
    assert set(long["metric"]) <= set(METRICS)
    fid = long[long["metric"] == "fidelity_deletion"]
    assert len(fid) == sum(e.error is None and e.importance is not None for e in explanations)
    derived = long[long["metric"].isin(["fidelity_deletion", "gini_sparseness"])].groupby("method")["derived"].all()
    assert not derived["GoodSparse"]
    rule_rows = long[long["metric"] == "rule_precision"]
    assert not rule_rows["derived"].any() and len(rule_rows) == 2 * N
    _, summary = summarise(long, n_resamples=200, seed=0)
    expected = long.groupby(["method", "metric"])["derived"].any()
    assert summary.set_index(["method", "metric"])["derived"].sort_index().equals(expected.sort_index())
    assert expected[("Bad", "fidelity_deletion")] and not expected[("Bad", "rule_precision")]


def test_empty_input_gives_empty_table(case, config):
    long = compute_instance_metrics(case.model, case.data, [Explanation("SHAP", 0, 1, 0.5, error="x")], config)
    assert long.empty and list(long.columns) == INSTANCE_COLUMNS
    assert isinstance(long, pd.DataFrame)
