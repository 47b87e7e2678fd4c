"""After a study, the operator's pages and the report say the recommendations rest on people's ratings:
no "simulated" about them, people counted by role and number, never named by their link's id; a role
with fewer people than the calibration needs is reported, not made a stakeholder; runs with a study are
marked where runs are listed; the Documentation page has the studies guide; a link can fix the role."""

from __future__ import annotations

import json
import re

import pytest

from app_helpers import app, open_page, texts
from hexeval_engine.cli.main import main
from hexeval_engine.errors import HexevalError
from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.report.html import render_report
from hexeval_engine.runs import load_run
from hexeval_engine.study import add_participants, close_study, create_study
from hexeval_engine.study.answers import AnswerError, next_item, open_link, save_answer, set_role
from hexeval_engine.study.evidence import refresh_evidence
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

PIDS = re.compile(r"\bp[0-9]{1,4}\b")


def _answer_all(run, link: str, *, role: str | None, leave: int = 0) -> None:
    token = link.split("token=", 1)[1]
    if role:
        set_role(run, token, role)
    while True:
        study, pid, record = open_link(run, token)
        item = next_item(study, pid, record)
        if item is None or len(record["answers"]) >= len(study["participants"][pid]["order"]) - leave:
            return
        save_answer(run, token, item["item_id"], scores={d: 2 for d in DIMENSIONS}, comment="",
                    simulation_answer=item["what_if"]["answer"])


@pytest.fixture
def studied(run_copy):
    """Two people as Patient (one stops early) and one who typed their own role and answered once; closed."""
    links = create_study(run_copy, cases=1, participants=3)
    _answer_all(run_copy, links["p1"], role="Patient")
    _answer_all(run_copy, links["p2"], role="Patient", leave=2)
    _answer_all(run_copy, links["p3"], role="General practitioner", leave=5)
    close_study(run_copy)
    refresh_evidence(run_copy)
    return run_copy


def test_recommendations_count_people_by_role_and_leave_out_roles_with_too_few(studied):
    recs = json.loads((studied / "recommendations.json").read_text())
    assert recs["evidence"] == "people"
    assert "General practitioner" not in recs["stakeholders"] and "General practitioner" not in recs["picks"]
    assert recs["people"]["too_few"] == {"General practitioner": 1} and recs["people"]["by_role"] == {"Patient": 2}
    patient = recs["stakeholders"]["Patient"]
    assert patient["evidence"] == "people" and patient["n_people"] == 2 and patient["persona_names"] == []
    others = [e for r, e in recs["stakeholders"].items() if r != "Patient"]
    assert others and all(e["evidence"] == "personas" for e in others)
    assert not PIDS.search(json.dumps(recs["stakeholders"]))


def test_pages_say_people_rated_and_never_show_a_participant_id(studied):
    for page in ("app_pages/recommendations.py", "app_pages/results.py"):
        at = open_page(app(viewed_run=str(studied)), page)
        assert not at.exception, [e.value for e in at.exception]
        shown = texts(at)
        verdicts = [m.value for m in at.markdown if m.value.startswith("**Verdict:**")]
        # people's ratings are people's; only the stakeholders no person answered for keep simulated personas
        assert all("the ratings are simulated" not in v and "ratings by 2 real people for the Patient, by simulated personas "
                   "for the other 3 stakeholders" in v for v in verdicts), verdicts
        assert "Ratings by 2 real people (study)" in shown
        assert "not from an LLM or real people" not in shown
        assert not PIDS.search(shown), PIDS.search(shown)
        if page.endswith("recommendations.py"):
            assert verdicts
            captions = [c.value for c in at.caption]
            assert "Rated by 2 real people in the role Patient · " in " ".join(captions)
            assert not any(c.startswith("Rated by") and "simulated" in c for c in captions)
            assert any("only 1 person" not in c and "no person answered as" in c for c in captions)
        else:
            assert at.tabs[0].label == "Real people (study)"
            assert "General practitioner: 1 person" in shown  # reported as too few, not as a stakeholder


