"""Fidelity (deletion / insertion AUC) and the baseline row: correctness against closed forms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from metrics_synthetic import linear_case, mixed_case, true_attributions

from hexeval_engine.metrics import deletion_insertion_auc, deletion_insertion_auc_loop, make_baseline
from hexeval_engine.metrics.fidelity import step_counts


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


def test_ties_follow_feature_order(mixed):
    X = mixed.data.X_test.iloc[:6]
    cls = _explained(mixed, X)
    base = make_baseline(mixed.data)
    tied = np.ones((6, 4))
    explicit = np.tile([4.0, 3.0, 2.0, 1.0], (6, 1))
    for a, b in zip(deletion_insertion_auc(mixed.model, X, tied, cls, base, 5),
                    deletion_insertion_auc(mixed.model, X, explicit, cls, base, 5)):
        np.testing.assert_allclose(a, b, atol=1e-12)


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
