"""Worlds built for one family (issue 32 Acceptance): the matching family wins the matching question.

Each world has 40 shared cases, its own base rate, number of features, display size and seed
(``tests/question_worlds.py``), and is explained by the real SHAP, LIME, Anchor, DiCE and Random explainers.
Families are compared paired per case, at the common size (``_common``) unless a test says otherwise.

Measured and not met (kept as strict expected failures, so a change that meets them is noticed):
on the rule worlds SHAP names the reasons at least as well as the exact rule (``why`` at the common size,
SHAP - Anchor +0.03 [+0.00, +0.06] and +0.10 [+0.05, +0.14]); on the dense worlds the attributions' lead on
``why`` and ``what if`` at the common size is positive but not always significant at 40 cases (the common
size is the rule's, one to three features).
"""

from __future__ import annotations

import pytest
from question_checks import lead, random_intervals, skills
from question_worlds import world

RULE_WORLDS = [dict(seed=11, features=8, base_rate=0.12, top_k=5), dict(seed=12, features=16, base_rate=0.35, top_k=2)]
DENSE_WORLDS = [dict(seed=21, features=6, base_rate=0.5, top_k=3), dict(seed=22, features=8, base_rate=0.3, top_k=8)]


@pytest.fixture(scope="module")
def rule_worlds():
    return [(w, skills(w)) for w in (world("rule", **p) for p in RULE_WORLDS)]


@pytest.fixture(scope="module")
def dense_worlds():
    return [(w, skills(w)) for w in (world("dense", **p) for p in DENSE_WORLDS)]


@pytest.mark.parametrize("rival", ["SHAP", "LIME", "DiCE"])
def test_on_a_rule_model_anchor_says_best_when_the_answer_holds(rule_worlds, rival):
    for w, frame in rule_worlds:
        for size in ("will_it_hold", "will_it_hold_common"):
            d = lead(frame, size, "Anchor", rival)
            assert d.ci_low > 0, (w.config.personas.top_k_features, size, d)


@pytest.mark.xfail(strict=True, reason="measured: SHAP names a rule model's reasons at least as well as the rule")
def test_on_a_rule_model_anchor_names_the_reasons_at_least_as_well_as_shap(rule_worlds):
    for w, frame in rule_worlds:
        d = lead(frame, "why_common", "Anchor", "SHAP")
        assert d.ci_high >= 0, (w.config.personas.top_k_features, d)


def test_on_a_rule_model_anchor_names_the_reasons_as_well_as_lime(rule_worlds):
    for w, frame in rule_worlds:
        d = lead(frame, "why_common", "Anchor", "LIME")
        assert d.ci_high >= 0, (w.config.personas.top_k_features, d)


@pytest.mark.parametrize("method", ["SHAP", "LIME"])
def test_on_a_dense_model_attributions_tell_what_nearby_cases_get(dense_worlds, method):
    for w, frame in dense_worlds:
        d = lead(frame, "what_if", method, "Anchor")
        assert d.ci_low > 0, (w.config.personas.top_k_features, d)


@pytest.mark.parametrize("question", ["why_common", "what_if_common"])
def test_on_a_dense_model_shap_leads_the_rule_at_the_common_size(dense_worlds, question):
    for w, frame in dense_worlds:
        assert lead(frame, question, "SHAP", "Anchor").mean > 0, (w.config.personas.top_k_features, question)


@pytest.mark.xfail(strict=True, reason="measured: the lead at the common size is not significant in every world")
@pytest.mark.parametrize("question", ["why_common", "what_if_common"])
def test_on_a_dense_model_attributions_lead_significantly_at_the_common_size(dense_worlds, question):
    for w, frame in dense_worlds:
        for method in ("SHAP", "LIME"):
            assert lead(frame, question, method, "Anchor").ci_low > 0, (w.config.personas.top_k_features, method)


def test_random_explanations_have_no_skill(rule_worlds, dense_worlds):
    worlds = rule_worlds + dense_worlds
    for w, frame in worlds:
        for metric, (mean, low, high) in random_intervals(frame, worlds=len(worlds)).items():
            assert low <= 0 <= high, (w.kind, w.config.evaluation.random_state, metric, mean, low, high)


def test_the_display_size_does_not_change_the_winner_of_the_rule_world(rule_worlds):
    w, _ = rule_worlds[0]
    for top_k in (2, 8):
        frame = skills(w, top_k=top_k)
        for rival in ("SHAP", "LIME", "DiCE"):
            assert lead(frame, "will_it_hold_common", "Anchor", rival).ci_low > 0, (top_k, rival)


def test_the_display_size_does_not_change_the_winner_of_the_dense_world(dense_worlds):
    w, _ = dense_worlds[0]
    for top_k in (2, 6):
        frame = skills(w, top_k=top_k)
        for method in ("SHAP", "LIME"):
            assert lead(frame, "what_if_common", method, "Anchor").mean > 0, (top_k, method)
