"""Which features an explanation's text names, as the simulated rater reads it: a feature's name inside another
feature's words is not a mention (the audit of 29 Nov: on credit risk 128 of 228 counts in the SHAP, LIME and Random
comments were too high, "It speaks to 6 characteristics" of a text giving 5 reasons, because "loan amount" matched
inside "loan amount as a share of income"; on wine "ash" inside "alcalinity of the ash")."""

from __future__ import annotations

from hexeval_engine.config.loader import load_config
from hexeval_engine.raters.properties import _named
from hexeval_engine.usecases import get_usecase


def _descriptions(usecase: str) -> dict:
    return dict(load_config(get_usecase(usecase).config_path).domain.feature_descriptions)


def test_a_feature_named_only_inside_another_features_words_is_not_counted():
    credit = _descriptions("credit_risk")
    text = ("Main reasons for this prediction: loan amount as a share of income is 0.31; loan grade is D; "
            "interest rate is 15.2%.").lower()
    named = _named(text, {f: credit[f] for f in ("loan_amnt", "loan_percent_income")})
    assert named == {"loan_percent_income"}
    both = text + " loan amount (usd) is 12,000."
    assert _named(both, {f: credit[f] for f in ("loan_amnt", "loan_percent_income")}) == \
        {"loan_amnt", "loan_percent_income"}
    wine = _descriptions("wine")
    text = "pointing the other way: alcalinity of the ash is 21.0; flavanoids is 0.6.".lower()
    assert _named(text, {f: wine[f] for f in ("ash", "alcalinity_of_ash", "flavanoids")}) == \
        {"alcalinity_of_ash", "flavanoids"}
    assert "ash" in _named(text + " ash is 2.4.", {f: wine[f] for f in ("ash", "alcalinity_of_ash")})
