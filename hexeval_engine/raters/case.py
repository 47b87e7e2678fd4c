"""Turn rows of ``Dataset.X_test`` into :class:`Case` objects a persona can read."""

from __future__ import annotations

from ..config.schema import Domain
from ..data.dataset import Dataset
from ..vocabulary import Vocabulary
from .base import Case, CaseFeature


def build_cases(model, data: Dataset, domain: Domain, instance_ids: list[int]) -> dict[int, Case]:
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
    """
    if not instance_ids:
        return {}
    rows = data.X_test.iloc[list(instance_ids)]
    proba = model.predict_proba(rows)[:, 1]
    threshold = float(getattr(model, "threshold", 0.5))
    cases = {}
    words = Vocabulary.from_domain(domain, coder=data.coder)
    # iterrows on an all-numeric frame upcasts every value to float (0 -> 0.0), which misses value labels
    # keyed "0"; iterating an object copy keeps each column's own values.
    for (_, row), iid, p in zip(rows.astype(object).iterrows(), instance_ids, proba):
        features = tuple(CaseFeature(f, words.description(f), words.label(f, row[f]))
                         for f in data.feature_names)
        predicted = int(p >= threshold)
        outcome = domain.positive_outcome if predicted else domain.negative_outcome
        cases[int(iid)] = Case(int(iid), features, predicted, outcome, float(p), threshold)
    return cases
