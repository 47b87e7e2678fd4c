"""The simulated rater: scores content, never method names (docs/simulated_rater.md), and its tendencies hold."""

from __future__ import annotations

import dataclasses

import pytest
from persona_fixtures import attribution, counterfactual, rule

from hexeval_engine import load_config
from hexeval_engine.personas import load_personas
from hexeval_engine.raters import Case, CaseFeature, RatingTask, make_rater
from hexeval_engine.usecases import get_usecase

CREDIT = get_usecase("credit_risk")
FEATURES = ["person_age", "person_income", "person_home_ownership", "person_emp_length", "loan_intent", "loan_grade",
            "loan_amnt", "loan_int_rate", "loan_percent_income", "cb_person_default_on_file",
            "cb_person_cred_hist_length"]
FAITHFUL = {"fidelity_combined": 0.9}


def credit(values: dict | None = None):
    config = load_config(CREDIT.config_path)
    personas = {p.role: p for p in load_personas(CREDIT.personas_path)}
    d = config.domain
    values = values or {}
    case = Case(0, tuple(CaseFeature(f, d.feature_descriptions.get(f, f), values.get(f, "1")) for f in FEATURES), 1,
                d.positive_outcome, 0.77)
    return personas, d, case


def rate(persona, domain, case, explanation, label: str = "Explanation A"):
    return make_rater("simulated").rate(RatingTask(persona, case, explanation, domain, label))


def full_attributions(n: int = len(FEATURES)) -> dict[str, float]:
    return {f: round(0.6 / (k + 1), 4) for k, f in enumerate(FEATURES[:n])}


def test_end_user_finds_plausible_changes_more_actionable_than_attributions():
    personas, domain, case = credit()
    applicant = personas["Loan Applicant"]
    cf = counterfactual(0, [{"loan_amnt": (12000, 8000)}, {"loan_grade": ("D", "B")}], [True, True],
                        metrics={**FAITHFUL, "counterfactual_plausible": 1.0})
    attr = attribution("SHAP", 0, full_attributions(5), metrics=FAITHFUL)
    cf_rating, attr_rating = rate(applicant, domain, case, cf), rate(applicant, domain, case, attr)
    assert cf_rating.scores["actionability"] > attr_rating.scores["actionability"]
    assert "loan amount from $12,000 to $8,000" in cf_rating.comment  # the unit moves from the name to the value


def test_validation_analyst_finds_attributions_over_every_feature_more_complete_than_a_two_condition_rule():
    personas, domain, case = credit()
    analyst = personas["Model Validation Analyst"]
    attr = attribution("SHAP", 0, full_attributions(), metrics=FAITHFUL)
    two = rule(0, [("loan_grade", "=", "D"), ("loan_percent_income", ">", 0.3)], precision=0.95, coverage=0.2,
               metrics=FAITHFUL)
    assert rate(analyst, domain, case, attr).scores["completeness"] > rate(analyst, domain, case, two).scores[
        "completeness"]
    comment = rate(analyst, domain, case, two).comment
    assert "loan grade assigned by the bank" in comment and "(A best - G worst)" not in comment and "loan_grade" not in comment


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
    assert (rater.name, rater.model) == ("simulated", "simulated-v4")
    exp = rule(0, [("loan_grade", "=", "D")], precision=0.7, coverage=0.05)
    for persona in personas.values():
        a, b = rate(persona, domain, case, exp), rate(persona, domain, case, exp)
        assert a.scores == b.scores and a.comment == b.comment
        assert all(isinstance(v, int) and 1 <= v <= 5 for v in a.scores.values())
        assert a.comment.count(".") >= 2


def _relabelled(exp, method: str):
    return dataclasses.replace(exp, method=method)


@pytest.mark.parametrize("content, new_method", [
    ("counterfactual", "SHAP"),    # DiCE content labelled as an attribution method
    ("attribution", "Anchor"),     # SHAP content labelled as a rule method
    ("rule", "DiCE"),              # Anchor content labelled as a counterfactual method
    ("attribution", "Random"),     # SHAP content labelled as the baseline
])
def test_relabelling_the_same_content_under_another_method_and_family_changes_nothing(content, new_method):
    personas, domain, case = credit()
    metrics = {**FAITHFUL, "counterfactual_plausible": 0.67}
    exp = {"counterfactual": counterfactual(0, [{"loan_amnt": (12000, 8000)}, {"person_income": (40000, 52000)}],
                                            [True, False], metrics=metrics),
           "attribution": attribution("SHAP", 0, full_attributions(6), metrics=metrics),
           "rule": rule(0, [("loan_grade", "=", "D"), ("loan_percent_income", ">", 0.3)], 0.97, 0.2,
                        metrics=metrics)}[content]
    for persona in personas.values():
        original = rate(persona, domain, case, exp, label="Explanation A")
        other = rate(persona, domain, case, _relabelled(exp, new_method), label=new_method)
        assert other.scores == original.scores
        assert other.comment == original.comment
        assert other.extra["raw_scores"] == original.extra["raw_scores"]


