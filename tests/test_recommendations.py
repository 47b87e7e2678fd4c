"""Recommendations: paired evidence on shared cases, the random baseline, clear lead vs close call,
constraints instead of bonuses, parsimony as a tie-break only, and no advice without signal."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.recommend.recommender import MIN_UNITS_FOR_CLEAR, generate_recommendations
from hexeval_engine.paired_stats import holm, paired_difference
from hexeval_engine.metrics.table import canonical_method

from recommendation_fixtures import case_ratings, long_table, per_instance_table

RNG = np.random.default_rng(0)
TECH_ONLY = {"recommendations": {"weights": {"technical_fidelity": 1, "technical_parsimony": 0,
                                             "persona_trust": 0, "persona_satisfaction": 0}}}


def noisy(mean: float, n: int = 12, sd: float = 0.03, seed: int = 0) -> list[float]:
    return list(mean + np.random.default_rng(seed).normal(0, sd, n))


def only(rec: dict) -> dict:
    (entry,) = rec["stakeholders"].values()
    return entry


def test_a_method_that_beats_random_clearly_is_recommended_with_a_clear_lead():
    per_case = per_instance_table({"SHAP": noisy(0.75, seed=1), "LIME": noisy(0.55, seed=2),
                                   "Random": noisy(0.50, seed=3)})
    rec = generate_recommendations(long_table(), None, TECH_ONLY, per_instance=per_case)
    entry = only(rec)
    assert entry["recommended_method"] == "SHAP" and entry["lead"] == "clear" and entry["runner_up"] == "LIME"
    assert rec["technical"]["SHAP"]["vs_baseline"]["qualifies"] is True
    assert rec["technical"]["SHAP"]["vs_baseline"]["n"] == 12
    assert entry["comparisons"][0]["n"] == 12 and entry["comparisons"][0]["p_holm"] < 0.05
    assert "12 shared cases" in entry["reasoning"]


def test_random_is_never_recommended_even_when_it_scores_best():
    per_case = per_instance_table({"SHAP": noisy(0.50, seed=1), "LIME": noisy(0.52, seed=2),
                                   "Random": noisy(0.70, seed=3)})
    rec = generate_recommendations(long_table(), None, TECH_ONLY, per_instance=per_case)
    entry = only(rec)
    assert entry["recommended_method"] is None and entry["lead"] == "none"
    assert "random feature weights" in entry["reason"]
    random_row = next(a for a in entry["alternatives"] if a["method"] == "Random")
    assert random_row["recommendable"] is False
    assert "Random" not in rec["methods"]


def test_methods_that_do_not_beat_random_do_not_qualify():
    # LIME is indistinguishable from Random: it is listed but cannot be recommended.
    per_case = per_instance_table({"LIME": noisy(0.50, seed=2), "Random": noisy(0.50, seed=3)})
    rec = generate_recommendations(long_table(), None, TECH_ONLY, per_instance=per_case)
    assert rec["technical"]["LIME"]["vs_baseline"]["qualifies"] is False
    assert only(rec)["recommended_method"] is None


def test_too_few_shared_cases_never_give_a_clear_lead():
    n = MIN_UNITS_FOR_CLEAR - 1
    per_case = per_instance_table({"SHAP": noisy(0.9, n, 0.01, 1), "LIME": noisy(0.5, n, 0.01, 2),
                                   "Random": noisy(0.3, n, 0.01, 3)})
    entry = only(generate_recommendations(long_table(), None, TECH_ONLY, per_instance=per_case))
    assert entry["recommended_method"] == "SHAP" and entry["lead"] == "close_call"
    assert any(f"at least {MIN_UNITS_FOR_CLEAR}" in note for note in entry["notes"])


def test_the_clear_lead_boundary_is_the_corrected_paired_test():
    # SHAP and LIME differ by noise only: close call. Shift SHAP up by a consistent margin: clear.
    base = noisy(0.6, 12, 0.05, 7)
    tied = per_instance_table({"SHAP": [v + 0.004 * (-1) ** i for i, v in enumerate(base)], "LIME": base,
                               "Random": noisy(0.3, 12, 0.02, 3)})
    entry = only(generate_recommendations(long_table(), None, TECH_ONLY, per_instance=tied))
    assert entry["lead"] == "close_call"
    assert entry["comparisons"][0]["p_holm"] >= 0.05
    apart = per_instance_table({"SHAP": [v + 0.1 for v in base], "LIME": base, "Random": noisy(0.3, 12, 0.02, 3)})
    entry = only(generate_recommendations(long_table(), None, TECH_ONLY, per_instance=apart))
    assert entry["lead"] == "clear" and entry["comparisons"][0]["ci_low"] > 0


def test_simulated_ratings_never_make_a_clear_lead():
    per_case = per_instance_table({"SHAP": noisy(0.7, seed=1), "DiCE": noisy(0.7, seed=2),
                                   "Random": noisy(0.4, seed=3)})
    scores = {("Applicant", "SHAP"): 2, ("Applicant", "DiCE"): 5}
    simulated = generate_recommendations(long_table(), case_ratings(scores, cases=12), None, per_instance=per_case,
                                         rater_kind="simulated")
    entry = simulated["stakeholders"]["Applicant"]
    assert entry["recommended_method"] == "DiCE" and entry["lead"] == "close_call"
    assert any("simulated rater" in note for note in entry["notes"])
    llm = generate_recommendations(long_table(), case_ratings(scores, cases=12, rater="openai"), None,
                                   per_instance=per_case, rater_kind="openai")
    assert llm["stakeholders"]["Applicant"]["lead"] == "clear"


def test_single_candidate_and_none():
    # One candidate: SHAP is the only recommendable method with a score; it is recommended with nothing to
    # compare against (no runner-up), and every other method is listed without a score.
    per_case = per_instance_table({"SHAP": noisy(0.8, seed=1), "Random": noisy(0.4, seed=3)})
    single = only(generate_recommendations(long_table(), None, TECH_ONLY, per_instance=per_case))
    assert (single["recommended_method"], single["lead"], single["runner_up"]) == ("SHAP", "single_candidate", None)
    scored = [a["method"] for a in single["alternatives"] if a["score"] is not None and a["recommendable"]]
    assert scored == ["SHAP"]
    # No candidate: only the Random baseline was measured, so nothing is recommended and the reason says why.
    baseline_only = only(generate_recommendations(long_table({"Random": {"fidelity_insertion": (0.4, 0.3, 0.5)}}),
                                                  None, TECH_ONLY,
                                                  per_instance=per_instance_table({"Random": noisy(0.4, seed=3)})))
    assert (baseline_only["recommended_method"], baseline_only["lead"]) == (None, "none")
    assert baseline_only["reason"].startswith("No explanation method could be evaluated")
    empty = only(generate_recommendations(None, None, TECH_ONLY, per_instance=None))
    assert (empty["recommended_method"], empty["lead"]) == (None, "none")


def test_no_signal_blocks_every_recommendation_with_the_reason():
    per_case = per_instance_table({"SHAP": noisy(0.8, seed=1), "LIME": noisy(0.6, seed=2),
                                   "Random": noisy(0.4, seed=3)})
    warning = {"code": "model_has_no_signal", "message": "The model shows no usable signal on the held-out rows."}
    rec = generate_recommendations(long_table(), None, TECH_ONLY, per_instance=per_case, warnings=[warning])
    entry = only(rec)
    assert entry["recommended_method"] is None and entry["lead"] == "none"
    assert entry["reason"].startswith("The model shows no usable signal")
    assert rec["warnings"] == [warning]


def test_family_specific_quantities_are_constraints_not_points():
    # DiCE is the most faithful but none of its counterfactuals flips the prediction: excluded.
    long = long_table({"DiCE": {"counterfactual_validity": (0.0, 0.0, 0.0)},
                       "SHAP": {"fidelity_insertion": (0.7, 0.6, 0.8)}})
    per_case = per_instance_table({"SHAP": noisy(0.7, seed=1), "DiCE": noisy(0.9, seed=2),
                                   "Random": noisy(0.4, seed=3)})
    entry = only(generate_recommendations(long, None, TECH_ONLY, per_instance=per_case))
    assert entry["recommended_method"] == "SHAP"
    dice = next(a for a in entry["alternatives"] if a["method"] == "DiCE")
    assert "changes the model's prediction" in dice["excluded"]
    # Perfect validity adds nothing: the score is the shared fidelity alone.
    long = long_table({"DiCE": {"counterfactual_validity": (1.0, 1.0, 1.0)},
                       "SHAP": {"fidelity_insertion": (0.7, 0.6, 0.8)}})
    rec = generate_recommendations(long, None, TECH_ONLY, per_instance=per_case)
    dice = next(a for a in only(rec)["alternatives"] if a["method"] == "DiCE")
    assert dice["score"] == pytest.approx(np.mean(noisy(0.9, seed=2)))


def test_implausible_counterfactuals_are_counted_as_a_concern():
    per_case = per_instance_table({"DiCE": noisy(0.8, seed=2), "Random": noisy(0.4, seed=3)},
                                  extra={("DiCE", "counterfactual_plausible"): [2 / 3] * 12})
    rec = generate_recommendations(long_table({"DiCE": {"counterfactual_validity": (1.0, 1.0, 1.0)}}), None,
                                   TECH_ONLY, per_instance=per_case)
    concerns = only(rec)["concerns"]
    assert any("12 of 36 counterfactuals are implausible" in c for c in concerns), concerns


def test_parsimony_breaks_ties_but_never_rescues_a_less_faithful_method():
    both = {"recommendations": {"weights": {"technical_fidelity": 1, "technical_parsimony": 0.5,
                                            "persona_trust": 0, "persona_satisfaction": 0}}}
    base = noisy(0.7, 12, 0.03, 5)
    tied = per_instance_table({"SHAP": [v + 0.003 * (-1) ** i for i, v in enumerate(base)], "Anchor": base,
                               "Random": noisy(0.3, 12, 0.02, 3)},
                              sizes={"SHAP": [6] * 12, "Anchor": [2] * 12})
    entry = only(generate_recommendations(long_table(), None, both, per_instance=tied))
    assert entry["recommended_method"] == "Anchor" and "fewer features" in entry["tie_break"]
    worse = per_instance_table({"SHAP": [v + 0.15 for v in base], "Anchor": base, "Random": noisy(0.3, 12, 0.02, 3)},
                               sizes={"SHAP": [6] * 12, "Anchor": [2] * 12})
    entry = only(generate_recommendations(long_table(), None, both, per_instance=worse))
    assert entry["recommended_method"] == "SHAP" and entry["tie_break"] is None


def test_relabelling_methods_relabels_the_answer():
    values = {"SHAP": noisy(0.8, seed=1), "Anchor": noisy(0.6, seed=2), "Random": noisy(0.4, seed=3)}
    rec = generate_recommendations(long_table(), None, TECH_ONLY, per_instance=per_instance_table(values))
    swapped = {"SHAP": values["Anchor"], "Anchor": values["SHAP"], "Random": values["Random"]}
    rec2 = generate_recommendations(long_table(), None, TECH_ONLY, per_instance=per_instance_table(swapped))
    assert only(rec)["recommended_method"] == "SHAP" and only(rec2)["recommended_method"] == "Anchor"
    assert only(rec)["score"] == pytest.approx(only(rec2)["score"])


def test_persona_evidence_is_paired_by_case_and_repeats_are_averaged():
    per_case = per_instance_table({"SHAP": noisy(0.6, seed=1), "LIME": noisy(0.6, seed=2),
                                   "Random": noisy(0.3, seed=3)})
    ratings = case_ratings({("Officer", "SHAP"): 4, ("Officer", "LIME"): 2}, cases=12, rater="openai")
    doubled = ratings.assign(run=2)
    twice = generate_recommendations(long_table(), pd.concat([ratings, doubled], ignore_index=True), None, per_instance=per_case)
    once = generate_recommendations(long_table(), ratings, None, per_instance=per_case)
    a, b = twice["stakeholders"]["Officer"], once["stakeholders"]["Officer"]
    assert a["n_units"] == b["n_units"] == 12  # repeats never count as extra cases
    assert a["score"] == pytest.approx(b["score"])
    assert a["recommended_method"] == "SHAP"


def test_legacy_tables_without_per_case_values_still_rank_but_test_nothing():
    rec = generate_recommendations(long_table(), None, TECH_ONLY)
    entry = only(rec)
    assert entry["lead"] != "clear"
    assert any("could not be compared case by case" in n for n in rec["notes"])
    json.dumps(rec, allow_nan=False)


def test_output_is_json_safe_and_names_are_canonical():
    per_case = per_instance_table({"SHAP": noisy(0.8, seed=1), "Random": noisy(0.4, seed=3)})
    json.dumps(generate_recommendations(long_table(), None, None, per_instance=per_case), allow_nan=False)
    assert canonical_method("COUNTERFACTUAL") == "DiCE" and canonical_method("random") == "Random"
    with pytest.raises(ValueError, match="unknown explanation method 'GradCAM'"):
        canonical_method("GradCAM")


def test_paired_statistics_building_blocks():
    d = paired_difference([1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 6, 7])
    assert d.mean == pytest.approx(1.0) and d.n == 8 and d.ci_low == pytest.approx(1.0)
    assert paired_difference([1, np.nan, 3], [0, 5, np.nan]).n == 1
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert np.isnan(holm([np.nan, 0.02])[0]) and holm([np.nan, 0.02])[1] == pytest.approx(0.02)


def test_parsimony_tie_break_when_the_score_leader_is_less_faithful_than_a_tied_method():
    # Persona ratings put LIME on top, but SHAP is clearly more faithful and tied on the score: the tie-break
    # may only choose among the methods as faithful as SHAP, and must not fail because LIME is not one of them.
    both = {"recommendations": {"weights": {"technical_fidelity": 0.3, "technical_parsimony": 0.2,
                                            "persona_trust": 0.3, "persona_satisfaction": 0.2}}}
    per_case = per_instance_table({"SHAP": noisy(0.85, 12, 0.01, 1), "LIME": noisy(0.70, 12, 0.01, 2),
                                   "Random": noisy(0.4, 12, 0.02, 3)},
                                  sizes={"SHAP": [3] * 12, "LIME": [6] * 12})
    ratings = case_ratings({("Officer", "SHAP"): [3, 4] * 6, ("Officer", "LIME"): [4, 4] * 6}, cases=12)
    entry = generate_recommendations(long_table(), ratings, both, per_instance=per_case,
                                     rater_kind="simulated")["stakeholders"]["Officer"]
    assert entry["lead"] == "close_call"
    assert entry["recommended_method"] == "SHAP"


def test_the_stated_weights_are_the_ones_the_score_uses():
    """Parsimony adds no points, so the other weights are stated as scaled to add up to 1 (0.3 -> 0.375)."""
    from hexeval_engine.recommend.wording import weights_text

    text = weights_text({"technical_fidelity": 0.3, "technical_parsimony": 0.2, "persona_trust": 0.3,
                         "persona_satisfaction": 0.2})
    assert text.startswith("fidelity 0.375, trust 0.375, satisfaction 0.25 (the configured 0.3, 0.3, 0.2 scaled")
    assert text.endswith("parsimony only breaks close calls")
