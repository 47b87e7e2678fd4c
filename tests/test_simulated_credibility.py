"""Issue 36 items 7-8: the simulated reader doubts reasons that run against how such cases lean, and its
comments read as that person's words about *that* explanation (never a list twice, never broken grammar)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
from persona_fixtures import attribution, rule

from hexeval_engine import load_config
from hexeval_engine.explainers.random_baseline import RandomExplainer
from hexeval_engine.personas import load_personas
from hexeval_engine.raters import Case, CaseFeature, RatingTask, make_rater
from hexeval_engine.raters.case_leanings import leanings

ROOT = Path(__file__).resolve().parents[1]
HEART = load_config(ROOT / "configs" / "heart" / "eval_config.yaml").domain
PERSONAS = load_personas(ROOT / "configs" / "heart" / "personas.yaml")
FEATURES = ("age", "trestbps", "chol", "thalach", "oldpeak", "ca", "cp", "exang")
# how past patients with this case's values lean: +1 towards heart disease, -1 away from it
LEANS = {"age": 1, "trestbps": 1, "chol": 1, "thalach": -1, "oldpeak": 1, "ca": 1, "cp": 1, "exang": 1}


def _case(predicted: int = 1) -> Case:
    features = tuple(CaseFeature(f, HEART.feature_descriptions.get(f, f), v)
                     for f, v in zip(FEATURES, ("67 years", "152 mm Hg", "212 mg/dl", "110 bpm", "2.1", "2",
                                                 "asymptomatic", "yes")))
    outcome = HEART.positive_outcome if predicted else HEART.negative_outcome
    return Case(0, features, predicted, outcome, 0.9 if predicted else 0.1, leanings=tuple(LEANS.items()))


def _rate(persona, case, exp):
    return make_rater("simulated").rate(RatingTask(persona, case, exp, HEART, "Explanation A"))


def test_the_oracle_of_leanings_is_the_outcome_rate_among_alike_past_cases():
    X = pd.DataFrame({"smoker": ["yes"] * 40 + ["no"] * 60, "height": np.arange(100.0)})
    y = pd.Series([1] * 30 + [0] * 10 + [1] * 10 + [0] * 50)  # smokers: 75% positive; overall 40%
    lean = dict(leanings(X, y, pd.Series({"smoker": "yes", "height": 95.0})))
    assert lean["smoker"] == 1
    assert lean["height"] == -1  # the top fifth (80-99): all non-smokers, 0% positive
    assert dict(leanings(X, y, pd.Series({"smoker": "no", "height": 10.0})))["smoker"] == -1


def test_reasons_against_how_such_cases_lean_are_never_called_credible():
    case = _case(predicted=1)
    fitting = {"oldpeak": 0.3, "ca": 0.2, "thalach": -0.1, "cp": 0.15}  # every reason fits the leanings
    backwards = {f: -v for f, v in fitting.items()}  # the same reasons, every direction reversed
    for persona in PERSONAS:
        good, bad = _rate(persona, case, attribution("X", 0, fitting)), _rate(persona, case, attribution("X", 0, backwards))
        assert "credible" not in bad.comment, bad.comment
        assert "doubt" in bad.comment and "“" in bad.comment, bad.comment  # it quotes the reason it doubts
        assert bad.scores["trust"] <= 2 < good.scores["trust"], (persona.name, bad.scores, good.scores)


def test_the_random_baseline_is_doubted_whenever_a_shown_reason_runs_against_such_cases():
    """Over 60 draws of the real Random baseline, the comment calls it credible only when every reason it
    shows happens to fit (a reader cannot tell such a draw from a sound one), and most draws are doubted."""
    data = type("D", (), {"feature_names": list(FEATURES)})()
    draws = RandomExplainer(None, data, None).explain([None] * 60, list(range(60)), [1] * 60, [0.9] * 60,
                                                      list(range(1000, 1060)))
    case, doctor = _case(predicted=1), PERSONAS[0]
    credible = 0
    for exp in draws:
        shown = sorted(exp.attributions, key=lambda f: -abs(exp.attributions[f]))[:5]
        fits = all(np.sign(exp.attributions[f]) == LEANS[f] for f in shown)
        comment = _rate(doctor, case, exp).comment
        credible += "credible" in comment
        assert ("credible" in comment) <= fits, comment
    assert credible <= 6, credible


def test_comments_differ_by_what_the_explanation_shows_and_quote_its_values_with_units():
    case, doctor = _case(predicted=1), PERSONAS[0]
    reasons = _rate(doctor, case, attribution("X", 0, {"trestbps": 0.3, "ca": 0.2})).comment
    anchor = _rate(doctor, case, rule(0, [("ca", ">", 1), ("exang", "=", "yes")], 0.95, 0.3)).comment
    assert "this list of reasons" in reasons and "this rule" in anchor
    assert "152 mm Hg" in reasons, reasons


def test_no_comment_repeats_a_list_or_reads_a_priority_as_a_fragment():
    case = _case(predicted=1)
    exps = [attribution("X", 0, {"trestbps": 0.3, "ca": 0.2, "chol": 0.1}),
            rule(0, [("ca", ">", 1), ("exang", "=", "yes")], 0.95, 0.3)]
    for persona in PERSONAS:
        for exp in exps:
            comment = _rate(persona, case, exp).comment
            groups = re.findall(r"\(([^()]*)\)", comment)
            assert len(groups) == len(set(groups)), comment  # "Anchor comments repeat the same list twice"
            assert not re.search(r"look for first: [a-z]+ ", comment), comment  # "what I look for first: understand …"
