"""The randomisation check's label-permuted copy, fitted in a background thread while the technical stage runs:
the same copy and the same check result as fitting it in the check, and evaluate() starts it before the explainers."""

from __future__ import annotations

import importlib
import threading

import numpy as np
import pandas as pd
import pytest

from hexeval_engine import evaluate
from hexeval_engine.explainers import explain_instances
from hexeval_engine.technical import sanity
from hexeval_engine.technical.run import TechnicalResult

#: the module (``hexeval_engine.evaluate`` the attribute is the function of the same name)
evaluate_module = importlib.import_module("hexeval_engine.evaluate")


@pytest.fixture(scope="module")
def credit(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    config = config.model_copy(deep=True)
    config.evaluation.sanity.randomisation_cases = 3
    return config, data, model


def test_background_copy_predicts_as_the_foreground_one(credit):
    config, data, model = credit
    refit = sanity.RandomisedRefit(model, data, config)
    foreground, reason = sanity._randomised_model(model, data, config)
    background, background_reason = refit.result()
    assert reason == background_reason == "" and background is not None
    X = data.X_test[list(data.feature_names)]
    np.testing.assert_array_equal(background.predict_proba(X), foreground.predict_proba(X))
    assert not np.array_equal(background.predict_proba(X), model.predict_proba(X))  # really re-fitted


def test_check_result_is_the_same_with_the_early_refit(credit):
    config, data, model = credit
    ids = [0, 1, 2]
    real = explain_instances(model, data, config, ids, ["SHAP", "LIME", "Random"])
    empty = pd.DataFrame()
    technical = TechnicalResult(metrics=empty, metrics_long=empty, per_instance=empty, explanations=real,
                                instance_ids=ids, shared_instance_ids=ids)
    plain = sanity.randomisation_check(model, data, config, technical)
    early = sanity.randomisation_check(model, data, config, technical, refit=sanity.RandomisedRefit(model, data, config))
    assert plain["status"] == early["status"] == "done"
    assert early == plain


def test_a_refit_of_another_model_is_refused(credit, usecase_bundle):
    config, data, model = credit
    _, _, _, heart_model = usecase_bundle("heart")
    ids = [0]
    empty = pd.DataFrame()
    real = explain_instances(model, data, config, ids, ["Random"])
    technical = TechnicalResult(metrics=empty, metrics_long=empty, per_instance=empty, explanations=real,
                                instance_ids=ids, shared_instance_ids=ids)
    with pytest.raises(ValueError, match="another model"):
        sanity.randomisation_check(model, data, config, technical,
                                   refit=sanity.RandomisedRefit(heart_model, data, config))


def test_evaluate_fits_the_copy_in_the_background_before_the_technical_stage(monkeypatch):
    events = []
    fit, technical = sanity._randomised_model, evaluate_module.run_technical_evaluation

    def recording_fit(*args, **kwargs):
        events.append(("refit", threading.current_thread().name))
        return fit(*args, **kwargs)

    def recording_technical(*args, **kwargs):
        events.append(("technical", threading.current_thread().name))
        return technical(*args, **kwargs)

    monkeypatch.setattr(sanity, "_randomised_model", recording_fit)
    monkeypatch.setattr(evaluate_module, "run_technical_evaluation", recording_technical)
    small = {"personas": {"enabled": False}, "narratives": {"enabled": False},
             "evaluation": {"sample_size": 4, "bootstrap_resamples": 100,
                            "explainers": {"anchor": {"enabled": False}, "dice": {"enabled": False},
                                           "lime": {"num_samples": 200, "stability_test": False}},
                            "sanity": {"randomisation_cases": 2}}}
    result = evaluate(usecase="heart", config_overrides=small, save=False)
    assert result.sanity["randomisation"]["status"] == "done"
    refits = [name for kind, name in events if kind == "refit"]
    assert len(refits) == 1 and refits[0].startswith("hexeval-refit")
    assert [kind for kind, _ in events].count("technical") == 1


def test_no_refit_when_the_check_is_off(monkeypatch):
    calls = []
    monkeypatch.setattr(sanity, "_randomised_model", lambda *a, **k: calls.append(1))
    small = {"personas": {"enabled": False}, "narratives": {"enabled": False},
             "evaluation": {"sample_size": 3, "bootstrap_resamples": 100,
                            "explainers": {"anchor": {"enabled": False}, "dice": {"enabled": False},
                                           "lime": {"num_samples": 200, "stability_test": False}},
                            "sanity": {"randomisation_check": False}}}
    result = evaluate(usecase="heart", config_overrides=small, save=False)
    assert result.sanity["randomisation"]["status"] == "skipped" and calls == []
