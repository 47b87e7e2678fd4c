"""Simulated comments read as sentences for every persona file and any domain, empty fields included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from persona_fixtures import attribution, counterfactual, rule

from hexeval_engine import load_config
from hexeval_engine.config.schema import Domain
from hexeval_engine.explanation import Explanation, Rule
from hexeval_engine.personas import load_personas
from hexeval_engine.raters import Case, CaseFeature, RatingTask, make_rater

ROOT = Path(__file__).resolve().parents[1]
PERSONA_FILES = sorted((ROOT / "configs").glob("*/personas.yaml"))
EMPTY_DOMAIN = Domain(name="", prediction_task="", decision_verb="", decision_noun="", stakeholder_context="",
                      end_user_context="", positive_outcome="", negative_outcome="")
DOMAINS = {"default (generic)": Domain(), "every optional field empty": EMPTY_DOMAIN,
           **{p.parent.name: load_config(p).domain for p in sorted((ROOT / "configs").glob("*/eval_config.yaml"))}}
FEATURES = ("age", "income", "loan_grade", "chol", "thalach", "cp")

BROKEN = [
    (re.compile(r"whether to decide on"), "the default decision verb read as a choice"),
    (re.compile(r"\b(\w+) \1\b", re.IGNORECASE), "a doubled word"),
    (re.compile(r"\s{2,}|\s[.,;:]|\(\s*\)|\bthis\s*[.,]|\bof\s*[.,]|\{|\}"), "an empty placeholder"),
    (re.compile(r"\b(None|nan|np\.)|\(s\)|_"), "a Python value, plural hedge or column name"),
    # the earlier walk: "these suggested changes helps me"
    (re.compile(r"\bthese( \w+)? \w+s (helps|hardly helps|gives|does|says|tells)\b"), "a plural subject with a singular verb"),
    # the walk: "as a reason for the prediction (likely to repay (approve))"
    (re.compile(r"\([^()]*\([^()]*\)\)"), "a parenthesis inside a parenthesis"),
]


def explanations() -> list[Explanation]:
    full = {f: 0.5 / (k + 1) * (-1) ** k for k, f in enumerate(FEATURES)}
    return [
        attribution("SHAP", 0, full, metrics={"fidelity_combined": 0.93}),
        attribution("LIME", 0, {"age": 0.2, "income": -0.1}, metrics={"fidelity_combined": 0.31}),
        attribution("Random", 0, {"cp": 0.7}, text="Main reasons: cp."),
        rule(0, [("loan_grade", "=", "D"), ("income", "<=", 41000.0)], 0.97, 0.12,
             metrics={"fidelity_combined": 0.7}),
        Explanation("Anchor", 0, 1, 0.8, rule=Rule([], 0.84, 1.0), text="The model gives this prediction anyway."),
        counterfactual(0, [{"income": (70000.0, 478298.3)}, {"age": (24, 25), "chol": (240, 180), "cp": (1, 0)}],
                       [True, False], metrics={"counterfactual_plausible": 0.0, "fidelity_combined": 0.55}),
        counterfactual(0, [{"thalach": (150, 172)}], [True], metrics={"counterfactual_plausible": 1.0}),
    ]


@pytest.mark.parametrize("persona_file", PERSONA_FILES, ids=lambda p: p.parent.name)
@pytest.mark.parametrize("domain_name", list(DOMAINS))
def test_every_comment_is_a_proper_sentence(persona_file, domain_name):
    domain = DOMAINS[domain_name]
    case = Case(0, tuple(CaseFeature(f, domain.feature_descriptions.get(f, f), "1") for f in FEATURES), 1,
                domain.positive_outcome or "positive", 0.8)
    rater = make_rater("simulated")
    seen, personas = 0, load_personas(persona_file)
    for persona in personas:
        for exp in explanations():
            comment = rater.rate(RatingTask(persona, case, exp, domain, "Explanation A")).comment
            seen += 1
            assert comment.endswith("."), comment
            assert comment[0].isupper(), comment
            for pattern, what in BROKEN:
                match = pattern.search(comment)
                assert match is None, f"{what} ({match.group(0)!r}) in: {comment}"
            # the walk: a rule's comment said "it says what would make a difference" and then "but not what
            # could be done about it"
            assert not ("what would make a difference" in comment and "not what could be done" in comment), comment
    assert seen == len(personas) * len(explanations()) > 0


def test_generic_domain_verdict_names_the_decision_and_a_choice_keeps_its_verb():
    personas = load_personas(ROOT / "configs" / "generic" / "personas.yaml")
    case = Case(0, (CaseFeature("age", "age", "40"),), 1, "positive", 0.8)
    exp = attribution("SHAP", 0, {"age": 0.4})
    rater = make_rater("simulated")
    generic = rater.rate(RatingTask(personas[0], case, exp, Domain(), "Explanation A")).comment
    assert "For my decision on this case, this list of reasons " in generic
    credit = Domain(decision_verb="approve or reject", decision_noun="loan application")
    assert "In deciding whether to approve or reject, this list of reasons " in rater.rate(
        RatingTask(personas[0], case, exp, credit, "Explanation A")).comment


_ITEM_SPLIT = re.compile(r", | and (?!\d+ more)")


def _listed_items(comment: str) -> list[list[str]]:
    """Every parenthesised list in ``comment`` split into its items (the comment's own list syntax)."""
    return [[i.strip() for i in _ITEM_SPLIT.split(group) if i.strip()]
            for group in re.findall(r"\(([^()]*(?:\([^()]*\)[^()]*)*)\)", comment)]


@pytest.mark.parametrize("usecase", ["heart", "credit_risk"])
def test_bundled_personas_of_different_roles_never_share_a_comment_and_no_comment_repeats_an_item(tmp_path, usecase):
    from test_evaluate_e2e import small_config  # the e2e module's small settings, one source for both tests

    from hexeval_engine import evaluate
    result = evaluate(usecase=usecase, config_path=small_config(tmp_path, usecase), output_dir=tmp_path / "runs",
                      config_overrides={"narratives": {"enabled": True}}, rater="simulated")
    ratings = result.persona_ratings
    ok = ratings[(ratings["status"] == "ok") & (ratings["comment"] != "")]
    assert ok["persona_role"].nunique() >= 3, "every bundled persona file has at least three roles"
    roles_by_comment = ok.groupby("comment")["persona_role"].nunique()
    shared = roles_by_comment[roles_by_comment > 1]
    assert shared.empty, f"{len(shared)} comments written word for word by personas of different roles: {shared.index[0]}"
    for comment in ok["comment"]:
        for items in _listed_items(comment):
            assert len(items) == len(set(items)), f"an item repeated in: {comment}"
    end_user = ok[ok["persona_role"].isin(
        [p.role for p in load_personas(ROOT / "configs" / usecase / "personas.yaml") if p.is_end_user])]
    assert len(end_user), "each bundled use case has a person the decision is about"
    assert not end_user["comment"].str.contains("In deciding whether to").any(), \
        "the person the decision is about does not make the professional's decision"
    stories = ok[ok["explanation_type"] == "Narrative"]
    assert len(stories) and not stories["comment"].str.contains("separate point").any(), \
        "a narrative is read as a story, not counted as separate points"


def test_comments_name_the_feature_without_its_codebook_note():
    """The heart config describes ``ca`` as "number of major vessels … (0-3; 4 = not recorded)": a comment names
    the vessels, never the note (units and codebooks belong in tables, not in what a persona says)."""
    domain = load_config(ROOT / "configs" / "heart" / "eval_config.yaml").domain
    noted = {f: d for f, d in domain.feature_descriptions.items() if d.rstrip().endswith(")")}
    assert {"ca", "oldpeak"} <= set(noted), noted  # the oracle below needs features that carry a note
    case = Case(0, tuple(CaseFeature(f, d, "1") for f, d in noted.items()), 1, domain.positive_outcome, 0.8)
    shown = [attribution("SHAP", 0, {"ca": 0.5, "oldpeak": -0.3}),
             rule(0, [("ca", "<=", 0), ("oldpeak", ">", 1.5)], 0.95, 0.2),
             counterfactual(0, [{"ca": (2, 0)}], [True])]
    rater = make_rater("simulated")
    for persona in load_personas(ROOT / "configs" / "heart" / "personas.yaml"):
        for exp in shown:
            comment = rater.rate(RatingTask(persona, case, exp, domain, "Explanation A")).comment
            for feature, description in noted.items():
                note = description[description.rindex("("):]
                assert note not in comment, comment
            assert "number of major vessels" in comment, comment


def test_rule_bound_at_the_lowest_value_reads_as_that_value(usecase_bundle):
    """A rule "ca <= 0" on data whose lowest ca is 0 pins the value: the comment says "is 0", never "is at most 0";
    a bound inside the data's range keeps its comparison. The lowest values come from the training data here."""
    from hexeval_engine.raters.case import build_cases

    _, config, data, model = usecase_bundle("heart")
    lowest_ca, lowest_chol = data.X_train["ca"].min(), data.X_train["chol"].min()
    assert lowest_ca == 0
    case = build_cases(model, data, config.domain, [0])[0]
    persona = load_personas(ROOT / "configs" / "heart" / "personas.yaml")[0]
    exp = rule(0, [("ca", "<=", float(lowest_ca)), ("chol", "<=", float(lowest_chol) + 50)], 0.95, 0.3)
    rating = make_rater("simulated").rate(RatingTask(persona, case, exp, config.domain, "Explanation A"))
    assert "number of major vessels coloured by fluoroscopy is 0" in rating.comment, rating.comment
    assert "at most 0" not in rating.comment
    assert f"is at most {int(lowest_chol) + 50}" in rating.comment, rating.comment


def test_a_contradicted_reason_names_an_outcome_with_brackets_without_nesting_them():
    """The walk: "as a reason for the prediction (likely to repay (approve)), though such cases …"."""
    domain = Domain(positive_outcome="likely to repay (approve)", negative_outcome="likely to default (decline)")
    case = Case(0, (CaseFeature("income", "annual income", "$28,000"),), 1, domain.positive_outcome, 0.8,
                leanings=(("income", -1),))  # such incomes lean away from repaying
    persona = load_personas(ROOT / "configs" / "credit_risk" / "personas.yaml")[0]
    exp = attribution("SHAP", 0, {"income": 0.4})
    comment = make_rater("simulated").rate(RatingTask(persona, case, exp, domain, "Explanation A")).comment
    assert "as a reason for the prediction, likely to repay (approve), though such cases usually go the other way" \
        in comment, comment
    assert not re.search(r"\([^()]*\([^()]*\)\)", comment), comment
