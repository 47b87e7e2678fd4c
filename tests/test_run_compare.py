"""Comparing two runs: differences carry the runs' uncertainty; stakeholders of one run are not "changes"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.runs.compare import (BETTER, ONE_SIDED, TOO_FEW, WITHIN, WORSE, metric_differences,
                                         rating_differences)
from hexeval_engine.ratings_summary import DIMENSIONS


def _metrics(rows):
    return pd.DataFrame(rows, columns=["method", "metric", "value", "ci_low", "ci_high", "n", "direction"])


A = _metrics([("SHAP", "fidelity_insertion", 0.80, 0.75, 0.85, 20, "higher"),
              ("LIME", "fidelity_insertion", 0.60, 0.55, 0.65, 20, "higher"),
              ("SHAP", "sparsity", 5.0, 4.0, 6.0, 20, "lower"),
              ("Anchor", "coverage", 0.3, 0.2, 0.4, 20, "higher")])
B = _metrics([("SHAP", "fidelity_insertion", 0.72, 0.66, 0.78, 18, "higher"),   # overlaps A's interval
              ("LIME", "fidelity_insertion", 0.80, 0.76, 0.84, 18, "higher"),   # clear gain
              ("SHAP", "sparsity", 8.0, 7.0, 9.0, 18, "lower"),                 # clear rise of a lower-is-better
              ("DiCE", "validity", 0.9, 0.8, 1.0, 18, "higher")])


def test_metric_differences_are_coloured_only_beyond_both_intervals():
    diff = metric_differences(A, B).set_index(["method", "metric"])
    shap = diff.loc[("SHAP", "fidelity_insertion")]
    assert shap["difference"] == pytest.approx(-0.08) and shap["verdict"] == WITHIN  # old code: red
    # the difference's interval: half-widths added in quadrature, 0.06 and 0.05 below, 0.06 and 0.05 above
    assert shap["difference_low"] == pytest.approx(-0.08 - (0.06 ** 2 + 0.05 ** 2) ** 0.5)
    assert shap["difference_high"] == pytest.approx(-0.08 + (0.06 ** 2 + 0.05 ** 2) ** 0.5)
    assert (shap["n_a"], shap["n_b"]) == (20, 18)
    assert diff.loc[("LIME", "fidelity_insertion"), "verdict"] == BETTER
    assert diff.loc[("SHAP", "sparsity"), "verdict"] == WORSE  # lower is better, and it rose beyond the noise
    assert diff.loc[("Anchor", "coverage"), "verdict"] == ONE_SIDED
    assert diff.loc[("DiCE", "validity"), "verdict"] == ONE_SIDED and diff.loc[("DiCE", "validity"), "direction"] == "higher"


def test_a_metric_without_an_interval_is_never_called_better():
    a = _metrics([("SHAP", "fidelity_insertion", 0.5, np.nan, np.nan, 3, "higher")])
    b = _metrics([("SHAP", "fidelity_insertion", 0.9, np.nan, np.nan, 3, "higher")])
    assert metric_differences(a, b)["verdict"].tolist() == [WITHIN]


def _ratings(role, method, scores):
    return pd.DataFrame([{"persona_role": role, "explanation_type": method, "status": "ok",
                          **{d: s for d in DIMENSIONS}} for s in scores])


def test_rating_differences_state_n_and_a_bootstrap_interval():
    a = pd.concat([_ratings("Patient", "SHAP", [2, 3, 2, 3, 2, 3, 2, 3]), _ratings("Patient", "LIME", [3, 3, 4, 3]),
                   _ratings("Clinician", "SHAP", [4, 4]), _ratings("Patient", "DiCE", [5])])
    b = pd.concat([_ratings("Patient", "SHAP", [5, 5, 4, 5, 5, 4]), _ratings("Patient", "LIME", [3, 4, 3, 3]),
                   _ratings("Patient", "DiCE", [4, 5]),
                   pd.DataFrame([{"persona_role": "Patient", "explanation_type": "LIME", "status": "error",
                                  **{d: 1 for d in DIMENSIONS}}])])  # failed ratings do not count
    diff = rating_differences(a, b).set_index(["persona_role", "explanation_type", "dimension"])
    shap = diff.loc[("Patient", "SHAP", "trust")]
    assert (shap["n_a"], shap["n_b"]) == (8, 6)
    assert shap["difference"] == pytest.approx(28 / 6 - 2.5)
    # oracle: the difference of means can never leave [min B − max A, max B − min A]; every resample of A
    # lies in [2, 3] and of B in [4, 5], so the interval excludes 0 and the change is better
    assert 1 <= shap["difference_low"] < shap["difference"] < shap["difference_high"] <= 3
    assert shap["verdict"] == BETTER
    lime = diff.loc[("Patient", "LIME", "trust")]
    assert (lime["n_a"], lime["n_b"]) == (4, 4) and lime["difference"] == pytest.approx(0.0)
    assert lime["difference_low"] < 0 < lime["difference_high"] and lime["verdict"] == WITHIN
    assert diff.loc[("Clinician", "SHAP", "trust"), "verdict"] == ONE_SIDED
    assert diff.loc[("Patient", "DiCE", "trust"), "verdict"] == TOO_FEW  # one rating in run A
    assert np.isnan(diff.loc[("Patient", "DiCE", "trust"), "difference_low"])


def test_rating_intervals_are_repeatable():
    a, b = _ratings("Patient", "SHAP", [1, 2, 3, 4]), _ratings("Patient", "SHAP", [2, 3, 4, 5])
    first, second = rating_differences(a, b), rating_differences(a, b)
    assert first["difference_low"].tolist() == second["difference_low"].tolist()
