"""Results › Add to this run › Add people's ratings (issue 34): a study is set up from the dashboard and its links
shown once; the CSV template downloads; a filled-in template is imported and the study tab appears with people's
ratings; a file with a bad row changes nothing and names the row and the fix."""

from __future__ import annotations

import io
import re

import pandas as pd

from app_helpers import app, button, open_page, texts
from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.study.human_table import TEMPLATE_COLUMNS
from hexeval_engine.study.storage import read_study
from hexeval_engine.study.tokens import token_hash
from study_fixtures import file_hashes, run_copy, saved_run  # noqa: F401  (fixtures)


def _results(run):
    at = app(usecase="heart", viewed_run=str(run))
    return open_page(at, "app_pages/results.py")


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_a_study_is_created_from_a_loaded_run_and_its_links_work(run_copy):
    at = _results(run_copy)
    _ok(at)
    assert "Add people's ratings" in texts(at)
    at.number_input(key="people_cases").set_value(2)
    at.number_input(key="people_n").set_value(3)
    at.selectbox(key="people_role").set_value("Patient")
    button(at, "Create the study").click().run()
    _ok(at)
    links = [line for block in at.code for line in block.value.splitlines() if "token=" in line]
    assert len(links) == 3
    study = read_study(run_copy)
    assert len({item["instance_index"] for item in study["items"]}) == 2
    tokens = [re.search(r"token=([^&\s]+)", link).group(1) for link in links]
    stored = {p["token_sha256"] for p in study["participants"].values()}
    assert {token_hash(t) for t in tokens} == stored  # the links shown are the participants' links
    assert all(p.get("role") == "Patient" for p in study["participants"].values()), study["participants"]
    assert "Copy them now" in " ".join(s.value for s in at.success)
    button(at, "I have copied the links").click().run()
    assert not [line for block in at.code for line in block.value.splitlines() if "token=" in line]
    assert "participant link" in texts(at) and "0 ratings" in texts(at)


def _filled_template(study: dict) -> bytes:
    rows = [{"participant_id": f"r{p}", "role": "Patient", "explanation_type": item["method"],
             "instance_index": item["instance_index"], **dict(zip(DIMENSIONS, (4, 3, 2, 3, 4, 5))),
             "comment": "clear enough",
             "simulation_answer": ""} for p in (1, 2) for item in study["items"]]
    frame = pd.DataFrame(rows)
    return frame.to_csv(index=False).encode("utf-8")


def test_people_ratings_are_imported_from_the_template_and_shown_as_people(run_copy):
    at = _results(run_copy)
    at.number_input(key="people_cases").set_value(2)
    button(at, "Create the study").click().run()
    button(at, "I have copied the links").click().run()
    _ok(at)
    assert "Download the CSV template" in [b.label for b in at.get("download_button")]
    study = read_study(run_copy)
    columns = pd.read_csv(io.StringIO(_filled_template(study).decode())).columns
    assert set(TEMPLATE_COLUMNS) <= set(columns)  # the oracle rows carry every column the template has
    at.file_uploader(key="people_csv").set_value(("ratings.csv", _filled_template(study), "text/csv")).run()
    button(at, "Import the ratings").click().run()
    _ok(at)
    n = 2 * len(study["items"])
    assert f"Imported {n} ratings" in " ".join(s.value for s in at.success)
    assert "Real people (study)" in [t.label for t in at.tabs]
    assert len(read_study(run_copy)["imported"]) == n


def test_a_template_with_a_bad_row_changes_nothing_and_names_the_row(run_copy):
    at = _results(run_copy)
    button(at, "Create the study").click().run()
    button(at, "I have copied the links").click().run()
    study = read_study(run_copy)
    frame = pd.read_csv(io.StringIO(_filled_template(study).decode()))
    frame.loc[2, "trust"] = 9
    before = file_hashes(run_copy)
    at.file_uploader(key="people_csv").set_value(("ratings.csv", frame.to_csv(index=False).encode(), "text/csv")).run()
    button(at, "Import the ratings").click().run()
    assert not at.exception, [e.value for e in at.exception]
    message = " ".join(e.value for e in at.error)
    assert "nothing was changed" in message and "row 4" in message and "trust" in message and "9" in message
    assert file_hashes(run_copy) == before
