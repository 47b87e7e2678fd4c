"""Fidelity (deletion / insertion AUC, normalised and combined) and the baseline row.

Correctness against closed forms, the known-relevance synthetic cases (y depends on x0 and x1 among
eight independent features), the ordering rules (signed relevance first, random tie-breaking that
does not depend on the column order) and the normalisation by f(x) - f(baseline).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from fidelity_loop import deletion_insertion_auc_loop
from metrics_synthetic import linear_case, mixed_case, relevance_case, skewed_case, true_attributions

from hexeval_engine.metrics import deletion_insertion_auc, fidelity_scores, \
    make_baseline, make_class_baselines
from hexeval_engine.metrics.fidelity import normalised, step_counts


@pytest.fixture(scope="module")
def linear():
    return linear_case()


@pytest.fixture(scope="module")
def mixed():
    return mixed_case()


def _explained(case, X):
    return case.model.predict(X)


def _toward_class(phi, cls):
    """Signed attribution toward the explained class (class 0 flips the sign)."""
    return np.where(cls[:, None] == 1, phi, -phi)


def test_true_attributions_beat_random_on_both_curves(linear):
    X = linear.data.X_test.iloc[:50]
    cls = _explained(linear, X)
    phi = np.abs(_toward_class(true_attributions(linear, X), cls))
    rng = np.random.default_rng(3)
    shuffled = np.array([rng.permutation(row) for row in phi])
    base = make_baseline(linear.data)
    d_true, i_true = deletion_insertion_auc(linear.model, X, phi, cls, base, 20)
    d_rand, i_rand = deletion_insertion_auc(linear.model, X, shuffled, cls, base, 20)
    d_rev, i_rev = deletion_insertion_auc(linear.model, X, -phi, cls, base, 20)
    assert d_true.mean() < d_rand.mean() < d_rev.mean()
    assert i_true.mean() > i_rand.mean() > i_rev.mean()
    assert d_true.mean() < i_true.mean()  # the inversion the original HEXEval reported must not happen


def test_two_steps_is_the_mean_of_instance_and_baseline(linear):
    X = linear.data.X_test.iloc[:8]
    base = make_baseline(linear.data)
    for cls_value in (0, 1):
        cls = np.full(len(X), cls_value)
        deletion, insertion = deletion_insertion_auc(linear.model, X, np.ones((8, X.shape[1])), cls, base, 2)
        p_x = linear.model.predict_proba(X)[:, cls_value]
        p_b = linear.model.predict_proba(base)[0, cls_value]
        np.testing.assert_allclose(deletion, (p_x + p_b) / 2, atol=1e-12)
        np.testing.assert_allclose(insertion, (p_x + p_b) / 2, atol=1e-12)


def test_vectorised_equals_loop_with_mixed_dtypes_and_zero_rows(mixed):
    X = mixed.data.X_test.iloc[:12]
    rng = np.random.default_rng(0)
    imp = rng.random((12, X.shape[1]))
    imp[2] = 0.0  # all-zero importance: no ranking
    imp[5] = [1.0, 1.0, 0.0, 1.0]  # ties
    cls = _explained(mixed, X)
    base = make_baseline(mixed.data)
    fast = deletion_insertion_auc(mixed.model, X, imp, cls, base, 5)
    slow = deletion_insertion_auc_loop(mixed.model, X, imp, cls, base, 5)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, atol=1e-9, equal_nan=True)
        assert np.isnan(a[2]) and np.isfinite(np.delete(a, 2)).all()


def test_tie_breaking_does_not_depend_on_column_order(mixed):
    X = mixed.data.X_test.iloc[:10]
    cls = _explained(mixed, X)
    base = make_baseline(mixed.data)
    tied = np.tile([1.0, 1.0, 0.0, 1.0], (10, 1))  # an Anchor-like vector: three rule features, one not
    ids = np.arange(10)
    forward = fidelity_scores(mixed.model, X, tied, cls, base, 5, tie_draws=5, random_state=7, instance_ids=ids)
    reverse_cols = list(X.columns)[::-1]
    backward = fidelity_scores(mixed.model, X[reverse_cols], tied[:, ::-1], cls, base[reverse_cols], 5, tie_draws=5,
                               random_state=7, instance_ids=ids)
    for name in forward:
        np.testing.assert_allclose(forward[name], backward[name], atol=1e-9, err_msg=name)


def test_ties_are_broken_at_random_and_averaged(mixed):
    X = mixed.data.X_test.iloc[:10]
    cls = _explained(mixed, X)
    base = make_baseline(mixed.data)
    tied = np.ones((10, 4))
    one = [deletion_insertion_auc(mixed.model, X, tied, cls, base, 5, tie_draws=1, random_state=s)[0] for s in range(8)]
    assert np.ptp(np.array(one), axis=0).max() > 0.01  # different seeds, different orders of the tied features
    many = deletion_insertion_auc(mixed.model, X, tied, cls, base, 5, tie_draws=40, random_state=0)[0]
    # averaged over many draws, the value approaches the mean over random orders and hardly depends on the seed
    assert np.abs(many - np.mean(one, axis=0)).max() < np.ptp(np.array(one), axis=0).max()
    untied = np.tile([4.0, 3.0, 2.0, 1.0], (10, 1))
    a = deletion_insertion_auc(mixed.model, X, untied, cls, base, 5, tie_draws=5, random_state=1)
    b = deletion_insertion_auc(mixed.model, X, untied, cls, base, 5, tie_draws=1, random_state=2)
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, atol=1e-12)  # without ties there is nothing to draw


def test_vectorised_equals_loop_with_tie_draws(mixed):
    X = mixed.data.X_test.iloc[:6]
    imp = np.tile([1.0, 1.0, 0.5, 1.0], (6, 1))
    cls = _explained(mixed, X)
    base = make_baseline(mixed.data)
    fast = deletion_insertion_auc(mixed.model, X, imp, cls, base, 5, tie_draws=3, random_state=4)
    slow = deletion_insertion_auc_loop(mixed.model, X, imp, cls, base, 5, tie_draws=3, random_state=4)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, atol=1e-9)


def test_signed_order_puts_features_against_the_class_last(linear):
    X = linear.data.X_test.iloc[:60]
    cls = _explained(linear, X)
    phi = _toward_class(true_attributions(linear, X), cls)
    assert (phi < 0).any(axis=1).mean() > 0.5  # most cases have features arguing against their class
    base = make_baseline(linear.data)
    signed = fidelity_scores(linear.model, X, phi, cls, base, 20)
    magnitude = fidelity_scores(linear.model, X, np.abs(phi), cls, base, 20)
    # removing a feature that argues against the class early *raises* the probability: |phi| ordering pays for it
    assert signed["fidelity_deletion"].mean() < magnitude["fidelity_deletion"].mean() - 0.05
    assert np.nanmean(signed["fidelity_combined"]) > np.nanmean(magnitude["fidelity_combined"])


@pytest.mark.parametrize("kind", ["lr", "gb"])
def test_known_relevance_beats_random_orderings(kind):
    case = relevance_case(kind)
    X = case.data.X_test.iloc[:80]
    cls = _explained(case, X)
    base = make_baseline(case.data)
    truth = np.tile([1.0, 1.0, 0, 0, 0, 0, 0, 0], (len(X), 1))  # x0 and x1 matter, the rest does not
    rng = np.random.default_rng(11)
    random = rng.normal(size=truth.shape)
    common = {"tie_draws": 5, "random_state": 3, "instance_ids": np.arange(len(X))}
    good = fidelity_scores(case.model, X, truth, cls, base, 20, **common)["fidelity_combined"]
    bad = fidelity_scores(case.model, X, random, cls, base, 20, **common)["fidelity_combined"]
    paired = good - bad
    paired = paired[np.isfinite(paired)]
    assert len(paired) > 40  # most cases keep a normalised score
    boot = np.random.default_rng(0).choice(paired, size=(2000, len(paired))).mean(axis=1)
    assert np.quantile(boot, 0.025) > 0.15  # paired difference clearly above 0
    assert np.nanmean(bad) == pytest.approx(0.5, abs=0.12)  # a random ordering scores about a straight line


def test_normalisation_removes_the_lift_of_a_baseline_that_predicts_the_class():
    case = skewed_case()
    X = case.data.X_test.iloc[:200]
    cls = _explained(case, X)
    base = make_baseline(case.data)
    assert case.model.predict_proba(base)[0, 0] > 0.8  # the all-average row already says "class 0"
    zero = cls == 0
    rng = np.random.default_rng(5)
    random = rng.normal(size=(len(X), X.shape[1]))
    values = fidelity_scores(case.model, X, random, cls, base, 20, tie_draws=5, random_state=1,
                             instance_ids=np.arange(len(X)))
    assert values["fidelity_insertion"][zero].mean() > 0.8  # raw insertion of a random order looks excellent
    kept = zero & np.isfinite(values["fidelity_insertion_norm"])
    # normalised, the class-0 cases whose prediction removal can move still score about a straight line ...
    assert kept.sum() >= 30 and abs(np.mean(values["fidelity_insertion_norm"][kept]) - 0.5) < 0.15
    # ... and the class-0 cases the baseline already predicts (gap below min_gap) get no normalised score
    p_x = case.model.predict_proba(X)[:, 0]
    p_b = case.model.predict_proba(base)[0, 0]
    assert np.isnan(values["fidelity_insertion_norm"][zero & (p_x - p_b < 0.05)]).all()


def test_normalised_formula_and_its_guards():
    np.testing.assert_allclose(normalised([0.8, 0.5], [0.9, 0.9], [0.4, 0.4], 0.05), [0.8, 0.2])
    assert np.isnan(normalised([0.95], [0.96], [0.93], 0.05)).all()  # gap 0.03 < min_gap
    assert np.isnan(normalised([0.7], [0.6], [0.9], 0.05)).all()  # baseline above the case: not defined


def test_combined_is_the_mean_of_normalised_insertion_and_one_minus_deletion(linear):
    X = linear.data.X_test.iloc[:30]
    cls = _explained(linear, X)
    phi = _toward_class(true_attributions(linear, X), cls)
    v = fidelity_scores(linear.model, X, phi, cls, make_baseline(linear.data), 20)
    expected = (v["fidelity_insertion_norm"] + 1 - v["fidelity_deletion_norm"]) / 2
    np.testing.assert_allclose(v["fidelity_combined"], expected)
    p_x = linear.model.predict_proba(X)[np.arange(30), cls]
    p_b = linear.model.predict_proba(make_baseline(linear.data))[0, cls]
    raw = normalised(v["fidelity_deletion"], p_x, p_b, 0.05)
    # Defined on the same cases; per-point clipping keeps every normalised area in [0, 1] (a curve that dips
    # below f(b) counts as fully removed) and never moves it further from the raw normalised area's clip.
    assert np.array_equal(np.isnan(raw), np.isnan(v["fidelity_deletion_norm"]))
    ok = ~np.isnan(raw)
    for name in ("fidelity_deletion_norm", "fidelity_insertion_norm", "fidelity_combined"):
        assert ((v[name][ok] >= 0) & (v[name][ok] <= 1)).all(), name
    inside = ok & (raw >= 0) & (raw <= 1)
    assert inside.any()


def test_few_model_calls_and_chunking_does_not_change_values(linear):
    X = linear.data.X_test.iloc[:50]
    cls = _explained(linear, X)
    imp = np.abs(true_attributions(linear, X))
    base = make_baseline(linear.data)
    linear.model.reset_counters()
    whole = deletion_insertion_auc(linear.model, X, imp, cls, base, 20)
    assert linear.model.calls == 1
    assert linear.model.rows == 50 * 2 * len(step_counts(X.shape[1], 20))
    linear.model.reset_counters()
    chunked = deletion_insertion_auc(linear.model, X, imp, cls, base, 20, chunk_rows=100)
    assert linear.model.calls == int(np.ceil(linear.model.rows / 100)) > 1
    for a, b in zip(whole, chunked):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_bad_shapes_are_rejected(linear):
    X = linear.data.X_test.iloc[:3]
    base = make_baseline(linear.data)
    with pytest.raises(ValueError, match="shape"):
        deletion_insertion_auc(linear.model, X, np.ones((2, X.shape[1])), [1, 1, 1], base, 5)
    with pytest.raises(ValueError, match="0/1"):
        deletion_insertion_auc(linear.model, X, np.ones((3, X.shape[1])), [1, 2, 1], base, 5)


def test_step_counts():
    assert step_counts(13, 20).tolist() == list(range(14))
    ks = step_counts(30, 5)
    assert ks[0] == 0 and ks[-1] == 30 and len(ks) == 5
    with pytest.raises(ValueError):
        step_counts(5, 1)


def test_baseline_keeps_dtypes_and_uses_mean_and_mode(mixed):
    base = make_baseline(mixed.data)
    X = mixed.data.X_train
    assert list(base.columns) == list(X.columns)
    assert base.dtypes.to_dict() == X.dtypes.to_dict()
    assert base.at[0, "age"] == int(np.rint(X["age"].mean()))
    assert base.at[0, "income"] == pytest.approx(X["income"].mean())
    assert base.at[0, "grade"] == X["grade"].mode().iloc[0]


def test_baseline_ignores_missing_values(mixed):
    data = mixed.data
    holed = data.X_train.copy()
    holed.loc[:9, "rate"] = np.nan
    data_holed = type(data)(**{**data.__dict__, "X_train": holed})
    assert make_baseline(data_holed).at[0, "rate"] == pytest.approx(holed["rate"].iloc[10:].mean())
    assert not pd.isna(make_baseline(data_holed).at[0, "rate"])


def test_class_baselines_are_the_other_class_average():
    case = skewed_case()
    predicted = case.model.predict(case.data.X_train)
    rows = make_class_baselines(case.data, predicted)
    assert len(rows) == 2 and list(rows.columns) == list(case.data.X_train.columns)
    for explained in (0, 1):
        others = case.data.X_train[predicted == 1 - explained]
        np.testing.assert_allclose(rows.iloc[explained].to_numpy(dtype=float), others.mean().to_numpy())
    # a model that never predicts class 1 leaves class 0 without a contrast: the training average is used
    fallback = make_class_baselines(case.data, np.zeros(len(predicted), dtype=int))
    average = make_baseline(case.data).iloc[0].to_numpy(dtype=float)
    np.testing.assert_allclose(fallback.iloc[0].to_numpy(dtype=float), average)


def test_other_class_baseline_scores_the_cases_the_training_average_cannot():
    case = skewed_case()
    X = case.data.X_test.iloc[:200]
    cls = _explained(case, X)
    rows = make_class_baselines(case.data, case.model.predict(case.data.X_train))
    ids = np.arange(len(X))
    truth = np.tile([1.0, 1.0, 0, 0, 0, 0, 0, 0], (len(X), 1))
    random = np.random.default_rng(8).normal(size=truth.shape)
    common = {"tie_draws": 5, "random_state": 2, "instance_ids": ids, "baseline_of": cls}
    good = fidelity_scores(case.model, X, truth, cls, rows, 20, **common)["fidelity_combined"]
    bad = fidelity_scores(case.model, X, random, cls, rows, 20, **common)["fidelity_combined"]
    average = fidelity_scores(case.model, X, truth, cls, make_baseline(case.data), 20, tie_draws=5, random_state=2,
                              instance_ids=ids)["fidelity_combined"]
    assert np.isfinite(good).mean() > 0.95 > np.isfinite(average).mean() + 0.2
    assert np.nanmean(good - bad) > 0.15
    slow = deletion_insertion_auc_loop(case.model, X.iloc[:4], truth[:4], cls[:4], rows, 5, tie_draws=2,
                                       baseline_of=cls[:4])
    fast = deletion_insertion_auc(case.model, X.iloc[:4], truth[:4], cls[:4], rows, 5, tie_draws=2, baseline_of=cls[:4])
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, atol=1e-9)
