"""The report's calibration section: intervals, the real n, one sentence per role, participant text escaped."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.report.html import render_report
from hexeval_engine.runs import load_run
from hexeval_engine.study import create_study, import_ratings
from hexeval_engine.study.answers import open_link, next_item, save_answer, set_role
from hexeval_engine.study.evidence import refresh_evidence
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

SCRIPT = "<script>alert('x')</script>"
FORMULA = "=cmd|' /C calc'!A0"


def _answer_all(run, link: str, *, role: str, comment: str) -> None:
    token = link.split("token=", 1)[1]
    set_role(run, token, role)
    while True:
        study, pid, record = open_link(run, token)
        item = next_item(study, pid, record)
        if item is None:
            return
        save_answer(run, token, item["item_id"], scores={d: 4 for d in DIMENSIONS}, comment=comment,
                    simulation_answer=item["what_if"]["answer"])


def test_report_shows_the_calibration_with_intervals_and_escapes_participant_text(run_copy, tmp_path):
    links = create_study(run_copy, cases=4, participants=2)
    study = json.loads((run_copy / "study/study.json").read_text())
    _answer_all(run_copy, links["p1"], role=SCRIPT, comment=SCRIPT)
    _answer_all(run_copy, links["p2"], role=FORMULA, comment=FORMULA)
    rng = np.random.default_rng(3)
    rows = [{"participant_id": f"r{p}", "role": "Patient", "explanation_type": item["method"],
             "instance_index": item["instance_index"], **{d: int(rng.integers(1, 6)) for d in DIMENSIONS},
             "comment": "fine", "simulation_answer": item["what_if"]["answer"]}
            for p in range(3) for item in study["items"]]
    pd.DataFrame(rows).to_csv(tmp_path / "r.csv", index=False)
    import_ratings(run_copy, tmp_path / "r.csv")
    refresh_evidence(run_copy)
    html = render_report(load_run(run_copy))
    section = html[html.index("<section id='calibration'>"):]
    section = section[:section.index("</section>")]
    # participant text is text, never markup
    assert "<script>alert" not in html and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in section
    assert "=cmd|&#x27; /C calc&#x27;!A0" in section  # shown as typed (escaped), in the role heading and comment
    # the real n and intervals for the role with three people
    patient = section[section.index("<h3>Patient</h3>"):]
    assert f"3 people, {3 * len(study['items'])} ratings" in patient
    assert re.search(r"-?\d\.\d\d \[-?\d\.\d\d, -?\d\.\d\d\]", patient)
    assert "The personas agree with the 3 people in the role Patient" in patient
    assert "difference from Random" in patient and "12 pairs" in patient  # 3 people x 4 cases
    assert "does not apply" in section  # the judge checks, with the reason they do not apply to the simulator
    n_all = (2 + 3) * len(study["items"])  # two link participants and three imported respondents
    assert re.search(rf"Computed \d{{4}}-\d\d-\d\d \d\d:\d\d UTC from {n_all} ratings by 5 people", section)
    # the CSV spreadsheets open: no cell starts a formula
    humans = pd.read_csv(run_copy / "human_ratings.csv", dtype=str, keep_default_na=False)
    assert set(humans.loc[humans["participant_id"] == "p2", "role"]) == {"'" + FORMULA}
    assert set(humans.loc[humans["participant_id"] == "p2", "comment"]) == {"'" + FORMULA}
    assert not humans.map(lambda c: c[:1] in ("=", "+", "-", "@")).to_numpy().any()


def test_results_page_shows_what_if_answers_against_random_and_the_judge_checks(run_copy, tmp_path):
    from app_helpers import app, open_page, texts

    create_study(run_copy, cases=2, participants=1)
    study = json.loads((run_copy / "study/study.json").read_text())
    rows = [{"participant_id": f"r{p}", "role": "Patient", "explanation_type": item["method"],
             "instance_index": item["instance_index"], **{d: 3 for d in DIMENSIONS}, "comment": SCRIPT,
             "simulation_answer": item["what_if"]["answer"] if item["method"] == "SHAP" else ""}
            for p in range(2) for item in study["items"]]
    pd.DataFrame(rows).to_csv(tmp_path / "r.csv", index=False)
    import_ratings(run_copy, tmp_path / "r.csv")
    at = open_page(app(viewed_run=str(run_copy)), "app_pages/results.py")
    assert not at.exception
    table = next(d.value for d in at.dataframe if "People: difference from Random" in d.value.columns)
    shap = table.set_index("Explanation").loc["SHAP"]
    assert shap["People answering right"].startswith("100% of 4")
    assert shap["People: difference from Random"] == "–"  # nobody answered Random's what-if: nothing to pair
    shown = texts(at)
    assert "label-swap check does not apply" in shown and "Test-retest does not apply" in shown
