"""The model-agnostic SHAP explainer's model calls, split into chunks on wide data, answer as one call does."""

from __future__ import annotations

import numpy as np

from hexeval_engine.explainers import shap_explainer as se


def _explainer(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    return se.ShapExplainer(model, data, config, seed=5), data, model


def test_chunked_calls_give_the_one_call_answer(usecase_bundle, monkeypatch):
    explainer, data, model = _explainer(usecase_bundle)
    Z = data.coder.encode(data.X_train.iloc[:240])
    whole = model.predict_proba(data.coder.decode(Z))[:, 1]  # the oracle: one call
    calls = model.calls
    monkeypatch.setattr(se, "AGNOSTIC_CHUNK_CELLS", 13 * 50)  # 50 rows of heart's 13 features per call
    got = se.chunked_positive(model, data.coder, Z)
    assert model.calls - calls == 5 and np.array_equal(got, whole)


def test_permutation_shap_values_do_not_depend_on_the_chunks(usecase_bundle, monkeypatch):
    explainer, data, model = _explainer(usecase_bundle)
    rows = data.X_test.iloc[:2][list(data.feature_names)].reset_index(drop=True)
    calls = model.calls
    one_call = explainer._agnostic_values(rows)
    whole_calls = model.calls - calls
    explainer, _, model = _explainer(usecase_bundle)
    monkeypatch.setattr(se, "AGNOSTIC_CHUNK_CELLS", 13 * 700)
    calls = model.calls
    chunked = explainer._agnostic_values(rows)
    assert model.calls - calls > whole_calls  # the chunking happened
    assert np.array_equal(one_call[0], chunked[0]) and np.array_equal(one_call[1], chunked[1])


def test_shaps_own_tree_routine_runs_in_calls_of_a_few_rows_and_gives_the_one_call_values(usecase_bundle):
    """shap's tree routine (used when the shared-background routine does not cover a model) holds the GIL for a
    whole call: a few rows per call let other threads (the dashboard's server, the helper process's feeder) run
    between calls, and must not change a value."""
    import shap

    _, config, data, model = usecase_bundle("credit_risk")
    explainer = se.ShapExplainer(model, data, config, seed=5)
    rows = data.X_test.iloc[:11][list(data.feature_names)].reset_index(drop=True)
    proba = model.predict_proba(rows)[:, 1]
    background = se.dense_matrix(model.transform(explainer.background))
    tree = shap.TreeExplainer(model.final_estimator, data=background, feature_perturbation="interventional",
                              model_output="probability")
    Xt = se.dense_matrix(model.transform(rows))
    oracle = np.asarray(tree.shap_values(Xt, check_additivity=False), dtype=float)  # shap itself, one call
    sizes = []
    real = tree.shap_values
    tree.shap_values = lambda X, **kw: (sizes.append(len(X)), real(X, **kw))[1]
    phi, base = se._tree_shap(tree, Xt, model.positive_index)
    assert sizes == [4, 4, 3]
    assert np.array_equal(phi, oracle) and np.allclose(phi.sum(axis=1) + base, proba, atol=se.ADDITIVITY_TOLERANCE)
