"""Acceptance, in a real browser at 390x844 and 1440x900: two participants take a study through
``study_app.py`` at the same time. Nothing is preselected as their role; the introduction gives the
number of explanations and the time; every item opens at its top with "Explanation j of m for case k of
n"; the prediction sentence is checked against the run's model on every item; one participant leaves
the what-if question blank (every answer stays, the question is named and in view), closes the tab,
resumes from the link and finishes. After the operator closes the study, the dashboard (served by
``app.py``) and the report say the recommendations rest on people's ratings, never "simulated" about
them, and show no participant id. Screenshots (light and dark) go to ``test-artifacts/study/``."""

from __future__ import annotations

import json
import re

import pytest

from app_helpers import app, open_page, texts
from browser_env import ARTIFACTS, browser_marks, settle
from local_server import streamlit_app, streamlit_server
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

from hexeval_engine.cli.main import main
from hexeval_engine.report.html import render_report
from hexeval_engine.runs import load_run
from hexeval_engine.study import create_study
from hexeval_engine.study.sources import load_sources

pytestmark = browser_marks()
SHOTS = ARTIFACTS / "study"
PIDS = re.compile(r"\bp[0-9]{1,4}\b")
VIEWS = [(390, 844), (1440, 900)]


def study_server(run_dir, log):
    """``study_app.py`` for ``run_dir`` on a free port (see ``local_server``); yields its URL once healthy."""
    return streamlit_server(log, script="study_app.py", env={"HEXEVAL_STUDY_RUN": str(run_dir)},
                            args=("--client.showSidebarNavigation", "false"))


def expected_prediction(run_dir) -> str:
    """The prediction sentence of the study's case, from the run's own model (the oracle: predict_proba here)."""
    study = json.loads((run_dir / "study/study.json").read_text())
    (iid,) = {int(i["instance_index"]) for i in study["items"]}
    manifest = json.loads((run_dir / "run.json").read_text())
    sources = load_sources(run_dir, manifest)
    p = float(sources.model.predict_proba(sources.data.X_test.iloc[[iid]])[0, 1])
    threshold = float(getattr(sources.model, "threshold", 0.5))
    domain = sources.config.domain
    outcome, of_it = (domain.positive_outcome, p) if p >= threshold else (domain.negative_outcome, 1 - p)
    return f"The system's prediction: {outcome}, with an estimated probability of {round(100 * of_it)}%.", outcome


