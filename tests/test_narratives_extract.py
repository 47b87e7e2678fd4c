"""The offline extractor and the faithfulness checks on hand-written narratives (faithful and not)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from narrative_fixtures import CATEGORIES, ROW, facts

from hexeval_engine.narratives.faithfulness import flag, score, value_matches
from hexeval_engine.narratives.facts import permuted
from hexeval_engine.narratives.offline_extractor import OfflineExtractor
from hexeval_engine.narratives.template import TemplateNarrator

# Hand-written narratives that tell the true story (cp +, thalach -, ca +, oldpeak +, sex -), each in its own way.
FAITHFUL = {
    "ordinals": (
        "The model thinks heart disease is likely (probability 81%). The biggest factor is your chest pain type, "
        "typical angina, which makes this prediction more likely. Second, your maximum heart rate achieved of "
        "150 bpm counts against it. Third, the number of major vessels coloured by fluoroscopy, 2, supports the "
        "prediction. Fourth, your ST depression induced by exercise relative to rest of 1.4 mm also supports it. "
        "Finally, in fifth place, your sex (male) works against this prediction."),
    "numbered list": (
        "Top SHAP attributions towards the predicted class:\n1. chest pain type = typical angina (+0.21), supports "
        "the prediction\n2. maximum heart rate achieved = 150 (-0.15), counts against the prediction\n3. ca = 2 "
        "(+0.12), supports\n4. oldpeak = 1.4 (+0.08), supports\n5. sex = male (-0.05), counts against"),
    "grouped for and against": (
        "Most important is your chest pain type (typical angina), which supports it. The third most important is "
        "the number of major vessels coloured by fluoroscopy (2) and the fourth is your ST depression induced by "
        "exercise relative to rest (1.4); both make the prediction more likely. Pointing the other way: your "
        "maximum heart rate achieved (150), the second most important factor, and your sex (male), the fifth."),
    "conversational, order of mention": (
        "Your chest pain type, typical angina, weighs most heavily and makes this result more likely. Next comes "
        "your maximum heart rate achieved: at 150 bpm it makes the result less likely. After that, the number of "
        "major vessels coloured by fluoroscopy (2) adds weight to it. Your ST depression induced by exercise "
        "relative to rest, 1.4 mm, also supports it, while your sex, male, counts against it."),
    "only three features": (
        "Above all, your chest pain type (typical angina) points towards this prediction. Your maximum heart rate "
        "achieved, 150, comes second and works against it, and third, the number of major vessels coloured by "
        "fluoroscopy, 2, speaks for it."),
}


def _check(text, truth=None, written_from=None):
    truth = truth or facts()
    extraction = OfflineExtractor(CATEGORIES).extract(text, written_from or truth)
    faith = score(extraction, truth, ROW)
    return faith, flag(faith, min_rank=0.8, min_sign=1.0)


@pytest.mark.parametrize("name", list(FAITHFUL))
def test_hand_written_faithful_narratives_pass(name):
    faith, (flagged, reason) = _check(FAITHFUL[name])
    assert faith.rank_agreement == 1.0 and faith.sign_agreement == 1.0, faith.checks
    assert faith.value_agreement == 1.0 and faith.hallucinated == 0
    assert not flagged, reason
    assert faith.top_n_mentioned == (0.6 if name == "only three features" else 1.0)


def test_false_negative_rate_on_hand_written_narratives_is_zero():
    flagged = [name for name, text in FAITHFUL.items() if _check(text)[1][0]]
    assert flagged == [], f"false negatives: {flagged} of {len(FAITHFUL)}"


def test_a_wrong_direction_is_flagged():
    text = FAITHFUL["ordinals"].replace("150 bpm counts against it", "150 bpm makes it more likely")
    faith, (flagged, reason) = _check(text)
    assert faith.sign_agreement == pytest.approx(0.8) and faith.rank_agreement == 1.0
    assert flagged and "sign agreement 0.80" in reason


def test_swapped_ranks_are_flagged():
    text = FAITHFUL["ordinals"].replace("The biggest factor is your chest", "Second is your chest").replace(
        "Second, your maximum heart rate", "The biggest factor is your maximum heart rate")
    faith, (flagged, reason) = _check(text)
    assert faith.rank_agreement == pytest.approx(0.6)
    assert flagged and "rank agreement 0.60" in reason


def test_a_wrong_value_lowers_value_agreement_only():
    faith, (flagged, _) = _check(FAITHFUL["ordinals"].replace("of 150 bpm", "of 172 bpm"))
    assert faith.value_agreement == pytest.approx(0.8) and faith.sign_agreement == 1.0 and not flagged
    [check] = [c for c in faith.checks if c.feature == "thalach"]
    assert check.stated_value == "172" and check.true_value == "150" and check.value_ok is False


def test_a_feature_outside_the_table_counts_as_hallucinated():
    text = FAITHFUL["ordinals"].replace("Finally, in fifth place, your sex (male) works against this prediction.",
                                        "Fifth, your serum cholesterol of 230 supports it.")
    faith, (flagged, _) = _check(text)
    assert faith.hallucinated == 1 and faith.hallucinated_features == ("chol",)
    assert faith.top_n_mentioned == pytest.approx(0.8)
    # reported, not flagged: the flag rule is rank and sign agreement over the table's features (issue 13)
    assert faith.rank_agreement == 1.0 and faith.sign_agreement == 1.0 and not flagged
    [check] = [c for c in faith.checks if c.feature == "chol"]
    assert not check.in_table and check.stated_rank == 4 and check.stated_value == "230" and check.value_ok


def test_negation_reverses_a_direction():
    faith, _ = _check("The most important factor is your chest pain type (typical angina), which does not make "
                      "this prediction less likely.")
    assert faith.sign_agreement == 1.0


def test_nothing_checkable_is_flagged_with_a_reason():
    faith, (flagged, reason) = _check("The model is fairly confident about this case.")
    assert math.isnan(faith.rank_agreement) and faith.top_n_mentioned == 0
    assert flagged and "cannot be checked" in reason


@pytest.mark.parametrize("audience", ["lay", "professional"])
def test_template_narratives_score_one_and_manipulated_ones_are_flagged(audience):
    truth = facts(audience)
    narrator = TemplateNarrator()
    faith, (flagged, _) = _check(narrator.narrate(truth).text, truth)
    assert (faith.rank_agreement, faith.sign_agreement, faith.value_agreement, faith.top_n_mentioned) == (1, 1, 1, 1)
    assert not flagged
    caught = 0
    for seed in range(50):
        fake = permuted(truth, np.random.default_rng(seed))
        assert fake.manipulated and [f.feature for f in fake.top] != [f.feature for f in truth.top] or \
            [f.sign for f in fake.top] != [f.sign for f in truth.top]
        caught += _check(narrator.narrate(fake).text, truth, fake)[1][0]
    assert caught == 50


def test_permutation_keeps_features_and_values_but_moves_attributions():
    truth = facts()
    fake = permuted(truth, np.random.default_rng(3))
    assert {f.feature for f in fake.top} == {f.feature for f in truth.top}
    assert sorted(f.attribution for f in fake.top) == sorted(f.attribution for f in truth.top)
    assert {f.feature: f.value_text for f in fake.top} == {f.feature: f.value_text for f in truth.top}
    assert [f.rank for f in fake.top] == list(range(5))


def test_ties_accept_any_rank_within_the_tie():
    tied = facts(attributions={"cp": 0.2, "thalach": -0.2, "ca": 0.1})
    assert [(f.rank_low, f.rank_high) for f in tied.top] == [(0, 1), (0, 1), (2, 2)]
    text = ("The most important factor is your maximum heart rate achieved (150), which counts against it. The "
            "second most important is your chest pain type (typical angina), which supports it. The third is the "
            "number of major vessels coloured by fluoroscopy (2), which supports it.")
    faith, (flagged, _) = _check(text, tied)
    assert faith.rank_agreement == 1.0 and not flagged


@pytest.mark.parametrize("stated, raw, shown, ok", [
    ("150", 150, "150", True), ("1.4", 1.43, "1.43", True), ("1.5", 1.43, "1.43", False),
    ("$60,000", 60000, "60000", True), ("25%", 0.25, "0.25", True), ("Typical Angina", 0, "typical angina", True),
    ("atypical angina", 0, "typical angina", False), ("RENT", "RENT", "RENT", True), ("151", 150, "150", False)])
def test_value_matches_within_formatting_tolerance(stated, raw, shown, ok):
    assert value_matches(stated, raw, shown) is ok


def test_a_narrative_names_its_features_once_however_many_clauses_it_has(monkeypatch):
    """The names each feature may go by are gathered once per narrative, not once per clause (same mentions)."""
    from hexeval_engine.narratives import offline_extractor

    text = FAITHFUL["grouped for and against"]
    want = OfflineExtractor(CATEGORIES).extract(text, facts())
    asked = []
    real = offline_extractor.feature_names_for_matching

    def counting(feature, domain):
        asked.append(feature)
        return real(feature, domain)

    monkeypatch.setattr(offline_extractor, "feature_names_for_matching", counting)
    got = OfflineExtractor(CATEGORIES).extract(text, facts())
    assert got == want and len(want.mentions) == 5
    assert sorted(asked) == sorted(facts().features)  # once per feature of the case


def test_professional_narratives_say_each_factor_in_words_and_still_read_back_exactly():
    """The earlier walk: "The fifth most important factor is sex = male (attribution -0.037), which counts against
    the prediction" read like a printout; every form now says the value and how much it weighs in words."""
    from dataclasses import replace

    from hexeval_engine.narratives.template import professional_text

    seen = set()
    for case in range(12):  # the form of each sentence is picked by the case: every form is met
        truth = replace(facts("professional"), instance_id=case)
        text = professional_text(truth)
        assert " = " not in text and "attribution -" not in text and "attribution +" not in text, text
        assert "The fifth most important factor is sex, here male" in text, text
        faith, (flagged, _) = _check(text, truth)
        assert (faith.rank_agreement, faith.sign_agreement, faith.value_agreement) == (1, 1, 1) and not flagged
        seen.add("only slightly" in text.split("sex, here male", 1)[1].split(".")[0])
    assert seen == {True, False}  # sex (-0.05 beside cp's 0.21) is "only slightly" in the form without its number


