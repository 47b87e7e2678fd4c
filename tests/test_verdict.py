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
        "SHAP for the Cardiologist and the Administrator (1 clear lead, 1 close call); Anchor for the Patient (close call).")


def test_a_narrative_telling_is_named_plain_is_the_default_and_a_missing_pick_is_named():
    recs = _recs(_card("Patient", "SHAP", "single_candidate", recommended_format="narrative"),
                 _card("Analyst", "SHAP", "close_call", recommended_format="plain"),
                 _card("Officer", None, "none"))
    assert verdict_line(recs, simulated=False) == (
        "SHAP (told as a narrative) for the Patient (the only method left after the checks); SHAP for the Analyst "
        "(close call); no method qualified for the Officer.")


def test_no_stakeholders_and_technical_only_runs_still_give_a_sentence():
    assert verdict_line({}, simulated=False).startswith("No recommendation")
    line = verdict_line(_recs(_card("All stakeholders (equal weight on every question)", "LIME", "close_call"),
                              mode="technical_only"), simulated=True)
    assert line == ("LIME for All stakeholders (equal weight on every question) — close call; technical evidence only, "
                    "the same for everyone.")


def test_clear_lead_rule_names_every_condition_at_the_run_level():
    rule = clear_lead_rule(0.9)
    for condition in ("Holm-corrected p-value below 0.1", "90% interval", "above 0", "at least 8 shared cases",
                      "Ratings never make a lead"):
        assert condition in rule


def test_a_newcomer_reads_what_a_single_candidate_means_alone_and_in_a_mix():
    """Issue 36 item 12: "only candidates" meant nothing to a newcomer."""
    alone = verdict_line(_recs(_card("Patient", "DiCE", "single_candidate"), _card("Officer", "DiCE", "single_candidate")),
                         simulated=False)
    assert alone == "DiCE for both stakeholders — the only method left after the checks."
    mix = verdict_line(_recs(_card("A", "SHAP", "clear"), _card("B", "SHAP", "single_candidate"),
                             _card("C", "SHAP", "single_candidate")), simulated=False)
    assert mix == "SHAP for all 3 stakeholders — 1 clear lead, 2 where it was the only method left after the checks."
    assert "candidate" not in alone + mix


def test_the_roles_of_a_group_read_as_a_list_of_people_with_their_articles():
    """The earlier walk: "DiCE for Policy-focused Loan Officer, Compliance and Risk Officer, and Loan Applicant"
    read as a list of labels; a reader expects "for the Patient, the Clinician and the Auditor"."""
    recs = _recs(_card("Patient", "DiCE", "close_call"), _card("Clinician", "DiCE", "close_call"),
                 _card("Auditor", "DiCE", "close_call"), _card("Compliance and Risk Officer", "SHAP", "clear"))
    assert verdict_line(recs, simulated=False) == (
        "DiCE for the Patient, the Clinician and the Auditor (close calls); SHAP for the Compliance and Risk Officer "
        "(clear lead).")
    one = verdict_line(_recs(_card("Patient", "DiCE", "clear")), simulated=False)
    assert one == "DiCE for the Patient — clear lead."
