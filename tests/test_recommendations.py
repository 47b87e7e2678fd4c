"""Recommendations: canonical names, per-family technical scores, weights, lead, technical-only mode."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from hexeval_engine.recommendations import generate_recommendations
from hexeval_engine.technical_scores import goodness, method_components
from hexeval_engine.technical_table import as_long, canonical_method

from recommendation_fixtures import BASE_METRICS, long_table, ratings_table, wide_table

OFFICER_AND_APPLICANT = {
    ("Loan officer", "SHAP"): (3, 3), ("Loan officer", "LIME"): (3, 3),
    ("Loan officer", "Anchor"): (5, 4), ("Loan officer", "DiCE"): (2, 2),
    ("Applicant", "SHAP"): (2, 2), ("Applicant", "LIME"): (2, 2),
    ("Applicant", "Anchor"): (3, 3), ("Applicant", "DiCE"): (5, 5),
}


def entry(rec: dict, role) -> dict:
    found = rec["stakeholders"][role]
    assert found["persona_role"] == role and found["title"] == role
    return found


def ranking(stakeholder: dict) -> list[str]:
    return [a["method"] for a in stakeholder["alternatives"]]


def test_anchor_wins_for_the_persona_that_trusts_rules():
    rec = generate_recommendations(long_table(), ratings_table(OFFICER_AND_APPLICANT), None)
    officer = entry(rec, "Loan officer")
    assert rec["mode"] == "combined" and officer["mode"] == "combined"
    assert officer["recommended_method"] == "Anchor"
    assert "highest trust from this persona (4.5/5" in officer["reasoning"]
    assert "low rule coverage (12%)" in officer["reasoning"]
    assert "faithful rule (rule precision 95%; insertion AUC (derived) 0.60; deletion AUC (derived) 0.35)" in \
        officer["strengths"]


def test_dice_wins_for_the_applicant():
    rec = generate_recommendations(long_table(), ratings_table(OFFICER_AND_APPLICANT), None)
    applicant = entry(rec, "Applicant")
    assert applicant["recommended_method"] == "DiCE"
    assert ranking(applicant)[0] == "DiCE" and sorted(ranking(applicant)) == ["Anchor", "DiCE", "LIME", "SHAP"]


def test_original_hexeval_rating_names_map_to_canonical_methods():
    ratings = ratings_table(OFFICER_AND_APPLICANT)
    ratings["explanation_type"] = ratings["explanation_type"].map(
        {"SHAP": "SHAP", "LIME": "LIME", "Anchor": "ANCHOR", "DiCE": "COUNTERFACTUAL"})
    rec = generate_recommendations(long_table(), ratings, None)
    assert entry(rec, "Loan officer")["recommended_method"] == "Anchor"
    assert entry(rec, "Applicant")["recommended_method"] == "DiCE"
    with pytest.raises(ValueError, match="unknown explanation method 'GradCAM'"):
        canonical_method("GradCAM")


def test_weights_change_the_outcome():
    ratings = ratings_table(OFFICER_AND_APPLICANT)
    persona_only = {"recommendations": {"weights": {"technical_fidelity": 0, "technical_parsimony": 0,
                                                    "persona_trust": 1, "persona_satisfaction": 0}}}
    parsimony_only = {"recommendations": {"weights": {"technical_fidelity": 0, "technical_parsimony": 1,
                                                      "persona_trust": 0, "persona_satisfaction": 0}}}
    fidelity_only = {"recommendations": {"weights": {"technical_fidelity": 1, "technical_parsimony": 0,
                                                     "persona_trust": 0, "persona_satisfaction": 0}}}
    assert entry(generate_recommendations(long_table(), ratings, persona_only), "Loan officer")[
        "recommended_method"] == "Anchor"
    # Anchor's coverage (0.12) ranks it last on parsimony; SHAP's Gini (0.60) wins it; LIME's Gini and
    # DiCE's 1 / 2 changes tie at 0.5 and keep the canonical method order.
    officer = entry(generate_recommendations(long_table(), ratings, parsimony_only), "Loan officer")
    assert ranking(officer) == ["SHAP", "LIME", "DiCE", "Anchor"]
    # On fidelity alone: DiCE's validity 0.90 (no derived AUCs in this fixture) beats SHAP's 0.80, which beats
    # Anchor's mean of precision 0.95, derived insertion 0.60 and 1 - derived deletion 0.65 (= 0.733).
    officer = entry(generate_recommendations(long_table(), ratings, fidelity_only), "Loan officer")
    assert ranking(officer) == ["DiCE", "SHAP", "Anchor", "LIME"]
    assert officer["alternatives"][0]["components"]["technical_parsimony"]["weight"] == 0.0


def test_components_are_kept_and_sum_to_the_score():
    rec = generate_recommendations(long_table(), ratings_table(OFFICER_AND_APPLICANT), None)
    json.dumps(rec, allow_nan=False)
    assert list(rec["stakeholders"]) == ["Applicant", "Loan officer"]
    for stakeholder in rec["stakeholders"].values():
        for alt in stakeholder["alternatives"]:
            components = alt["components"]
            assert set(components) == {"technical_fidelity", "technical_parsimony", "persona_trust",
                                       "persona_satisfaction"}
            assert [c["configured_weight"] for c in components.values()] == [0.3, 0.2, 0.3, 0.2]
            assert math.isclose(sum(c["contribution"] for c in components.values()), alt["score"])
            assert alt["score_ci_low"] <= alt["score"] <= alt["score_ci_high"]
    shap = entry(rec, "Applicant")["alternatives"][ranking(entry(rec, "Applicant")).index("SHAP")]
    # SHAP for the applicant: trust and satisfaction ratings alternate 1 and 3 -> mean 2 -> 0.25.
    expected = 0.3 * 0.8 + 0.2 * 0.6 + 0.3 * 0.25 + 0.2 * 0.25
    assert math.isclose(shap["score"], expected)


def test_technical_only_mode_without_ratings():
    for ratings in (None, pd.DataFrame()):
        rec = generate_recommendations(long_table(), ratings, None)
        assert rec["mode"] == "technical_only"
        [only] = rec["stakeholders"].values()
        assert only["persona_role"] is None and only["mode"] == "technical_only"
        assert only["title"] == "All stakeholders (technical-only ranking)"
        assert only["reasoning"].startswith("Technical-only ranking: no persona ratings")
        for alt in only["alternatives"]:
            assert alt["components"]["persona_trust"]["value"] is None
            assert alt["notes"] == []  # persona weights are switched off, not reported missing
        # (0.3 * 0.9 + 0.2 * 0.5) / 0.5 for DiCE beats (0.3 * 0.8 + 0.2 * 0.6) / 0.5 for SHAP
        assert ranking(only) == ["DiCE", "SHAP", "LIME", "Anchor"]
        assert math.isclose(only["score"], 0.74)


def test_only_failed_ratings_give_technical_only_with_a_note():
    failed = ratings_table(OFFICER_AND_APPLICANT, status="failed")
    for dim in ("trust", "satisfaction"):
        failed[dim] = float("nan")
    rec = generate_recommendations(long_table(), failed, None)
    assert rec["mode"] == "technical_only"
    assert rec["stakeholders"]["All stakeholders (technical-only ranking)"]["n_failed_ratings"] == len(failed)
    assert any("no usable persona rating (48 failed" in n for n in rec["notes"])


def test_clear_lead_versus_close_call():
    clear = ratings_table({("Analyst", m): s for m, s in
                           {"SHAP": (5, 5), "LIME": (1, 1), "Anchor": (1, 1), "DiCE": (1, 1)}.items()}, jitter=False)
    rec = entry(generate_recommendations(long_table(), clear, None), "Analyst")
    assert rec["recommended_method"] == "SHAP" and rec["lead"] == "clear" and rec["clear_lead"] is True
    assert "a clear lead over" in rec["reasoning"]
    close = ratings_table({("Analyst", m): s for m, s in
                           {"SHAP": (3, 3), "LIME": (3, 3), "Anchor": (3, 3), "DiCE": (3, 3)}.items()})
    rec = entry(generate_recommendations(long_table(), close, None), "Analyst")
    assert rec["lead"] == "close_call" and rec["clear_lead"] is False and rec["runner_up"] == ranking(rec)[1]
    assert "a close call with" in rec["reasoning"]


def test_a_single_rating_cannot_give_a_clear_lead():
    one = ratings_table({("Analyst", m): s for m, s in
                         {"SHAP": (5, 5), "LIME": (1, 1), "Anchor": (1, 1), "DiCE": (1, 1)}.items()},
                        repeats=1, jitter=False)
    rec = entry(generate_recommendations(long_table(), one, None), "Analyst")
    assert rec["recommended_method"] == "SHAP" and rec["lead"] == "close_call"


def test_failed_method_is_excluded_with_a_note():
    rec = generate_recommendations(wide_table(errors={"DiCE": "DiCE could not find counterfactuals"}),
                                   ratings_table(OFFICER_AND_APPLICANT), None)
    assert rec["methods"] == ["SHAP", "LIME", "Anchor"]
    assert rec["excluded_methods"] == [
        {"method": "DiCE", "reason": "DiCE failed in the technical evaluation: DiCE could not find counterfactuals"}]
    assert any(n.startswith("DiCE failed") for n in rec["notes"])
    assert any("ratings of DiCE are ignored" in n for n in rec["notes"])
    applicant = entry(rec, "Applicant")
    assert "DiCE" not in ranking(applicant) and applicant["recommended_method"] == "Anchor"


def test_wide_and_long_tables_give_the_same_recommendations():
    ratings = ratings_table(OFFICER_AND_APPLICANT)
    assert generate_recommendations(wide_table(), ratings, None) == generate_recommendations(long_table(), ratings, None)


def test_normalisation_documented_values():
    long = as_long(long_table())
    shap = method_components(long, "SHAP")
    assert math.isclose(shap["technical_fidelity"]["value"], (1 + 0.80 - 0.20) / 2)
    # deletion's interval [0.15, 0.25] maps to [0.75, 0.85] and averages with insertion's [0.75, 0.85]
    assert math.isclose(shap["technical_fidelity"]["ci_low"], 0.75)
    assert math.isclose(shap["technical_fidelity"]["ci_high"], 0.85)
    assert shap["technical_fidelity"]["detail"] == "insertion AUC 0.80; deletion AUC 0.20"
    assert math.isclose(shap["technical_parsimony"]["value"], 0.60)
    anchor = method_components(long, "Anchor")
    # a rule's own precision is averaged with the common deletion/insertion axis of its derived vector
    assert math.isclose(anchor["technical_fidelity"]["value"], (0.95 + 0.60 + (1 - 0.35)) / 3)
    assert anchor["technical_parsimony"]["value"] == 0.12
    assert anchor["technical_parsimony"]["detail"] == "12%"
    dice = method_components(long, "DiCE")
    assert dice["technical_fidelity"]["value"] == 0.90
    assert dice["technical_parsimony"]["value"] == 0.5  # 1 / 2 changes
    assert (dice["technical_parsimony"]["ci_low"], dice["technical_parsimony"]["ci_high"]) == (1 / 2.2, 1 / 1.8)
    assert [goodness(v, "lower", "count") for v in (0.5, 1, 2, 4)] == [1.0, 1.0, 0.5, 0.25]
    assert goodness(0.3, "lower", "unit") == pytest.approx(0.7) and goodness(0.3, "higher", "unit") == 0.3


def test_direction_is_read_from_the_table():
    flipped = long_table()
    flipped.loc[flipped["metric"] == "rule_coverage", "direction"] = "lower"
    anchor = method_components(as_long(flipped), "Anchor")
    assert math.isclose(anchor["technical_parsimony"]["value"], 0.88)


def test_missing_component_and_missing_interval_are_reported():
    metrics = {m: dict(v) for m, v in BASE_METRICS.items()}
    del metrics["Anchor"]["rule_coverage"]
    metrics["DiCE"]["counterfactual_validity"] = (0.9, float("nan"), float("nan"))
    rec = generate_recommendations(long_table(metrics), None, None)
    [only] = rec["stakeholders"].values()
    anchor = only["alternatives"][ranking(only).index("Anchor")]
    assert anchor["components"]["technical_parsimony"]["value"] is None
    assert anchor["score"] == pytest.approx((0.95 + 0.60 + 0.65) / 3)  # fidelity alone, weight renormalised to 1
    assert anchor["notes"] == ["technical parsimony not available; the score uses the other components"]
    dice = only["alternatives"][ranking(only).index("DiCE")]
    assert dice["components"]["technical_fidelity"]["ci_low"] == 0.0
    assert dice["components"]["technical_fidelity"]["ci_high"] == 1.0
    assert any(n.startswith("DiCE: counterfactual validity has no confidence interval")
               for n in rec["notes"])


def test_unknown_direction_is_an_error():
    bad = long_table()
    bad.loc[0, "direction"] = "up"
    with pytest.raises(ValueError, match="'higher' or 'lower'"):
        generate_recommendations(bad, None, None)


def test_role_with_only_failed_ratings_gets_a_technical_only_entry():
    ratings = ratings_table(OFFICER_AND_APPLICANT)
    ratings.loc[ratings["persona_role"] == "Applicant", ["status", "trust", "satisfaction"]] = ["failed", None, None]
    rec = generate_recommendations(long_table(), ratings, None)
    assert rec["mode"] == "combined"
    applicant = entry(rec, "Applicant")
    assert applicant["mode"] == "technical_only" and applicant["n_failed_ratings"] == 24
    assert entry(rec, "Loan officer")["mode"] == "combined"


def test_tables_from_the_metric_aggregator_give_the_same_recommendations():
    from hexeval_engine.metrics.aggregate import summarise

    rows = [{"method": method, "instance_id": i, "metric": metric, "value": value + (0.01 if i % 2 else -0.01),
             "derived": False}
            for method, metrics in BASE_METRICS.items() for metric, (value, _, _) in metrics.items() for i in range(8)]
    wide, long = summarise(pd.DataFrame(rows), n_resamples=200, methods=["SHAP", "LIME", "Anchor", "DiCE"])
    ratings = ratings_table(OFFICER_AND_APPLICANT)
    from_wide = generate_recommendations(wide, ratings, None)
    assert from_wide == generate_recommendations(long, ratings, None)
    assert from_wide["stakeholders"]["Loan officer"]["recommended_method"] == "Anchor"
    assert from_wide["stakeholders"]["Applicant"]["recommended_method"] == "DiCE"