def _shot(page, name: str) -> None:
    settle(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def _in_view(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= page.viewport_size["height"]


def _start(page, link: str, role: str, *, shot: str | None = None) -> None:
    page.set_default_timeout(120_000)  # a shared machine under load
    page.goto(link)
    page.get_by_role("button", name="Start").wait_for()
    page.get_by_text(re.compile(r"6 explanations in all\. It takes about \d+ minutes")).wait_for()
    if shot:
        _shot(page, shot)
    page.get_by_role("button", name="Start").click()  # no role is preselected: Start alone asks for one
    page.get_by_text("Choose your role").wait_for()
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name=role).click()
    page.get_by_role("button", name="Start").click()
    page.get_by_text("Explanation 1 of 6 for case 1 of 1").wait_for()


def _check_item(page, n: int, expected: tuple[str, str]) -> None:
    """Item ``n``: opens at its top, says where it is, and its prediction is the model's."""
    progress = page.get_by_text(re.compile(r"^Explanation \d of 6 for case 1 of 1$"))
    progress.wait_for()
    settle(page)
    assert _in_view(page, progress), f"item {n} does not open at its top"
    sentence, outcome = expected
    shown = page.get_by_text("The system's prediction:").inner_text().strip()
    assert shown == sentence, (shown, sentence)
    explanation = page.get_by_test_id("stAlertContentInfo").inner_text()
    percent = re.search(r"(\d+)%", sentence).group(0)
    if "The model predicts:" in explanation:  # the explanation's own first line agrees with the sentence
        assert f"The model predicts: {outcome} (probability {percent})" in explanation, explanation


def _rate(page, score: int, *, what_if: bool = True, comment: str = "") -> None:
    radios = page.get_by_test_id("stRadio")
    for i in range(6):
        radios.nth(i).locator("label").nth(score).click()  # label 0 is the question
    if comment:
        page.get_by_test_id("stTextArea").locator("textarea").fill(comment)
    if what_if:
        radios.nth(6).locator("label").nth(1).click()


def _wait_for_item(page, answered: int) -> None:
    """Wait until the page shows the item after ``answered`` saved answers (one case: explanation answered + 1)."""
    page.get_by_text(f"Explanation {answered + 1} of 6 for case 1 of 1").wait_for()


@pytest.mark.parametrize("width, height", VIEWS, ids=[f"{w}x{h}" for w, h in VIEWS])
def test_two_participants_answer_resume_and_the_run_shows_their_evidence_as_peoples(run_copy, tmp_path, chromium,
                                                                                  width, height):
    links = create_study(run_copy, cases=1, participants=3)
    expected = expected_prediction(run_copy)
    contexts = []
    tag = f"{width}"

    def new_page(scheme: str = "light"):
        contexts.append(chromium.new_context(viewport={"width": width, "height": height}, color_scheme=scheme))
        return contexts[-1].new_page()

    with study_server(run_copy, tmp_path / "server.log") as url:
        local = {p: link.replace("http://localhost:8502", url) for p, link in links.items()}
        stranger = new_page()
        stranger.set_default_timeout(120_000)
        stranger.goto(f"{url}/?token=guessed-token")
        stranger.get_by_text("This is not a valid study link.").wait_for()
        assert "Explanation" not in stranger.content() and stranger.get_by_test_id("stSidebarNav").count() == 0
        one, two = new_page(), new_page()
        _start(one, local["p1"], "Patient", shot=f"participant-intro-{tag}-light")
        _start(two, local["p2"], "Patient")
        _shot(one, f"participant-item-{tag}-light")
        for n in (1, 2):  # both at the same time, interleaved
            _check_item(one, n, expected)
            _rate(one, 4)
            one.get_by_role("button", name="Save and continue").click()
            _wait_for_item(one, n)
            _check_item(two, n, expected)
            if n == 2:  # p2 leaves the what-if question blank: nothing is lost, the question is named and in view
                _rate(two, 2, what_if=False, comment="kept while I finish")
                two.get_by_role("button", name="Save and continue").click()
                two.get_by_text("Still to answer: the what-if question.").wait_for()
                settle(two)
                marker = two.get_by_text("Please answer the what-if question above.")
                assert _in_view(two, marker), "the open question is not scrolled into view"
                assert two.locator("[data-testid='stRadio'] input:checked").count() == 6
                assert two.get_by_test_id("stTextArea").locator("textarea").input_value() == "kept while I finish"
                _shot(two, f"participant-missing-{tag}-light")
                two.get_by_test_id("stRadio").nth(6).locator("label").nth(1).click()
            else:
                _rate(two, 2)
            two.get_by_role("button", name="Save and continue").click()
            _wait_for_item(two, n)
        contexts[2].close()  # p2 closes the tab midway ...
        two = new_page()
        two.set_default_timeout(120_000)
        two.goto(local["p2"])  # ... and reopens the link: it resumes at its third explanation
        two.get_by_text("Explanation 3 of 6 for case 1 of 1").wait_for()
        for n in range(3, 7):
            for page, score in ((one, 4), (two, 2)):
                _check_item(page, n, expected)
                _rate(page, score)
                page.get_by_role("button", name="Save and continue").click()
                if n < 6:
                    _wait_for_item(page, n)
        for page in (one, two):
            page.get_by_text("Thank you: all your answers are saved.").wait_for()
        _shot(one, f"participant-done-{tag}-light")
        dark = new_page("dark")  # the third link, only looked at, in a dark theme
        _start(dark, local["p3"], "Patient", shot=f"participant-intro-{tag}-dark")
        _shot(dark, f"participant-item-{tag}-dark")
        dark.get_by_role("button", name="Save and continue").click()
        # nothing answered: all six ratings and the what-if question are named
        dark.get_by_text(re.compile("Still to answer: Interpretability, Completeness, .*Decision support and the what-if "
                                    "question")).wait_for()
        _shot(dark, f"participant-missing-{tag}-dark")
        for context in contexts:
            context.close()

    assert main(["study", "close", str(run_copy)]) == 0
    recommendations = json.loads((run_copy / "recommendations.json").read_text())
    assert recommendations["evidence"] == "people" and recommendations["picks"]["Patient"]["n_people"] == 2

    at = open_page(app(viewed_run=str(run_copy)), "app_pages/results.py")
    assert not at.exception, [e.value for e in at.exception]
    assert "it covers every answer so far" in texts(at)

    with streamlit_app(run_copy.parents[1], tmp_path / "app.log") as url:
        for scheme in ("light", "dark"):
            page = new_page(scheme)
            page.set_default_timeout(120_000)
            page.goto(url)
            _operator_pages(page, f"{tag}-{scheme}")
            page.context.close()

    html = render_report(load_run(run_copy))
    verdict = re.search(r"<p class='verdict'>(.*?)</p>", html).group(1)
    assert "the ratings are simulated" not in verdict and "ratings by 2 real people for the Patient, by simulated" in verdict
    assert "No real stakeholder and no LLM rated these explanations" not in html
    visible = re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", "", html, flags=re.S))
    assert not PIDS.search(visible), PIDS.search(visible)


def _sidebar(page) -> None:
    page.locator("[data-testid='stSidebarNav']:visible, [data-testid='stExpandSidebarButton']:visible").first.wait_for()
    if not page.get_by_test_id("stSidebarNav").is_visible():  # phone: the sidebar is collapsed behind its button
        page.get_by_test_id("stExpandSidebarButton").click()
        page.get_by_test_id("stSidebarNav").wait_for()
        page.wait_for_timeout(500)


def _close_sidebar_on_phone(page) -> None:
    if page.viewport_size["width"] < 600 and page.get_by_test_id("stSidebarCollapseButton").is_visible():
        page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
    settle(page)


def _main_text(page) -> str:
    return page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').innerText")


def _operator_pages(page, tag: str) -> None:
    """Results and Recommendations of the studied run: people's ratings named as such, no participant id."""
    _sidebar(page)
    # the picker holds a short label (use case and time); the run's full label, with "with a study", is under it
    option = page.get_by_role("option", name=re.compile(r"^Heart Disease · ")).first
    for _ in range(4):  # on a phone the sliding sidebar can swallow the first click
        page.get_by_test_id("stSidebar").get_by_role("combobox", name="Run being viewed").click()
        if option.is_visible() or (page.wait_for_timeout(1000) or option.is_visible()):
            break
    option.click()
    settle(page)
    page.get_by_test_id("stSidebar").get_by_text(re.compile(r"· with a study")).wait_for()
    for title in ("Results", "Recommendations"):
        _sidebar(page)
        page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
        page.get_by_role("heading", name=title, level=1).wait_for()
        _close_sidebar_on_phone(page)
        page.get_by_text("Ratings by 2 real people (study)").first.wait_for()
        settle(page)
        text = _main_text(page)
        assert not PIDS.search(text), PIDS.search(text)
        assert "not from an LLM or real people" not in text
        if title == "Results":
            page.get_by_role("tab", name="Real people (study)").wait_for()
            assert page.get_by_role("tab").first.inner_text().strip() == "Real people (study)"
        else:
            verdict = page.locator(".st-key-verdict_line").inner_text()
            assert "the ratings are simulated" not in verdict, verdict
            assert "ratings by 2 real people for the Patient, by simulated personas for the other" in verdict, verdict
            card = page.get_by_text(re.compile(r"^Rated by 2 real people in the role Patient · \d+ ratings$"))
            assert "simulated" not in card.inner_text()
        _shot(page, f"operator-{title.lower()}-{tag}")