def _with(exp, **extra):
    return dataclasses.replace(exp, extra={**exp.extra, **extra})


HIDDEN = ("fidelity_combined", "counterfactual_plausible", "counterfactual_in_range", "rule_precision",
          "rule_coverage", "counterfactual_validity", "claim_comprehensiveness", "claim_sufficiency",
          "reader_precision", "reader_coverage")


def test_hidden_measurements_never_change_a_rating():
    """What a reader cannot see (any per-instance metric value) enters no dimension and no comment."""
    personas, domain, case = credit()
    shown = [attribution("SHAP", 0, full_attributions(5)),
             rule(0, [("loan_grade", "=", "D"), ("loan_percent_income", ">", 0.3)], precision=0.95, coverage=0.2),
             counterfactual(0, [{"loan_amnt": (12000, 8000)}, {"person_income": (40000, 52000)}], [True, False])]
    for exp in shown:
        low = _with(exp, metrics={m: 0.0 for m in HIDDEN})
        high = _with(exp, metrics={m: 1.0 for m in HIDDEN})
        for persona in personas.values():
            a, b, c = (rate(persona, domain, case, e) for e in (exp, low, high))
            assert a.extra["raw_scores"] == b.extra["raw_scores"] == c.extra["raw_scores"], persona.role
            assert a.comment == b.comment == c.comment


def test_a_change_the_person_cannot_make_lowers_actionability_and_is_never_suggested():
    personas, domain, case = credit({"person_age": "24", "loan_grade": "D"})
    applicant = personas["Loan Applicant"]
    changes = [{"loan_grade": ("D", "B")}, {"person_age": (24, 21)}]
    kinds = {"loan_grade": "not_actionable", "person_age": "increase_only"}
    free = counterfactual(0, changes, [True, True])
    fixed = _with(free, actionability=kinds)
    older = _with(counterfactual(0, [{"person_age": (24, 29)}], [True]), actionability=kinds)
    assert rate(applicant, domain, case, fixed).scores["actionability"] < \
        rate(applicant, domain, case, free).scores["actionability"]
    assert rate(applicant, domain, case, older).extra["infeasible_changes"] == 0  # the allowed direction
    comment = rate(applicant, domain, case, fixed).comment
    assert "cannot be changed" in comment
    assert "from D to B" not in comment and "from 24 to 21" not in comment  # not suggested as something to do


def test_counterfactual_validity_is_not_a_bonus():
    personas, domain, case = credit()
    changes = [{"loan_amnt": (12000, 9000)}, {"person_income": (40000, 52000)}]
    for persona in personas.values():
        flipping = rate(persona, domain, case, counterfactual(0, changes, [True, True]))
        not_flipping = rate(persona, domain, case, counterfactual(0, changes, [False, False]))
        assert flipping.scores == not_flipping.scores


def test_comments_use_readable_labels_without_column_names_or_codes():
    personas, _, _ = credit()
    bare = load_config(None).domain  # no feature descriptions, no value labels
    case = Case(0, tuple(CaseFeature(f, f, "1") for f in FEATURES), 1, "default", 0.77)
    explanations = [attribution("SHAP", 0, full_attributions(4), metrics=FAITHFUL),
                    rule(0, [("loan_grade", "=", "D"), ("loan_percent_income", ">", 0.3)], 0.9, 0.1),
                    counterfactual(0, [{"person_income": (70000.0, 478298.3), "loan_int_rate": (13.49, 9.5)}],
                                   [True], metrics={"counterfactual_plausible": 0.0})]
    for persona in personas.values():
        for exp in explanations:
            comment = rate(persona, bare, case, exp).comment
            assert "_" not in comment, comment
            for raw in ("np.", "(s)", "'", "478298", "e+05", "None", "nan"):
                assert raw not in comment, (raw, comment)


def test_a_missing_value_is_written_as_missing_not_as_none():
    """A counterfactual that fills a gap reads 'from missing to 23.14', never Python's None."""
    from hexeval_engine.raters.wording import plain_value, value_label

    assert plain_value(None) == "missing" and plain_value(float("nan")) == "missing"
    assert value_label("loan_int_rate", None, {}) == "missing"
