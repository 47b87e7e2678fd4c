"""What a persona is shown, and how answers are parsed (never defaulted)."""

from __future__ import annotations

import json

import pytest
from rating_tasks import heart_personas, tasks

from hexeval_engine.raters import DIMENSIONS, rating_agreement
from hexeval_engine.raters.parsing import AnswerError, parse_rating
from hexeval_engine.raters.prompt import build_messages

GOOD = {"interpretability": 4, "completeness": 3, "actionability": 2, "trust": 5, "satisfaction": 4,
        "decision_support": 3, "comment": "Clear enough."}


def test_prompt_shows_case_prediction_domain_and_hides_the_method():
    task = next(t for t in tasks(4) if t.persona.role == "Lead Cardiologist")
    system, user = (m["content"] for m in build_messages(task))
    assert "Lead Cardiologist in a hospital cardiology department" in system
    assert "whether heart disease is likely" in system and "refer for cardiac work-up" in system
    assert "- chest pain type: typical angina" in user and "- resting blood pressure (mm Hg): 145" in user
    assert "heart disease likely" in user and "83%" in user
    assert task.explanation.text in user and "Explanation A" in user
    assert "SHAP" not in system + user


def test_method_names_shown_when_switched_on():
    task = tasks(1, show_method_names=True)[0]
    user = build_messages(task)[1]["content"]
    assert task.label == "SHAP" and "SHAP:" in user


def test_end_user_prompt_uses_end_user_context():
    patient = [t for t in tasks(4) if t.persona.is_end_user][0]
    system = build_messages(patient)[0]["content"]
    assert system.startswith("You are Alex Moreau, a patient waiting to hear")
    assert {p.name for p in heart_personas() if p.is_end_user} == {"Alex Moreau"}


@pytest.mark.parametrize("wrap", ["{}", "```json\n{}\n```", "Here you go:\n```\n{}\n```\nThanks", "Rating: {} done"])
def test_parser_finds_json_in_fences_and_prose(wrap):
    assert parse_rating(wrap.replace("{}", json.dumps(GOOD))).scores == {d: GOOD[d] for d in DIMENSIONS}


def test_parser_tolerates_key_variants_nested_scores_and_integer_strings():
    nested = {"scores": {"Interpretability": "4", "completeness": 3.0, "actionability": 2, "trust": 5,
                         "satisfaction": 4, "decision-support": 3}, "comment": "ok"}
    assert parse_rating(json.dumps(nested)).scores["decision_support"] == 3


@pytest.mark.parametrize("change, message", [({"trust": 7}, "'trust' = 7"), ({"trust": 0}, "'trust' = 0"),
                                             ({"trust": 3.5}, "'trust' = 3.5"), ({"trust": True}, "'trust' = True"),
                                             ({"trust": None}, "'trust' is missing"), ({"comment": ""}, "'comment'")])
def test_parser_rejects_invalid_scores(change, message):
    bad = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    with pytest.raises(AnswerError, match=message.replace("(", r"\(")):
        parse_rating(json.dumps(bad))


@pytest.mark.parametrize("wrap", ["{}", "Rating: {} done"])
def test_parser_reads_a_comment_with_a_raw_line_break(wrap):
    """Gemma 3 270M through llama-cpp-python wrote comments with literal line breaks inside the JSON string, which
    strict JSON refuses: 5 of 6 answers of `make llm-real` were called "holds no JSON object"."""
    comment = "First line.\nSecond line,\tafter a tab."  # a real line break and tab, not the escapes \\n and \\t
    literal = wrap.replace("{}", json.dumps({**GOOD, "comment": "@@"}).replace("@@", comment))
    assert "\n" in literal
    parsed = parse_rating(literal)
    assert parsed.comment == comment and parsed.scores == {d: GOOD[d] for d in DIMENSIONS}


def test_a_comment_that_copies_the_instructions_is_not_a_rating():
    """`make llm-real`: Gemma 3 270M wrote the instruction back ("2-3 sentences in the first person that say why, ...")
    in 21 of 24 comments, with scores counting 1, 2, 3, 4, 5; a comment quoting the explanation is a judgement."""
    copied = {**GOOD, "comment": ": 2-3 sentences in the first person that say why, naming what in the explanation"
                                 " helped or got in your way.\n\nThe patient assessment:\n- age (years): 64 years"}
    with pytest.raises(AnswerError, match="copies the instructions") as err:
        parse_rating(json.dumps(copied))
    assert "personas.llm_model" in str(err.value)
    quoting = {**GOOD, "comment": "It says 'chest pain type is asymptomatic; angina induced by exercise is yes', which "
                                  "is what I look at first. In the first person: I trust it."}
    assert parse_rating(json.dumps(quoting)).comment == quoting["comment"]


def test_parser_rejects_text_without_json():
    with pytest.raises(AnswerError, match="no JSON object"):
        parse_rating("I'd give it a four out of five.")
    with pytest.raises(AnswerError, match="empty"):
        parse_rating("")


def test_agreement_of_repeated_ratings():
    import pandas as pd

    rows = []
    for run, trust in enumerate([3, 5]):
        rows.append({"persona_name": "A", "explanation_type": "SHAP", "instance_index": 0, "status": "ok",
                     **{d: 4 for d in DIMENSIONS}, "trust": trust})
    rows.append({"persona_name": "B", "explanation_type": "SHAP", "instance_index": 0, "status": "ok",
                 **{d: 2 for d in DIMENSIONS}})  # a single run: no pair, skipped
    table = rating_agreement(pd.DataFrame(rows)).set_index("dimension")
    assert table.loc["trust", "mean_abs_diff"] == 2 and table.loc["trust", "share_identical"] == 0
    assert table.loc["completeness", "mean_abs_diff"] == 0 and table.loc["completeness", "share_identical"] == 1
    assert (table["groups"] == 1).all()


def test_a_wide_case_lists_what_the_explanation_speaks_about_and_says_how_many_are_left_out():
    from hexeval_engine.explanation import Explanation
    from hexeval_engine.raters.base import Case, CaseFeature
    from hexeval_engine.raters.prompt import MAX_CASE_LINES, _mentioned, render_case

    features = tuple(CaseFeature(f"f{i}", f"feature {i}", str(i)) for i in range(300))
    case = Case(instance_id=0, features=features, predicted_class=1, outcome="yes", probability_positive=0.8)
    exp = Explanation("SHAP", 0, 1, 0.8, attributions={"f250": 0.5, "f3": -0.1, **{f"f{i}": 0.0 for i in range(100, 140)}})
    text = render_case(case, _mentioned(exp))
    lines = text.splitlines()
    assert lines[:2] == ["- feature 3: 3", "- feature 100: 100"] and "- feature 250: 250" in lines
    assert len(lines) == MAX_CASE_LINES + 1
    assert lines[-1] == f"- … and {300 - MAX_CASE_LINES} more features not listed here"
    small = Case(instance_id=0, features=features[:13], predicted_class=1, outcome="yes", probability_positive=0.8)
    assert len(render_case(small, []).splitlines()) == 13
