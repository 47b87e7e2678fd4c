"""The coded-row cache shared by ``CodedPredictor.positive`` and Anchor's ``ClassPredictor.class_rows``."""

import numpy as np
import pandas as pd

from hexeval_engine.explainers.anchor_explainer import ClassPredictor
from hexeval_engine.explainers.base import CodedPredictor


class _Coder:
    feature_names = ["a", "b", "c"]

    def decode(self, M):
        return pd.DataFrame(M, columns=self.feature_names)


class _Model:
    """Probabilities from a formula of the row (the oracle); every row it is asked about is recorded."""

    threshold = 0.5

    def __init__(self):
        self.asked = []

    @staticmethod
    def formula(M):
        score = 1 / (1 + np.exp(-(M[:, 0] - 2 * M[:, 1] + 0.5 * M[:, 2])))
        return np.column_stack([1 - score, score * 0.6, score * 0.4])

    def class_probabilities(self, X):
        self.asked.extend(map(tuple, X.to_numpy()))
        return self.formula(X.to_numpy())

    def predict_proba(self, X):
        p = self.class_probabilities(X)
        return np.column_stack([p[:, 0], 1 - p[:, 0]])


def _rows(rng, n):
    return rng.integers(0, 4, size=(n, 3)).astype(float)


def test_positive_answers_like_the_model_and_asks_each_distinct_row_once_in_order():
    rng = np.random.default_rng(1)
    model = _Model()
    predictor = CodedPredictor(model, _Coder())
    first, second = _rows(rng, 40), _rows(rng, 60)
    for M in (first, second, np.vstack([second, first])):
        assert np.array_equal(predictor.positive(M), 1 - _Model.formula(M)[:, 0])
    seen = list(dict.fromkeys(map(tuple, np.vstack([first, second]))))
    assert model.asked == seen  # first appearances, in order; repeats and known rows never asked again


def test_seeded_rows_are_not_asked_and_a_full_cache_starts_again():
    model = _Model()
    predictor = CodedPredictor(model, _Coder(), max_cached_rows=5)
    known = np.array([[1.0, 1.0, 1.0]])
    predictor.seed(known, [0.25])
    assert predictor.positive(known)[0] == 0.25 and model.asked == []
    M = np.array([[0.0, 0, 0], [1, 0, 0], [0.0, 0, 0], [2, 0, 0], [3, 0, 0], [0, 1, 0]])  # 5 new: 1 + 5 > 5
    got = predictor.positive(np.vstack([M, known]))
    assert model.asked == list(dict.fromkeys(map(tuple, np.vstack([M, known]))))  # cleared: the seed asked too
    assert np.array_equal(got, 1 - _Model.formula(np.vstack([M, known]))[:, 0])


def test_class_rows_keep_whole_rows_of_class_probabilities():
    rng = np.random.default_rng(2)
    model = _Model()
    predictor = ClassPredictor(model, _Coder())
    M = _rows(rng, 50)
    assert np.array_equal(predictor.class_rows(M), _Model.formula(M))
    asked = len(model.asked)
    assert np.array_equal(predictor.class_rows(M[::-1]), _Model.formula(M[::-1]))
    assert len(model.asked) == asked == len({tuple(r) for r in M})


def test_rows_differing_in_any_bit_are_different_keys():
    model = _Model()
    predictor = CodedPredictor(model, _Coder())
    M = np.array([[0.1, 0.0, 0.0], [np.nextafter(0.1, 1), 0.0, 0.0]])
    predictor.positive(M)
    assert len(model.asked) == 2
