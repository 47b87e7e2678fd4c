"""The vectorised calibration bootstrap gives the results the pure-Python one gave (recorded before the
change in ``tests/data/study_calibration_before.json``, see ``study_calibration_cases``), and the
batched alpha equals the hand-computed one on a tiny table."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from study_calibration_cases import CASES, REFERENCE, case_tables

from hexeval_engine.study.calibration import calibration_from
from hexeval_engine.study.krippendorff import ordinal_alpha, resampled_alpha

RECORDED = json.loads(REFERENCE.read_text(encoding="utf-8"))


def _same(new, old, where: str) -> None:
    """Equal structure, equal None-ness, floats equal to 1e-12 (summation order may differ in the last bit)."""
    if isinstance(old, dict):
        assert sorted(new) == sorted(old), where
        for key in old:
            _same(new[key], old[key], f"{where}/{key}")
    elif isinstance(old, float) and isinstance(new, float):
        assert math.isclose(new, old, rel_tol=1e-12, abs_tol=1e-12), f"{where}: {new!r} != {old!r}"
    else:
        assert new == old, f"{where}: {new!r} != {old!r}"


@pytest.mark.parametrize("name,seed", [(c[0], c[-1]) for c in CASES])
def test_same_results_as_the_pure_python_bootstrap_at_the_same_seed(name, seed):
    assert name in RECORDED
    _same(json.loads(json.dumps(calibration_from(*case_tables(name), seed=seed))), RECORDED[name], name)


def test_the_recorded_outputs_have_intervals_and_unmeasurable_cells():
    # the reference would prove little if every interval were empty or every value measurable
    cells = [block["dimensions"][d][m] for case in RECORDED.values() for block in case["roles"].values()
             for d in block["dimensions"] for m in ("spearman", "kendall_tau_methods", "alpha_humans",
                                                    "alpha_personas_humans")]
    assert sum(c["ci_low"] is not None for c in cells) > 100
    assert sum(c["value"] is None for c in cells) > 10


def test_resampled_alpha_matches_hand_computed_alpha_of_each_resample():
    units = [[1, 1], [2, 2], [1, 2], [3], [1, 3, 3]]
    # resample 0 = units (1,1), (2,2), (1,2): 1 - 18/32.4 (test_study_krippendorff); resample 1 = (1,1), (1,1),
    # (3,): one value only, not measurable; resample 2 = (1,2), (1,3,3), (1,3,3):
    # unit (1,2): o12 = o21 = 1; unit (1,3,3) twice: o13 = o31 = 2 * (2 / 2), o33 = 2 * (2 / 2);
    # n1 = 1 + 2 = 3, n2 = 1, n3 = 2 + 2 = 4, n = 8. delta12 = (3 + 1 - 2)^2 = 4, delta13 = (8 - 3.5)^2 = 20.25,
    # delta23 = (5 - 2.5)^2 = 6.25. observed = 2 * 4 + 4 * 20.25 = 89;
    # expected = 2 * (3 * 1 * 4 + 3 * 4 * 20.25 + 1 * 4 * 6.25) / 7 = 560 / 7 = 80.
    picks = np.array([[0, 1, 2], [0, 0, 3], [2, 4, 4]])
    alphas = resampled_alpha(units, picks)
    assert alphas[0] == pytest.approx(1 - 18 / 32.4)
    assert np.isnan(alphas[1])
    assert alphas[2] == pytest.approx(1 - 89 / 80)
    assert ordinal_alpha([units[i] for i in picks[2]]) == pytest.approx(1 - 89 / 80)
