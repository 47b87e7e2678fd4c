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
