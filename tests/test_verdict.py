"""The verdict line names each stakeholder's pick and its strength; the clear-lead rule lists every condition."""

from __future__ import annotations

from hexeval_engine.recommend.verdict import clear_lead_rule, verdict_line


def _recs(*cards, mode="combined"):
    return {"mode": mode, "stakeholders": {c["title"]: c for c in cards}}


def _card(title, method, lead, **extra):
    return {"title": title, "recommended_method": method, "lead": lead, **extra}


def test_one_method_for_everyone_is_said_once_with_the_count():
    recs = _recs(*(_card(t, "SHAP", "close_call") for t in ("A", "B", "C", "D")))
    assert verdict_line(recs, simulated=True) == "SHAP for all 4 stakeholders — close calls; the ratings are simulated."


def test_different_picks_name_their_stakeholders_and_strengths():
    recs = _recs(_card("Cardiologist", "SHAP", "clear"), _card("Patient", "Anchor", "close_call"),
                 _card("Administrator", "SHAP", "close_call"))
    assert verdict_line(recs, simulated=False) == (
        "SHAP for Cardiologist and Administrator (1 clear lead, 1 close call); Anchor for Patient (close call).")


def test_a_narrative_telling_is_named_plain_is_the_default_and_a_missing_pick_is_named():
    recs = _recs(_card("Patient", "SHAP", "single_candidate", recommended_format="narrative"),
                 _card("Analyst", "SHAP", "close_call", recommended_format="plain"),
                 _card("Officer", None, "none"))
    assert verdict_line(recs, simulated=False) == (
        "SHAP (told as a narrative) for Patient (only candidate); SHAP for Analyst (close call); "
        "no method qualified for Officer.")


def test_no_stakeholders_and_technical_only_runs_still_give_a_sentence():
    assert verdict_line({}, simulated=False).startswith("No recommendation")
    line = verdict_line(_recs(_card("Everyone", "LIME", "close_call"), mode="technical_only"), simulated=True)
    assert line == "LIME for Everyone — close call; technical evidence only, the same for everyone."


def test_clear_lead_rule_names_every_condition_at_the_run_level():
    rule = clear_lead_rule(0.9)
    for condition in ("Holm-corrected p-value below 0.1", "90% interval", "above 0", "at least 8 shared cases",
                      "Ratings never make a lead"):
        assert condition in rule
