"""The vocabulary layer: what people read instead of column names, codes and raw numbers."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from hexeval_engine import get_usecase, load_config
from hexeval_engine.data.coding import FeatureCoder
from hexeval_engine.explanation import Condition, Counterfactual, Explanation, Rule
from hexeval_engine.explainers.render import render
from hexeval_engine.vocabulary import (Vocabulary, category_words, dimension_label, format_number, humanise,
                                       join_words, plural)

#: What no plain-language text may contain: a column name with an underscore or an upper-case code.
RAW = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[A-Z]{4,}\b")


@pytest.mark.parametrize("n, word, expected", [(1, "point", "1 point"), (2, "point", "2 points"),
                                               (0, "condition", "0 conditions"), (1, "case", "1 case"),
                                               (3, "analysis", "3 analyses"), (2, "category", "2 categories"),
                                               (1200, "row", "1,200 rows")])
def test_plural_agrees_with_the_count(n, word, expected):
    assert plural(n, word) == expected


@pytest.mark.parametrize("value, expected", [(79536, "79,536"), (79536.0, "79,536"), (12.6943, "12.7"),
                                             (0.2341, "0.234"), (7.9, "7.9"), (-3.25, "-3.25"),
                                             (float("nan"), "missing"), (None, "missing"), (1e-7, "0.0000001")])
def test_numbers_at_a_sensible_precision(value, expected):
    assert format_number(value) == expected


def test_keys_codes_and_dimensions_become_words():
    assert humanise("duplicates_crossing_split") == "Duplicates crossing split"
    assert category_words("MORTGAGE") == "Mortgage" and category_words("ST-T wave") == "ST-T wave"
    assert category_words("A") == "A"  # a one-letter grade stays a grade
    assert dimension_label("decision_support") == "Decision support"
    assert join_words(["a", "b", "c"]) == "a, b and c" and join_words(["a"]) == "a"


@pytest.fixture(scope="module")
def credit_words():
    config = load_config(get_usecase("credit_risk").config_path)
    X = pd.DataFrame({"person_income": [4000, 79536], "loan_percent_income": [0.0, 0.83],
                      "person_home_ownership": ["RENT", "OWN"], "person_emp_length": [0.0, 41.0],
                      "loan_int_rate": [5.4, 23.2], "loan_grade": ["A", "G"], "odd_code": ["NEWCODE", "X"]})
    coder = FeatureCoder.fit(X, ["person_home_ownership", "loan_grade", "odd_code"], config.domain.value_labels)
    return Vocabulary.from_domain(config.domain, coder=coder, X=X)


def test_values_carry_units_and_labels(credit_words):
    w = credit_words
    assert w.label("person_income", 79536) == "$79,536"
    assert w.label("loan_int_rate", 12.6943) == "12.7%"
    assert w.label("loan_percent_income", 0.23) == "23%"
    assert w.label("person_emp_length", 1.0) == "1 year" and w.label("person_emp_length", 12.0) == "12 years"
    assert w.label("person_home_ownership", "RENT") == "renting"
    assert w.label("odd_code", "NEWCODE") == "Newcode"  # no label: sentence case, never the raw code
    assert w.label("person_income", float("nan")) == "missing"


def test_names_drop_the_table_note_but_descriptions_keep_it(credit_words):
    assert credit_words.description("person_income") == "annual income (USD)"
    assert credit_words.name("person_income") == "annual income"
    assert credit_words.name("loan_grade") == "loan grade assigned by the bank"
    assert credit_words.name("odd_code") == "odd code"  # no description: the column as words


def test_rule_conditions_read_as_sentences(credit_words):
    w = credit_words
    assert w.condition("loan_percent_income", "<=", 0.23) == "loan amount as a share of income is 23% or less"
    assert w.condition("person_income", ">", 38400) == "annual income is above $38,400"
    assert w.condition("person_emp_length", "<=", 0.0) == "employment length is 0 years"  # the lowest value seen
    assert w.condition("loan_int_rate", "in", (7.5, 11.0)) == "interest rate is between 7.5% and 11%"
    assert w.condition("person_home_ownership", "=", "RENT") == "home ownership is renting"


def _explanation(**parts) -> Explanation:
    return Explanation("X", 0, 1, 0.83, **parts)


def test_heart_texts_contain_no_codes_or_column_names(usecase_bundle):
    _, config, data, _ = usecase_bundle("heart")
    row = data.X_test.iloc[0].to_dict()
    texts = [
        render(_explanation(attributions={"cp": 0.3, "ca": -0.2, "trestbps": 0.1, "exang": 0.05}), row, data, config)[0],
        render(_explanation(rule=Rule([Condition("ca", "<=", 0, "ca <= 0.00"), Condition("exang", "=", 0, "exang = no")],
                                      0.95, 0.33)), row, data, config)[0],
        render(_explanation(counterfactuals=[Counterfactual({"thalach": (169, 136), "oldpeak": (0.0, 2.5)}, 0.4, True, {})],
                            extra={"immutable_features": ["age", "sex"]}), row, data, config)[0],
    ]
    for text in texts:
        assert not RAW.search(text), text
        assert "point(s)" not in text and "at most 0" not in text
    assert "number of major vessels coloured by fluoroscopy is 0 and angina induced by exercise is no" in texts[1]
    assert "maximum heart rate achieved from 169 bpm to 136 bpm" in texts[2]
    assert "age and sex" in texts[2]
    # the earlier walk: "No small change to the features that may change was found that would alter the prediction."
    none = render(_explanation(counterfactuals=[], extra={"immutable_features": ["age", "sex"]}), row, data, config)[0]
    assert none.endswith("No counterfactual for this case: DiCE found no change (age and sex kept as they are) that "
                         "would make the prediction 'heart disease likely (refer for cardiac work-up)'."), none


def test_generic_use_case_without_descriptions_still_reads_as_words():
    X = pd.DataFrame({"monthly_spend": [10.5, 99.25], "plan_type": ["MONTHLY_PLAN", "YEARLY_PLAN"]})
    coder = FeatureCoder.fit(X, ["plan_type"])
    w = Vocabulary.from_domain({}, coder=coder, X=X)
    sentence = w.condition("monthly_spend", ">", 42.123) + "; " + w.is_("plan_type", "YEARLY_PLAN")
    assert sentence == "monthly spend is above 42.1; plan type is Yearly plan"
    assert not RAW.search(sentence) and not math.isnan(w.ranges["monthly_spend"][0])


def test_value_clause_attaches_a_measurement_with_at_and_a_category_as_recorded():
    from hexeval_engine.vocabulary import value_clause
    assert value_clause("54 years") == "at 54 years"
    assert value_clause("-1.5") == "at -1.5"
    assert value_clause("male") == "recorded as male"
    assert "at male" not in value_clause("male")


def test_names_that_hold_the_conjunction_are_joined_so_each_can_be_told_apart():
    roles = ["Compliance and Risk Officer", "Domain Expert and Decision Maker", "ML Engineer and Model Validator"]
    assert join_words(roles) == ("Compliance and Risk Officer, Domain Expert and Decision Maker, and ML Engineer "
                                 "and Model Validator")
    assert join_words(["Patient", "Compliance and Risk Officer"]) == "Patient, and Compliance and Risk Officer"
    assert join_words(["Patient", "Cardiologist"]) == "Patient and Cardiologist"
