"""Bootstrap confidence intervals and the per-method summary tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.explainers.spec import FAMILIES
from hexeval_engine.metrics import ALIASES, METRICS, bootstrap_ci, get_spec, summarise


def test_ci_contains_mean_and_narrows_with_n():
    rng = np.random.default_rng(1)
    widths = []
    for n in (20, 200, 2000):
        values = rng.normal(0.5, 0.2, n)
        mean, low, high, used = bootstrap_ci(values, seed=0)
        assert used == n and low < mean < high and mean == pytest.approx(values.mean())
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]


def test_ci_is_deterministic_for_a_seed_and_wider_at_higher_confidence():
    values = np.random.default_rng(2).exponential(size=60)
    assert bootstrap_ci(values, seed=7) == bootstrap_ci(values, seed=7)
    assert bootstrap_ci(values, seed=7) != bootstrap_ci(values, seed=8)
    _, lo90, hi90, _ = bootstrap_ci(values, confidence=0.90, seed=0)
    _, lo99, hi99, _ = bootstrap_ci(values, confidence=0.99, seed=0)
    assert lo99 < lo90 and hi99 > hi90


def test_nan_dropped_and_small_samples():
    assert bootstrap_ci([1.0, np.nan, 3.0], seed=0)[3] == 2
    mean, low, high, n = bootstrap_ci([0.4], seed=0)
    assert (mean, n) == (0.4, 1) and math.isnan(low) and math.isnan(high)
    assert all(math.isnan(v) for v in bootstrap_ci([np.nan])[:3]) and bootstrap_ci([])[3] == 0
    assert bootstrap_ci([0.1] * 30, seed=0)[:3] == (pytest.approx(0.1),) * 3


def test_large_inputs_are_chunked_without_changing_the_mean():
    values = np.random.default_rng(3).random(20_000)
    mean, low, high, n = bootstrap_ci(values, n_resamples=500, seed=0)
    assert n == 20_000 and low < mean < high and high - low < 0.02


def _long(rows):
    return pd.DataFrame(rows, columns=["method", "instance_id", "metric", "value", "derived"])


def test_summarise_tables():
    rows = [("SHAP", i, "fidelity_deletion", 0.2 + 0.01 * i, False) for i in range(10)]
    rows += [("Anchor", i, "fidelity_deletion", 0.4, True) for i in range(5)]
    rows += [("Anchor", i, "rule_precision", 0.9 + 0.01 * i, False) for i in range(5)]
    rows += [("DiCE", 0, "counterfactual_validity", 1.0, False), ("DiCE", 1, "counterfactual_validity", 0.5, False)]
    wide, long = summarise(_long(rows), n_resamples=200, seed=0, methods=["SHAP", "LIME", "Anchor", "DiCE"])
    assert wide["method"].tolist() == ["SHAP", "LIME", "Anchor", "DiCE"]
    for name in [*METRICS, *ALIASES]:
        assert {name, f"{name}_ci_low", f"{name}_ci_high"} <= set(wide.columns)
    shap = wide.set_index("method").loc["SHAP"]
    assert shap["fidelity_deletion"] == pytest.approx(0.245)
    assert shap["fidelity_deletion_ci_low"] < 0.245 < shap["fidelity_deletion_ci_high"]
    assert wide.set_index("method").loc["LIME"].drop("method", errors="ignore").isna().all()
    anchor = wide.set_index("method").loc["Anchor"]
    assert anchor["rule_accuracy"] == anchor["rule_precision"] == pytest.approx(0.92)
    assert wide.set_index("method").loc["DiCE", "counterfactual_success"] == pytest.approx(0.75)
    assert list(long.columns) == ["method", "metric", "value", "ci_low", "ci_high", "n", "direction", "meaning",
                                  "derived"]
    keyed = long.set_index(["method", "metric"])
    assert bool(keyed.loc[("Anchor", "fidelity_deletion"), "derived"]) is True
    assert bool(keyed.loc[("Anchor", "rule_precision"), "derived"]) is False
    assert keyed.loc[("SHAP", "fidelity_deletion"), "direction"] == "lower"
    assert keyed.loc[("DiCE", "counterfactual_validity"), "n"] == 2


def test_summarise_rejects_a_wrong_frame():
    with pytest.raises(ValueError, match="derived"):
        summarise(pd.DataFrame({"method": [], "metric": [], "value": []}))


def test_registry_is_complete_and_aliases_resolve():
    for spec in METRICS.values():
        assert spec.direction in {"higher", "lower"} and spec.meaning and spec.source and spec.families
        assert set(spec.families) <= set(FAMILIES)
    assert get_spec("rule_accuracy").alias_of == "rule_precision"
    assert get_spec("counterfactual_success").direction == "higher"
    with pytest.raises(KeyError, match="Known"):
        get_spec("accuracy")
    # every metric the contract compares across families is computed for the random baseline too
    comparable = {name for name, spec in METRICS.items() if spec.cross_family}
    assert {"technical_claim_score", "claim_sufficiency", "claim_comprehensiveness", "reader_precision",
            "reader_coverage", "max_sensitivity"} <= comparable
    # full-ranking deletion/insertion rewards ordering features an explanation never named (issue 19)
    assert not {"fidelity_combined", "fidelity_deletion", "soft_sufficiency"} & comparable
    assert all("baseline" in METRICS[name].families for name in comparable)


def _percentile_bootstrap(values, *, n_resamples, seed, confidence=0.95):
    """The textbook percentile bootstrap of the mean, one resample at a time (the oracle of the summary's
    intervals): the same generator and draws as ``bootstrap_ci`` documents, none of its code."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, x.size, size=(n_resamples, x.size))
    means = np.array([x[row].sum() / x.size for row in draws])
    return np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])


@pytest.mark.parametrize("max_cells", [None, 50])  # 50: the resample indices do not fit one chunk, drawn per group
def test_summarise_gives_each_method_and_metric_its_own_interval_whatever_the_row_order(monkeypatch, max_cells):
    """Groups of one size share their resample indices (they depend on the size and the seed alone); every group's
    interval is still the percentile bootstrap of its own finite values, with the rows of the groups interleaved,
    groups of several sizes, missing values and a one-value group."""
    import hexeval_engine.metrics.aggregate as aggregate

    if max_cells:
        monkeypatch.setattr(aggregate, "_MAX_CELLS", max_cells)
    rng = np.random.default_rng(5)
    rows = []
    for method, metric, n in [("LIME", "fidelity_deletion", 12), ("SHAP", "fidelity_deletion", 12),
                              ("SHAP", "stability", 9), ("Anchor", "stability", 12), ("Random", "stability", 1)]:
        values = rng.normal(size=n)
        for i, v in enumerate(values):
            rows.append({"method": method, "instance_id": i, "metric": metric, "value": v, "derived": False})
        rows.append({"method": method, "instance_id": 99, "metric": metric, "value": float("nan"), "derived": False})
    frame = pd.DataFrame(rows).sample(frac=1.0, random_state=3).reset_index(drop=True)  # groups interleaved
    _, long = summarise(frame, n_resamples=200, seed=11)
    for (method, metric), group in frame.groupby(["method", "metric"]):
        got = long[(long["method"] == method) & (long["metric"] == metric)].iloc[0]
        finite = group["value"].dropna()
        assert got["n"] == finite.size and got["value"] == pytest.approx(finite.mean())
        if finite.size == 1:
            assert math.isnan(got["ci_low"]) and math.isnan(got["ci_high"])
            continue
        low, high = _percentile_bootstrap(group["value"].to_numpy(), n_resamples=200, seed=11)
        assert (got["ci_low"], got["ci_high"]) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))
