"""The words of a recommendation card read consistently (the issue 36 walk): a strength is never contradicted by a
concern on the same question, and no number reads "-0.00" or changes its number of decimals from cell to cell."""

from __future__ import annotations

import re

from hexeval_engine.recommend.wording import _strengths_concerns
from hexeval_engine.recommend.sentences import QUESTION_PHRASES
from hexeval_engine.vocabulary import signed
from hexeval_ui.metrics_table import number, with_interval


def _alt(method, why, why_low, why_high, how=0.2, how_low=0.1):
    return {"method": method, "recommendable": True,
            "vs_baseline": {"qualifies": True, "diff": 0.2, "ci_low": 0.05, "ci_high": 0.3, "n": 5},
            "questions": {"why": {"weight": 0.5, "value": why, "ci_low": why_low, "ci_high": why_high},
                          "how_to_change": {"weight": 0.5, "value": how, "ci_low": how_low, "ci_high": 0.4}}}


def test_a_best_answer_whose_interval_reaches_zero_is_one_concern_not_a_strength_and_a_concern():
    entry = {"recommended_method": "SHAP",
             "alternatives": [_alt("SHAP", 0.19, -0.001, 0.50), _alt("LIME", 0.05, 0.0, 0.1, how=0.1)]}
    strengths, concerns = _strengths_concerns(entry, {}, 0.95)
    why = QUESTION_PHRASES["why"]
    assert not [s for s in strengths if why in s], strengths
    assert concerns == [f"the best of the methods on *{why}*, but not clearly better than no explanation "
                        "(skill +0.19, 95% interval 0.00 to +0.50)"]
    # the question it answers best and clearly stays a strength
    assert f"the best answer to *{QUESTION_PHRASES['how_to_change']}* (skill +0.20)" in strengths


def test_no_sentence_of_a_card_shows_minus_zero():
    entry = {"recommended_method": "SHAP",
             "alternatives": [_alt("SHAP", 0.01, -0.004, 0.02), _alt("LIME", 0.05, 0.0, 0.1)]}
    _, concerns = _strengths_concerns(entry, {}, 0.95)
    assert concerns and not any(re.search(r"[-+]0\.00\b", c) for c in concerns), concerns


def test_signed_values_keep_their_sign_except_at_zero():
    assert [signed(v) for v in (0.123, -0.123, -0.004, 0.004, 0.0, -1.1e-17)] == \
        ["+0.12", "-0.12", "0.00", "0.00", "0.00", "0.00"]


def test_metric_cells_all_have_two_decimals_and_no_minus_zero():
    assert number(0.0053) == "0.01"
    assert number(-1.1e-17) == "0.00"
    assert number(-0.0089) == "-0.01"
    assert number(-0.004) == "0.00"
    assert number(-0.004, signed=True) == "0.00"
    assert number(0.25, signed=True) == "+0.25"
    assert with_interval(0.0039, -0.0001, 0.0075) == "0.00 [0.00, 0.01]"
    assert with_interval(0.16, 0.0053, 0.31) == "0.16 [0.01, 0.31]"
    assert with_interval(4075.0, 3422.22, 4748.38) == "4,075 [3,422, 4,748]"  # counts of cases, not "4075.00"