def test_report_says_people_rated_and_never_shows_a_participant_id(studied):
    html = render_report(load_run(studied))
    assert "No real stakeholder and no LLM rated these explanations" not in html
    assert "Ratings by real people." in html
    verdict = re.search(r"<p class='verdict'>(.*?)</p>", html).group(1)
    assert "the ratings are simulated" not in verdict and "ratings by 2 real people for the Patient, by simulated" in verdict
    body = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    assert not PIDS.search(re.sub(r"<[^>]+>", " ", body)), PIDS.search(re.sub(r"<[^>]+>", " ", body))
    assert "Rated by 2 real people in the role Patient" in html


def test_runs_with_a_study_are_marked_in_listings_and_the_docs_have_the_guide(studied, capsys):
    assert main(["runs", "list", "--output", str(studied.parents[1])]) == 0
    assert "study closed · 3 people, " in capsys.readouterr().out
    from hexeval_ui.saved_runs_view import runs_table
    from hexeval_engine.runs.store import list_runs
    table = runs_table(list_runs(studied.parents[1], "heart"))
    assert table["Study"].str.startswith("study closed").tolist() == [True]
    at = open_page(app(), "app_pages/documentation.py")
    assert "Studies with people" in [t.label for t in at.tabs]


def test_a_link_can_fix_the_role_and_the_intro_is_the_operators(run_copy):
    with pytest.raises(HexevalError, match="4000"):
        create_study(run_copy, intro="x" * 5000)
    assert not (run_copy / "study").exists()
    links = create_study(run_copy, cases=1, participants=1, intro="Consent: you agree to take part.", role="Patient")
    more = add_participants(run_copy, 1)
    token = links["p1"].split("token=", 1)[1]
    with pytest.raises(AnswerError, match="role Patient"):
        set_role(run_copy, token, "Cardiologist")
    set_role(run_copy, token, "Patient")
    study, pid, record = open_link(run_copy, token)
    assert study["intro"] == "Consent: you agree to take part." and record["role"] == "Patient"
    assert "role" not in study["participants"]["p2"] and set(more) == {"p2"}


def _participant_page(run, token, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from app_helpers import ROOT
    monkeypatch.setenv("HEXEVAL_STUDY_RUN", str(run))
    at = AppTest.from_file(str(ROOT / "study_app.py"), default_timeout=120)
    at.query_params["token"] = token
    return at.run()


def test_the_participant_chooses_a_role_or_the_link_fixes_it(run_copy, monkeypatch):
    links = create_study(run_copy, cases=1, participants=1)
    fixed = add_participants(run_copy, 1, role="Patient")
    at = _participant_page(run_copy, links["p1"].split("token=", 1)[1], monkeypatch)
    assert at.selectbox[0].value is None  # nothing preselected
    assert "6 explanations in all. It takes about 9 minutes." in " ".join(i.value for i in at.info)
    next(b for b in at.button if b.label == "Start").click()
    at.run()
    assert any("Choose your role" in e.value for e in at.error)
    assert not (run_copy / "study/answers/p1.json").exists()  # Start without a choice records nothing
    at = _participant_page(run_copy, fixed["p2"].split("token=", 1)[1], monkeypatch)
    assert not at.selectbox and "**Your role in this study:** Patient" in [m.value for m in at.markdown]
    next(b for b in at.button if b.label == "Start").click()
    at.run()
    assert at.get("progress")[0].proto.text == "Explanation 1 of 6 for case 1 of 1"
    assert json.loads((run_copy / "study/answers/p2.json").read_text())["role"] == "Patient"


def test_cli_sets_the_intro_from_a_file_and_fixes_the_role(run_copy, tmp_path, capsys):
    assert main(["study", "create", str(run_copy), "--cases", "1", "--participants", "1",
                 "--intro", str(tmp_path / "missing.txt")]) != 0
    err = capsys.readouterr().err
    assert "missing.txt" in err and "cannot be read" in err and "Traceback" not in err
    intro = tmp_path / "consent.txt"
    intro.write_text("Information sheet v2.\nYou may stop at any time.", encoding="utf-8")
    assert main(["study", "create", str(run_copy), "--cases", "1", "--participants", "1", "--intro", str(intro),
                 "--role", "Patient"]) == 0
    study = json.loads((run_copy / "study/study.json").read_text())
    assert study["intro"] == "Information sheet v2.\nYou may stop at any time."
    assert study["participants"]["p1"]["role"] == "Patient"
