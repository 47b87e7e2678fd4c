"""The simulated rater: deterministic, and its documented tendencies hold (docs/simulated_rater.md)."""

from __future__ import annotations

from persona_fixtures import attribution, counterfactual, rule

from hexeval_engine import load_config
from hexeval_engine.personas import load_personas
from hexeval_engine.raters import Case, CaseFeature, RatingTask, make_rater
from hexeval_engine.usecases import get_usecase

CREDIT = get_usecase("credit_risk")
FEATURES = ["person_age", "person_income", "person_home_ownership", "person_emp_length", "loan_intent", "loan_grade",
            "loan_amnt", "loan_int_rate", "loan_percent_income", "cb_person_default_on_file",
            "cb_person_cred_hist_length"]


def credit():
    config = load_config(CREDIT.config_path)
    personas = {p.role: p for p in load_personas(CREDIT.personas_path)}
    d = config.domain
    case = Case(0, tuple(CaseFeature(f, d.feature_descriptions.get(f, f), "1") for f in FEATURES), 1,
                d.positive_outcome, 0.77)
    return personas, d, case


def rate(persona, domain, case, explanation):
    return make_rater("simulated").rate(RatingTask(persona, case, explanation, domain, "Explanation A"))


def full_attributions(n: int = len(FEATURES)) -> dict[str, float]:
    return {f: round(0.6 / (k + 1), 4) for k, f in enumerate(FEATURES[:n])}


def test_end_user_finds_counterfactual_changes_more_actionable_than_attributions():
    personas, domain, case = credit()
    applicant = personas["Loan Applicant"]
    cf = counterfactual(0, [{"loan_amnt": (12000, 8000)}, {"loan_grade": ("D", "B")}], [True, True])
    attr = attribution("SHAP", 0, full_attributions(5))
    cf_rating, attr_rating = rate(applicant, domain, case, cf), rate(applicant, domain, case, attr)
    assert cf_rating.scores["actionability"] > attr_rating.scores["actionability"]
    assert "loan amount (USD) from 12000 to 8000" in cf_rating.comment


def test_validation_analyst_finds_complete_attributions_more_complete_than_a_two_condition_rule():
    personas, domain, case = credit()
    analyst = personas["Model Validation Analyst"]
    attr = attribution("SHAP", 0, full_attributions())
    two = rule(0, [("loan_grade", "=", "D"), ("loan_percent_income", ">", 0.3)], precision=0.95, coverage=0.2)
    assert rate(analyst, domain, case, attr).scores["completeness"] > rate(analyst, domain, case, two).scores[
        "completeness"]
    assert "loan_grade = D" in rate(analyst, domain, case, two).comment


def test_more_items_lower_interpretability_for_a_low_ai_comfort_persona():
    personas, domain, case = credit()
    applicant = personas["Loan Applicant"]
    assert applicant.ai_comfort.value == "very_low"
    few = rate(applicant, domain, case, attribution("SHAP", 0, full_attributions(3)))
    many = rate(applicant, domain, case, attribution("SHAP", 0, full_attributions(11)))
    assert many.scores["interpretability"] < few.scores["interpretability"]
    assert "11 separate points" in many.comment


def test_ratings_are_deterministic_valid_and_labelled():
    personas, domain, case = credit()
    rater = make_rater("simulated")
    assert (rater.name, rater.model) == ("simulated", "simulated-v1")
    exp = rule(0, [("loan_grade", "=", "D")], precision=0.7, coverage=0.05)
    for persona in personas.values():
        a, b = rate(persona, domain, case, exp), rate(persona, domain, case, exp)
        assert a.scores == b.scores and a.comment == b.comment
        assert all(isinstance(v, int) and 1 <= v <= 5 for v in a.scores.values())
        assert a.comment.count(".") >= 2


def test_invalid_counterfactuals_lower_trust_and_are_named():
    personas, domain, case = credit()
    officer = personas["Compliance and Risk Officer"]
    changes = [{"loan_amnt": (12000, 9000)}, {"person_income": (40000, 52000)}]
    valid = rate(officer, domain, case, counterfactual(0, changes, [True, True]))
    invalid = rate(officer, domain, case, counterfactual(0, changes, [False, False]))
    assert invalid.scores["trust"] < valid.scores["trust"]
    assert invalid.scores["actionability"] < valid.scores["actionability"]