def test_a_number_followed_by_a_comma_is_read_without_it():
    """The earlier walk: the read-back table showed "0," for "your number of major vessels, which is 0, and it …"."""
    from hexeval_engine.narratives.offline_extractor import _stated_value

    assert _stated_value(" of 0, and it makes this prediction more likely", "ca", {}) == "0"
    assert _stated_value(", which is 125, and it counts against", "trestbps", {}) == "125"
    assert _stated_value(" is $60,000, which supports", "income", {}) == "$60,000"
    assert _stated_value(" is 1,250.5 mm", "x", {}) == "1,250.5"


def test_names_are_found_in_any_case_in_ascii_and_non_ascii_text():
    """The extractor reads a name whatever its case: in a plain-ASCII clause, in a clause with other characters
    (a dash, an umlaut) and when the name itself is not ASCII; a clause read twice gives the same mentions."""
    import dataclasses

    base = facts()
    domain = base.domain.model_copy(update={"feature_descriptions": {
        **base.domain.feature_descriptions, "cp": "Brustschmerz-Typ (ärztliche Einstufung)"}})
    text = ("Ihr BRUSTSCHMERZ-TYP (ÄRZTLICHE EINSTUFUNG) supports the prediction. "
            "Your MAXIMUM HEART RATE ACHIEVED — 150 — counts against it. "
            "Your Maximum Heart Rate Achieved, 150, counts against it.")
    extraction = OfflineExtractor(CATEGORIES).extract(text, dataclasses.replace(base, domain=domain))
    signs = {m.feature: m.sign for m in extraction.mentions}
    assert signs == {"cp": 1, "thalach": -1}
    plain = OfflineExtractor(CATEGORIES).extract("Your CHEST PAIN TYPE makes this prediction more likely.", base)
    assert [(m.feature, m.sign) for m in plain.mentions] == [("cp", 1)]
