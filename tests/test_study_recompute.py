"""The study's evidence is recomputed when the operator asks, never on a participant's answer: the
participant's last answer only saves it; ``hexeval study status``/``close`` and the Results page's
"Recompute with the latest answers" button recompute, and say when and from how many answers."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from streamlit.testing.v1 import AppTest

from app_helpers import ROOT, app, button, open_page, texts
from hexeval_engine.cli.main import main
from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.study import create_study
from hexeval_engine.study.answers import next_item, open_link, save_answer, set_role
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

CALIBRATION = "study/calibration.json"
BUTTON = "Recompute with the latest answers"


def _token(link: str) -> str:
    return link.split("token=", 1)[1]


def _answer(run, token: str, *, leave: int = 0, score: int = 4) -> int:
    """Answer every item but the last ``leave`` through the engine; returns the number answered."""
    study, pid, record = open_link(run, token)
    if not record.get("role"):
        set_role(run, token, study["roles"][0])
    total, done = len(study["participants"][pid]["order"]), 0
    while True:
        study, pid, record = open_link(run, token)
        item = next_item(study, pid, record)
        if item is None or len(record["answers"]) >= total - leave:
            return done
        save_answer(run, token, item["item_id"], scores={d: score for d in DIMENSIONS}, comment="",
                    simulation_answer=item["what_if"]["answer"] if item.get("what_if") else None)
        done += 1


def test_a_participants_last_answer_only_saves_the_answer(run_copy, monkeypatch):
    links = create_study(run_copy, cases=1, participants=1)
    _answer(run_copy, _token(links["p1"]), leave=1)
    monkeypatch.setenv("HEXEVAL_STUDY_RUN", str(run_copy))
    at = AppTest.from_file(str(ROOT / "study_app.py"), default_timeout=120)
    at.query_params["token"] = _token(links["p1"])
    at.run()
    assert at.radio, "the last item's questions are shown"
    for radio in at.radio:
        radio.set_value(radio.options[-1])
    button(at, "Save and continue").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("all your answers are saved" in s.value for s in at.success)
    study = json.loads((run_copy / "study/study.json").read_text())
    answers = json.loads((run_copy / "study/answers/p1.json").read_text())["answers"]
    assert len(answers) == len(study["participants"]["p1"]["order"])  # the last answer is saved ...
    assert not (run_copy / CALIBRATION).exists() and not (run_copy / "human_ratings.csv").exists()  # ... nothing else


def test_results_page_recomputes_on_the_operators_button_and_says_what_it_covers(run_copy):
    links = create_study(run_copy, cases=1, participants=2)
    n = _answer(run_copy, _token(links["p1"]))
    at = open_page(app(viewed_run=str(run_copy)), "app_pages/results.py")
    assert any(h.value == "Real people: study answers and calibration" for h in at.subheader)
    assert f"The study has {n} ratings by 1 person; the calibration and the recommendations with human evidence " \
           "have not been computed yet." in texts(at)
    assert not [d for d in at.dataframe if "People among themselves (Krippendorff's α)" in d.value.columns]
    before = datetime.now(timezone.utc).replace(microsecond=0)
    button(at, BUTTON).click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    stored = json.loads((run_copy / CALIBRATION).read_text())["covers"]
    assert stored["n_ratings"] == n and stored["n_people"] == 1
    assert before <= datetime.fromisoformat(stored["computed_at"]) <= datetime.now(timezone.utc)
    shown = texts(at)
    when = datetime.fromisoformat(stored["computed_at"]).strftime("%Y-%m-%d %H:%M UTC")
    assert f"Calibration last computed {when} from {n} ratings by 1 person: it covers every answer so far." in shown
    assert [d for d in at.dataframe if "People among themselves (Krippendorff's α)" in d.value.columns]
    # a second participant answers: the page says the calibration is out of date until the operator recomputes
    m = _answer(run_copy, _token(links["p2"]), score=2)
    at = open_page(app(viewed_run=str(run_copy)), "app_pages/results.py")
    assert f"from {n} ratings by 1 person; the study now has {n + m} ratings by 2 people, so it is out of date." \
           in texts(at)
    assert json.loads((run_copy / CALIBRATION).read_text())["covers"]["n_people"] == 1
    button(at, BUTTON).click()
    at.run()
    assert json.loads((run_copy / CALIBRATION).read_text())["covers"]["n_ratings"] == n + m
    assert "2 people, " in texts(at) and "it covers every answer so far" in texts(at)
    recommendations = json.loads((run_copy / "recommendations.json").read_text())
    assert recommendations["evidence"] == "people"


def test_status_and_close_recompute_and_say_what_the_calibration_covers(run_copy, capsys):
    links = create_study(run_copy, cases=1, participants=2)
    n = _answer(run_copy, _token(links["p1"]))
    assert not (run_copy / CALIBRATION).exists()
    assert main(["study", "status", str(run_copy)]) == 0
    out = capsys.readouterr().out
    assert f"from {n} ratings by 1 person: it covers every answer so far." in out
    assert json.loads((run_copy / CALIBRATION).read_text())["covers"]["n_ratings"] == n
    m = _answer(run_copy, _token(links["p2"]))
    assert main(["study", "close", str(run_copy)]) == 0
    out = capsys.readouterr().out
    assert f"from {n + m} ratings by 2 people: it covers every answer so far." in out
    assert json.loads((run_copy / CALIBRATION).read_text())["covers"]["n_people"] == 2
