"""Stakeholder side of a recommendation: dimension weights, the narrative as a format, the Random gate's mark."""

from __future__ import annotations

import pandas as pd
import pytest
from recommendation_fixtures import DIMENSIONS, long_table, per_instance_table

from hexeval_engine.recommend.recommender import EXCLUDED_NOT_ABOVE_RANDOM, generate_recommendations

CASES = 12
EQUAL = {"SHAP": [0.7] * CASES, "DiCE": [0.7] * CASES, "Random": [0.3 + 0.01 * i for i in range(CASES)]}
NARRATIVES = {"source": "SHAP", "summary": {"simulated": {"recommendable": True, "reason": ""}}}


def ratings(per_method: dict[str, dict[str, float]], *, role: str = "Patient", rater: str = "openai") -> pd.DataFrame:
    """One rating per (method, case); ``per_method`` maps method -> {dimension: score} (others 3)."""
    rows = []
    for method, scores in per_method.items():
        for i in range(CASES):
            wobble = (i % 3) - 1  # a spread, the same for every method
            rows.append({"persona_name": f"{role} person", "persona_role": role, "explanation_type": method,
                         "instance_index": i, "run": 1, "rater": rater, "status": "ok", "comment": "",
                         **{d: min(5, max(1, scores.get(d, 3) + (wobble if d in scores else 0))) for d in DIMENSIONS}})
    return pd.DataFrame(rows)


#: DiCE is what a person can act on; SHAP is what a person trusts and likes.
SPLIT = {"DiCE": {"actionability": 5, "decision_support": 5, "trust": 2, "satisfaction": 2},
         "SHAP": {"actionability": 2, "decision_support": 2, "trust": 5, "satisfaction": 5}}
ACT = {"actionability": 0.5, "decision_support": 0.5}
TRUST = {"trust": 0.5, "satisfaction": 0.5}


@pytest.mark.parametrize("weights, expected", [(ACT, "DiCE"), (TRUST, "SHAP")])
def test_each_stakeholder_weighs_the_six_dimensions_by_its_own_weights(weights, expected):
    rec = generate_recommendations(long_table(), ratings(SPLIT), None, per_instance=per_instance_table(EQUAL),
                                   persona_weights={"Patient person": weights})
    card = rec["stakeholders"]["Patient"]
    assert card["recommended_method"] == expected
    assert card["weights"]["dimensions"]["actionability"] == pytest.approx(weights.get("actionability", 0))
    assert card["weights"]["technical"] + card["weights"]["stakeholder"] == pytest.approx(1)
    # the stakeholder score is the weighted mean on 0-1: DiCE under ACT = (5-1)/4 on both weighted dims
    dice = next(a for a in card["alternatives"] if a["method"] == "DiCE")
    assert dice["components"]["stakeholder_score"]["value"] == pytest.approx(1.0 if weights is ACT else 0.25, abs=0.1)


def test_new_shares_and_the_old_keys_with_a_note():
    per_case = per_instance_table(EQUAL)
    new = generate_recommendations(long_table(), ratings(SPLIT), {"recommendations": {"weights": {
        "technical": 1, "stakeholder": 3}}}, per_instance=per_case)
    assert new["stakeholders"]["Patient"]["weights"]["stakeholder"] == pytest.approx(0.75)
    assert not any("older keys" in n for n in new["notes"])
    old = generate_recommendations(long_table(), ratings(SPLIT), {"recommendations": {"weights": {
        "technical_fidelity": 0.5, "persona_trust": 0.25, "persona_satisfaction": 0.25}}}, per_instance=per_case)
    assert old["stakeholders"]["Patient"]["weights"]["stakeholder"] == pytest.approx(0.5)
    assert any("older keys technical_fidelity, persona_trust, persona_satisfaction" in n for n in old["notes"])


@pytest.mark.parametrize("narrative_trust, expected", [(5, "narrative"), (3, "plain"), (1, "plain")])
def test_the_narrative_is_a_format_of_its_source_not_a_rival(narrative_trust, expected):
    scores = {"SHAP": {"trust": 3, "satisfaction": 3}, "DiCE": {"trust": 2, "satisfaction": 2},
              "Narrative": {"trust": narrative_trust, "satisfaction": narrative_trust}}
    rec = generate_recommendations(long_table(), ratings(scores), None, per_instance=per_instance_table(EQUAL),
                                   narratives=NARRATIVES, persona_weights={"Patient person": TRUST})
    card = rec["stakeholders"]["Patient"]
    assert card["recommended_method"] == "SHAP"
    assert card["recommended_format"] == expected
    assert card["runner_up"] != "Narrative"
    assert "Narrative" not in {a["method"] for a in card["alternatives"]}
    assert "Narrative" not in rec["methods"]


def test_a_method_that_does_not_beat_random_is_marked_wherever_listed():
    fid = {"SHAP": [0.7 + 0.01 * (i % 3) for i in range(CASES)], "DiCE": [0.3 + 0.01 * i for i in range(CASES)],
           "Random": [0.3 + 0.01 * i for i in range(CASES)]}
    rec = generate_recommendations(long_table(), ratings(SPLIT), None, per_instance=per_instance_table(fid))
    card = rec["stakeholders"]["Patient"]
    status = {a["method"]: a["status"] for a in card["alternatives"]}
    assert (status["SHAP"], status["DiCE"], status["Random"]) == (None, EXCLUDED_NOT_ABOVE_RANDOM, None)
    assert status["Anchor"] is None  # no per-case values: not tested against Random, so not marked
    assert card["recommended_method"] == "SHAP"
    assert card["recommended_format"] == "plain"


def test_the_mark_reaches_the_heatmap_the_report_and_the_page_lists():
    from hexeval_engine.charts import score_heatmap
    from hexeval_engine.report.sections import recommendations_section
    from hexeval_ui.recommendations_view import alternatives_markdown, alternatives_table

    fid = {"SHAP": [0.7 + 0.01 * (i % 3) for i in range(CASES)], "DiCE": [0.3 + 0.01 * i for i in range(CASES)],
           "Random": [0.3 + 0.01 * i for i in range(CASES)]}
    rec = generate_recommendations(long_table(), ratings(SPLIT), None, per_instance=per_instance_table(fid))
    card = rec["stakeholders"]["Patient"]
    fig = score_heatmap(rec)
    cells = dict(zip(fig.data[0].x, fig.data[0].text[0]))
    assert cells["DiCE"].endswith("✕") and "★" in cells["SHAP"]
    assert EXCLUDED_NOT_ABOVE_RANDOM in recommendations_section(rec)
    assert f"**DiCE** — *{EXCLUDED_NOT_ABOVE_RANDOM}*" in alternatives_markdown(card, {})
    assert f"DiCE ({EXCLUDED_NOT_ABOVE_RANDOM})" in set(alternatives_table(card)["method"])
