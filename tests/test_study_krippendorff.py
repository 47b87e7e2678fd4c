"""Ordinal Krippendorff's alpha against examples computed by hand."""

from __future__ import annotations

import pytest

from hexeval_engine.study.krippendorff import ordinal_alpha


def test_two_values_hand_computed():
    # Units (1,1), (2,2), (1,2): coincidences o11=2, o22=2, o12=o21=1; n1=n2=3, n=6.
    # delta(1,2) = (n1 + n2 - (n1 + n2)/2)^2 = 9; observed = 2*9 = 18; expected = 2*3*3*9/5 = 32.4.
    assert ordinal_alpha([[1, 1], [2, 2], [1, 2]]) == pytest.approx(1 - 18 / 32.4)


def test_three_values_ordinal_distance_hand_computed():
    # Units (1,2), (3,3), (1,1): o12=o21=1, o33=2, o11=2; n1=3, n2=1, n3=2, n=6.
    # delta12=(4-2)^2=4, delta13=(6-2.5)^2=12.25, delta23=(3-1.5)^2=2.25.
    # observed = 2*4 = 8; expected = 2*(3*1*4 + 3*2*12.25 + 1*2*2.25)/5 = 36.
    assert ordinal_alpha([[1, 2], [3, 3], [1, 1]]) == pytest.approx(1 - 8 / 36)


def test_perfect_agreement_is_one_and_units_of_one_value_are_skipped():
    assert ordinal_alpha([[1, 1, 1], [4, 4], [5], [2, 2]]) == pytest.approx(1.0)


def test_no_variation_or_no_pairs_is_not_measurable():
    assert ordinal_alpha([[3, 3], [3, 3]]) is None
    assert ordinal_alpha([[1], [2]]) is None
