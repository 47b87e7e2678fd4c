"""Deletion/insertion fidelity against curves computed by hand on a three-feature model (the oracle).

The model: P(class 1) = 0.1 + 0.5·a + 0.3·b + 0.1·c for binary features a, b, c. The instance is
(1, 1, 1), so f(x) = 1.0; the baseline is (0, 0, 0), so f(b) = 0.1. With steps ≥ 4 the curves have
a point at k = 0, 1, 2, 3 features masked, at x = k / 3, and each area is the trapezoidal rule:
area = (1/3) · Σ (y_k + y_{k+1}) / 2.

Ranking a > b > c (the model's own order):
  deletion  y = 1.0, 0.5, 0.2, 0.1  → (1/3)(0.75 + 0.35 + 0.15) = 1.25/3
  insertion y = 0.1, 0.6, 0.9, 1.0  → (1/3)(0.35 + 0.75 + 0.95) = 2.05/3
  normalised (y − 0.1)/0.9: deletion 1, 4/9, 1/9, 0 → 19/54; insertion 0, 5/9, 8/9, 1 → 35/54
Ranking c > b > a (the reverse):
  deletion  y = 1.0, 0.9, 0.6, 0.1  → (1/3)(0.95 + 0.75 + 0.35) = 2.05/3
  insertion y = 0.1, 0.2, 0.5, 1.0  → (1/3)(0.15 + 0.35 + 0.75) = 1.25/3
  normalised: deletion 1, 8/9, 5/9, 0 → 35/54; insertion 0, 1/9, 4/9, 1 → 19/54
Explaining class 0 instead: f(x) = 0.0 < f(b) = 0.9, the case argues against its own class, so the
normalised values are undefined (NaN) while the raw areas are 1 − the class-1 areas.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.metrics.fidelity import fidelity_scores

WEIGHTS = np.array([0.5, 0.3, 0.1])


class AdditiveModel:
    """P(class 1) = 0.1 + 0.5·a + 0.3·b + 0.1·c."""

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        p1 = 0.1 + X[["a", "b", "c"]].to_numpy(dtype=float) @ WEIGHTS
        return np.column_stack([1.0 - p1, p1])


INSTANCES = pd.DataFrame({"a": [1, 1], "b": [1, 1], "c": [1, 1]})
BASELINE = pd.DataFrame({"a": [0], "b": [0], "c": [0]})
RIGHT, REVERSED = [3.0, 2.0, 1.0], [1.0, 2.0, 3.0]


def scores_for(*orders, explained=1, steps=10):
    n = len(orders)
    return fidelity_scores(AdditiveModel(), INSTANCES.iloc[:n], np.array(orders), np.full(n, explained), BASELINE,
                           steps)


def test_raw_areas_match_the_hand_computed_curves():
    values = scores_for(RIGHT, REVERSED)
    np.testing.assert_allclose(values["fidelity_deletion"], [1.25 / 3, 2.05 / 3])
    np.testing.assert_allclose(values["fidelity_insertion"], [2.05 / 3, 1.25 / 3])


def test_normalised_areas_and_their_combination_match_the_hand_computed_curves():
    values = scores_for(RIGHT, REVERSED)
    np.testing.assert_allclose(values["fidelity_deletion_norm"], [19 / 54, 35 / 54])
    np.testing.assert_allclose(values["fidelity_insertion_norm"], [35 / 54, 19 / 54])
    np.testing.assert_allclose(values["fidelity_combined"], [(35 / 54 + 1 - 19 / 54) / 2, (19 / 54 + 1 - 35 / 54) / 2])


def test_two_steps_use_only_the_end_points():
    # k = 0 and k = 3 only: deletion (1.0 + 0.1)/2, insertion (0.1 + 1.0)/2 whatever the order.
    values = scores_for(RIGHT, REVERSED, steps=2)
    np.testing.assert_allclose(values["fidelity_deletion"], [0.55, 0.55])
    np.testing.assert_allclose(values["fidelity_insertion"], [0.55, 0.55])


def test_a_case_arguing_against_its_class_has_raw_areas_but_no_normalised_ones():
    values = scores_for(RIGHT, explained=0)
    np.testing.assert_allclose(values["fidelity_deletion"], [1 - 1.25 / 3])
    np.testing.assert_allclose(values["fidelity_insertion"], [1 - 2.05 / 3])
    assert np.isnan(values["fidelity_deletion_norm"][0]) and np.isnan(values["fidelity_insertion_norm"][0])


def test_tied_features_take_one_of_the_hand_computed_orders():
    # a and b tied: order a, b, c gives deletion 1.25/3; order b, a, c gives y = 1.0, 0.7, 0.2, 0.1 → 1.45/3.
    (deletion,) = scores_for([2.0, 2.0, 1.0])["fidelity_deletion"]
    assert deletion == pytest.approx(1.25 / 3) or deletion == pytest.approx(1.45 / 3)
