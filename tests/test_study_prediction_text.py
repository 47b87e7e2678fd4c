"""The prediction a persona and a study participant read names the outcome the model predicts and the
model's probability of *that* outcome, on every bundled use case and for both classes of a binary one
(oracle: the model's own ``predict_proba``, read here, not through the code under test)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hexeval_engine import get_usecase, load_config, load_model
from hexeval_engine.data.usecase_data import load_data_for_config
from hexeval_engine.models.prepare import prepare_usecase
from hexeval_engine.models.task import task_of
from hexeval_engine.raters.case import build_cases
from hexeval_engine.raters.prompt import render_prediction


def _percent(text: str) -> int:
    found = re.findall(r"(\d+)%", text)
    assert found, text
    return int(found[0])


@pytest.mark.parametrize("name", ["heart", "credit_risk"])
def test_binary_prediction_names_the_predicted_outcome_with_its_own_probability(usecase_bundle, name):
    _, config, data, model = usecase_bundle(name)
    domain = config.domain
    proba = np.asarray(model.predict_proba(data.X_test))[:, 1]
    threshold = float(getattr(model, "threshold", 0.5))
    positives = np.flatnonzero(proba >= threshold)[:5].tolist()
    negatives = np.flatnonzero(proba < threshold)[:5].tolist()
    assert positives and negatives, "the test needs cases of both classes"
    cases = build_cases(model, data, domain, positives + negatives)
    for iid in positives + negatives:
        predicted_positive = proba[iid] >= threshold
        outcome = domain.positive_outcome if predicted_positive else domain.negative_outcome
        other = domain.negative_outcome if predicted_positive else domain.positive_outcome
        of_outcome = proba[iid] if predicted_positive else 1 - proba[iid]
        text = render_prediction(cases[iid], domain)
        assert text.startswith(f"The system's prediction: {outcome}, with an estimated probability of "), text
        assert _percent(text) == round(100 * of_outcome), (text, of_outcome)
        assert other not in text.replace(outcome, "") or abs(threshold - 0.5) > 1e-9, text
        assert of_outcome >= min(threshold, 1 - threshold) - 1e-9  # the probability shown supports the outcome


def test_multiclass_prediction_names_the_most_probable_class_with_its_probability(usecase_bundle):
    _, config, data, model = usecase_bundle("wine")
    task = task_of(data, config)
    ids = list(range(min(12, len(data.X_test))))
    proba = np.asarray(model.class_probabilities(data.X_test.iloc[ids]))
    cases = build_cases(model, data, config.domain, ids, class_names=task.class_names, quantity=task.value_text)
    for k, iid in enumerate(ids):
        text = render_prediction(cases[iid], config.domain)
        best = int(proba[k].argmax())
        assert text.startswith(f"The system's prediction: {task.class_names[best]}, with an estimated probability"), text
        assert _percent(text) == round(100 * proba[k, best])


def test_regression_prediction_shows_the_value_and_no_probability(usecase_bundle):
    uc = get_usecase("diabetes")
    prepare_usecase(uc)
    config = load_config(uc.config_path)
    data = load_data_for_config(uc.data_path, config)
    model = load_model(uc.model_path, data=data)
    task = task_of(data, config)
    cases = build_cases(model, data, config.domain, [0, 1], quantity=task.value_text)
    for iid in (0, 1):
        text = render_prediction(cases[iid], config.domain)
        value = float(np.asarray(model.predict_value(data.X_test.iloc[[iid]]))[0])
        assert text == f"The system's prediction: {task.value_text(value)}." and "%" not in text
