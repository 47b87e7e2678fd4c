"""Turn rows of ``Dataset.X_test`` into :class:`Case` objects a persona can read."""

from __future__ import annotations

from dataclasses import replace

from ..config.schema import Domain
from ..data.dataset import Dataset
from ..vocabulary import Vocabulary
from .base import Case, CaseFeature
from .case_leanings import PastCases


def build_cases(model, data: Dataset, domain: Domain, instance_ids: list[int], *,
                class_names: tuple = (), quantity=None) -> dict[int, Case]:
    """The cases for ``instance_ids`` (rows of ``data.X_test``), with the model's prediction.

    Parameters
    ----------
    model : HexevalModel
        Predicts the probabilities shown to the persona (one batched call).
    data : Dataset
        Supplies the raw values; :class:`~hexeval_engine.vocabulary.Vocabulary` words them (value
        labels, units, number formats).
    domain : Domain
        ``feature_descriptions`` give names with their notes; ``positive_outcome``/``negative_outcome``
        word the prediction.
    instance_ids : list of int
        Row positions in ``data.X_test``.
    class_names : tuple of str, optional
        A multi-class model's class names (``models.task.Task.class_names``): each case's outcome is its
        predicted (most probable) class.
    quantity : callable, optional
        A regressor's wording of a predicted value (``models.task.Task.value_text``).
    """
    if not instance_ids:
        return {}
    rows = data.X_test.iloc[list(instance_ids)]
    words = Vocabulary.from_domain(domain, coder=data.coder, X=data.X_train)
    if data.is_regression:
        cases = _value_cases(model, data, words, list(instance_ids), rows, quantity)
    elif len(class_names) > 2:
        cases = _class_cases(model, data, words, list(instance_ids), rows, tuple(class_names))
    else:
        cases = _binary_cases(model, data, domain, words, list(instance_ids), rows)
    ranges = tuple((f, low, high) for f, (low, high) in words.ranges.items())
    return {iid: replace(case, ranges=ranges) for iid, case in cases.items()}


def _binary_cases(model, data: Dataset, domain: Domain, words: Vocabulary, instance_ids, rows) -> dict[int, Case]:
    """Binary cases: the predicted outcome at the model's threshold and the positive class's probability."""
    proba = model.predict_proba(rows)[:, 1]
    threshold = float(getattr(model, "threshold", 0.5))
    past = PastCases(data.X_train, data.y_train)  # read once for every case's leanings
    cases = {}
    # iterrows on an all-numeric frame upcasts every value to float (0 -> 0.0), which misses value labels
    # keyed "0"; iterating an object copy keeps each column's own values.
    for (_, row), iid, p in zip(rows.astype(object).iterrows(), instance_ids, proba):
        features = tuple(CaseFeature(f, words.description(f), words.label(f, row[f]))
                         for f in data.feature_names)
        predicted = int(p >= threshold)
        outcome = domain.positive_outcome if predicted else domain.negative_outcome
        cases[int(iid)] = Case(int(iid), features, predicted, outcome, float(p), threshold,
                               leanings=past.leanings(row))
    return cases


def _class_cases(model, data: Dataset, words: Vocabulary, instance_ids, rows, class_names: tuple) -> dict[int, Case]:
    """Multi-class cases: the predicted class's name and probability."""
    proba = model.class_probabilities(rows)
    cases = {}
    for (_, row), iid, p in zip(rows.astype(object).iterrows(), instance_ids, proba):
        features = tuple(CaseFeature(f, words.description(f), words.label(f, row[f])) for f in data.feature_names)
        k = int(p.argmax())
        cases[int(iid)] = Case(int(iid), features, k, class_names[k], float(p[k]), 0.5, class_names)
    return cases


def _value_cases(model, data: Dataset, words: Vocabulary, instance_ids, rows, quantity) -> dict[int, Case]:
    """Regression cases: the predicted value in words (``quantity``), no probability."""
    values = model.predict_value(rows)
    cases = {}
    for (_, row), iid, v in zip(rows.astype(object).iterrows(), instance_ids, values):
        features = tuple(CaseFeature(f, words.description(f), words.label(f, row[f])) for f in data.feature_names)
        cases[int(iid)] = Case(int(iid), features, 1, quantity(float(v)), float("nan"), 0.5, value=float(v))
    return cases
