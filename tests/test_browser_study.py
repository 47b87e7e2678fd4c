"""Acceptance: two participants take a study at the same time through ``study_app.py`` in a real browser
(one closes the tab midway and resumes), a wrong token sees nothing, and once the operator recomputes
(Results, "Recompute with the latest answers", via AppTest) the run shows people's answers, the
calibration with intervals and a recommendation that uses them. Participants' answers only save answers."""

from __future__ import annotations

import json

import pandas as pd

from app_helpers import app, open_page, texts
from browser_env import browser_marks
from local_server import streamlit_server
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

from hexeval_engine.study import create_study

pytestmark = browser_marks()


def study_server(run_dir, log):
    """``study_app.py`` for ``run_dir`` on a free port (see ``local_server``); yields its URL once healthy."""
    return streamlit_server(log, script="study_app.py", env={"HEXEVAL_STUDY_RUN": str(run_dir)},
                            args=("--client.showSidebarNavigation", "false"))


def _start(page, link: str, role: str) -> None:
    page.set_default_timeout(120_000)  # a shared machine under load
    page.goto(link)
    page.get_by_role("button", name="Start").wait_for()
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=role).click()
    page.get_by_role("button", name="Start").click()
    page.get_by_text("Case 1 of").wait_for()


def _answer(page, case: int, total: int, score: str) -> None:
    page.get_by_text(f"Case {case} of {total}").wait_for()
    radios = page.get_by_test_id("stRadio")
    for i in range(radios.count()):
        radios.nth(i).locator("label").nth(int(score) if i < 6 else 1).click()  # label 0 is the question
    page.get_by_role("button", name="Save and continue").click()
    page.get_by_text(f"Case {case + 1} of {total}" if case < total else "Thank you").wait_for()


def test_two_participants_at_once_resume_and_the_run_shows_their_evidence(run_copy, tmp_path, chromium):
    links = create_study(run_copy, cases=1, participants=2)
    total = len(json.loads((run_copy / "study/study.json").read_text())["items"])
    contexts = []

    def new_page():
        contexts.append(chromium.new_context())
        return contexts[-1].new_page()

    with study_server(run_copy, tmp_path / "server.log") as url:
        stranger = new_page()
        stranger.goto(f"{url}/?token=guessed-token")
        stranger.get_by_text("This is not a valid study link.").wait_for()
        assert "Explanation" not in stranger.content() and stranger.get_by_test_id("stSidebarNav").count() == 0
        one = new_page()
        two = new_page()
        links_local = {p: link.replace("http://localhost:8502", url) for p, link in links.items()}
        _start(one, links_local["p1"], "Patient")
        _start(two, links_local["p2"], "Patient")
        half = total // 2
        for case in range(1, half + 1):  # both at the same time, interleaved
            _answer(one, case, total, "4")
            _answer(two, case, total, "2")
        contexts[-1].close()  # p2 closes the tab midway ...
        two = new_page()
        two.set_default_timeout(120_000)
        two.goto(links_local["p2"])  # ... and reopens the link: it resumes
        two.get_by_text(f"Case {half + 1} of {total}").wait_for()
        for case in range(half + 1, total + 1):
            _answer(one, case, total, "4")
            _answer(two, case, total, "2")
        for context in contexts:
            context.close()
    assert not (run_copy / "human_ratings.csv").exists()  # the answers are saved; nothing is recomputed for them
    at = open_page(app(viewed_run=str(run_copy)), "app_pages/results.py")
    assert f"The study has {2 * total} ratings by 2 people" in texts(at)
    next(b for b in at.button if b.label == "Recompute with the latest answers").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "it covers every answer so far" in texts(at)
    humans = pd.read_csv(run_copy / "human_ratings.csv")
    assert sorted(humans["participant_id"].value_counts().to_dict().items()) == [("p1", total), ("p2", total)]
    recommendations = json.loads((run_copy / "recommendations.json").read_text())
    assert recommendations["evidence"] == "people" and recommendations["picks"]["Patient"]["n_people"] == 2
    shown = texts(at)
    assert any(h.value == "Real people: study answers and calibration" for h in at.header) and "2 people, " in shown
    table = next(d.value for d in at.dataframe if "People among themselves (Krippendorff's α)" in d.value.columns)
    assert table.notna().all().all()
    picks = next(d.value for d in at.dataframe if "People's pick" in d.value.columns).set_index("Stakeholder")
    assert picks.loc["Patient", "People"] == 2
