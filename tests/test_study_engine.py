"""Studies on a real saved run: links, blinding, resume, what-ifs, import, calibration, recommendations."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from hexeval_engine import get_usecase, load_model
from hexeval_engine.cli.main import main
from hexeval_engine.data.usecase_data import load_data_for_config
from hexeval_engine.config import load_config
from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.runs import load_run
from hexeval_engine.study import ImportProblems, calibration, close_study, create_study, import_ratings, template
from hexeval_engine.study.answers import InvalidLink, next_item, open_link, save_answer, set_role, shown_item
from hexeval_engine.study.human_table import COLUMNS
from study_fixtures import file_hashes, run_copy, saved_run  # noqa: F401  (fixtures)


def _token(link: str) -> str:
    return link.split("token=", 1)[1]


def test_links_are_hashed_blinded_and_resume(run_copy):
    links = create_study(run_copy, cases=3, participants=2)
    text = (run_copy / "study/study.json").read_text()
    assert len(links) == 2 and all(_token(link) not in text for link in links.values())
    with pytest.raises(InvalidLink):
        open_link(run_copy, "not-a-token")
    t1, t2 = (_token(links[p]) for p in ("p1", "p2"))
    study, pid, record = open_link(run_copy, t1)
    assert pid == "p1" and study["participants"]["p1"]["order"] != study["participants"]["p2"]["order"]
    set_role(run_copy, t1, "Patient")
    study, _, record = open_link(run_copy, t1)
    first = next_item(study, "p1", record)
    view = shown_item(study, "p1", record, first)
    assert first["method"] not in json.dumps(view) or first["method"] in view["text"]
    assert "answer" not in json.dumps(view) and view["label"].startswith("Explanation ")
    save_answer(run_copy, t1, first["item_id"], scores={d: 3 for d in DIMENSIONS}, comment="ok", simulation_answer=1)
    study, _, record = open_link(run_copy, t1)  # "reopening the link"
    assert next_item(study, "p1", record)["item_id"] != first["item_id"] and len(record["answers"]) == 1
    close_study(run_copy)
    with pytest.raises(InvalidLink):
        open_link(run_copy, t1)


def test_what_ifs_are_decided_by_the_model_and_about_half_change(run_copy):
    create_study(run_copy, cases=8, participants=1)
    study = json.loads((run_copy / "study/study.json").read_text())
    uc = get_usecase("heart")
    data = load_data_for_config(uc.data_path, load_config(uc.config_path))
    model = load_model(uc.model_path)
    per_case = {i["instance_index"]: i["what_if"] for i in study["items"]}
    changes = 0
    for iid, wi in per_case.items():
        row = data.X_test.iloc[[iid]].copy()
        before = int(model.predict(row)[0])
        row[wi["feature"]] = wi["value"]
        assert int(model.predict(row)[0]) == wi["answer"]
        changes += int(model.predict(row)[0]) != before
    assert 3 <= changes <= 5, changes


def _import_rows(study, favour: str, role: str, people: int) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for p in range(people):
        for item in study["items"]:
            high = item["method"] == favour
            scores = {d: int(rng.integers(4, 6)) if high else int(rng.integers(1, 3)) for d in DIMENSIONS}
            rows.append({"participant_id": f"r{p}", "role": role, "explanation_type": item["method"],
                         "instance_index": item["instance_index"], **scores, "comment": "=HYPERLINK(\"x\")",
                         "simulation_answer": item["what_if"]["answer"]})
    return pd.DataFrame(rows)


def test_human_ratings_make_a_clear_lead_whatever_the_personas_said(run_copy, tmp_path):
    before = file_hashes(run_copy)
    simulated = json.loads((run_copy / "recommendations.json").read_text())
    persona_pick = simulated["stakeholders"]["Patient"]["recommended_method"]
    favour = next(m for m in ("Anchor", "LIME", "SHAP") if m != persona_pick
                  and simulated["technical"][m]["vs_baseline"].get("qualifies"))
    create_study(run_copy, cases=6, participants=1)
    study = json.loads((run_copy / "study/study.json").read_text())
    path = tmp_path / "ratings.csv"
    _import_rows(study, favour, "Patient", people=3).to_csv(path, index=False)
    assert import_ratings(run_copy, path) == 3 * len(study["items"])
    run = load_run(run_copy)
    patient = run.recommendations["stakeholders"]["Patient"]
    assert patient["recommended_method"] == favour and patient["lead"] == "clear"
    assert run.recommendations["picks"]["Patient"] == {**run.recommendations["picks"]["Patient"], "n_people": 3,
                                                       "personas_pick": persona_pick, "people_pick": favour}
    assert json.loads((run_copy / "recommendations_simulated.json").read_text()) == simulated
    humans = pd.read_csv(run_copy / "human_ratings.csv")
    assert tuple(humans.columns) == COLUMNS and humans["simulation_correct"].all()
    assert humans["comment"].str.startswith("'=").all()  # no formula for a spreadsheet
    manifest = json.loads((run_copy / "run.json").read_text())
    amended = {f for a in manifest["amendments"] for f in a["files"]}
    after = file_hashes(run_copy)
    assert {f: h for f, h in before.items() if f not in amended and f != "run.json"} == \
           {f: after[f] for f in before if f not in amended and f != "run.json"}
    last = {}
    for a in manifest["amendments"]:
        last.update(a["files"])
    assert all(after[f] == h for f, h in last.items())  # every amended file is recorded with its final bytes


def test_calibration_of_people_who_rate_like_the_personas(run_copy, tmp_path):
    create_study(run_copy, cases=6, participants=1)
    study = json.loads((run_copy / "study/study.json").read_text())
    ratings = load_run(run_copy).persona_ratings
    patient = ratings[(ratings["persona_role"] == "Patient") & (ratings["status"] == "ok")]
    shown = {(i["instance_index"], i["method"]) for i in study["items"]}
    rows = []
    for person in ("r1", "r2"):
        for _, r in patient.iterrows():
            if (r["instance_index"], r["explanation_type"]) in shown:
                rows.append({"participant_id": person, "role": "Patient", "explanation_type": r["explanation_type"],
                             "instance_index": r["instance_index"], **{d: int(r[d]) for d in DIMENSIONS},
                             "comment": "", "simulation_answer": ""})
    pd.DataFrame(rows).to_csv(tmp_path / "same.csv", index=False)
    import_ratings(run_copy, tmp_path / "same.csv")
    block = calibration(run_copy)["roles"]["Patient"]
    assert block["n_people"] == 2 and block["n_ratings"] == len(rows)
    measured = [block["dimensions"][d] for d in DIMENSIONS if block["dimensions"][d]["spearman"]["value"] is not None]
    assert measured and all(m["spearman"]["value"] == pytest.approx(1.0) for m in measured)
    assert all(m["alpha_humans"]["value"] == pytest.approx(1.0) for m in measured)
    assert "about as well as" in block["sentence"]


def test_malformed_import_names_every_problem_and_changes_nothing(run_copy, tmp_path):
    create_study(run_copy, cases=2, participants=1)
    before = file_hashes(run_copy)
    study = json.loads((run_copy / "study/study.json").read_text())
    item = study["items"][0]
    good = {"participant_id": "r1", "role": study["roles"][0], "explanation_type": item["method"],
            "instance_index": item["instance_index"], **{d: 3 for d in DIMENSIONS}, "comment": "", "simulation_answer": 1}
    bad = pd.DataFrame([{**good, "explanation_type": "Explanation Q"}, {**good, "trust": 7},
                        {**good, "role": "Astronaut"}, {**good, "participant_id": "p1"}, {**good, "participant_id": "P7"}])
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ImportProblems) as err:
        import_ratings(run_copy, tmp_path / "bad.csv")
    problems = err.value.problems
    assert len(problems) == 5
    assert "row 2, column explanation_type: 'Explanation Q'" in problems[0]
    assert "row 3, column trust: '7'" in problems[1] and "row 4, column role: 'Astronaut'" in problems[2]
    # ids of the study's links (present p1, or a future one: p7) would merge imported answers with a link's
    assert "row 5, column participant_id: 'p1' is an id of this study's participant links" in problems[3]
    assert "rename it, e.g. r1" in problems[3]
    assert "row 6, column participant_id: 'P7' has the form of an id" in problems[4]
    bad.drop(columns=["comment"]).to_csv(tmp_path / "missing.csv", index=False)
    with pytest.raises(ImportProblems, match="column 'comment' is missing"):
        import_ratings(run_copy, tmp_path / "missing.csv")
    assert file_hashes(run_copy) == before
    assert template(run_copy).splitlines()[0].split(",") == list(COLUMNS[:-1])


def test_cli_create_status_and_failed_import(run_copy, tmp_path, capsys):
    assert main(["study", "create", str(run_copy), "--cases", "2", "--participants", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("?token=") == 2
    assert main(["study", "status", str(run_copy)]) == 0
    assert "p1: 0 of" in capsys.readouterr().out
    (tmp_path / "bad.csv").write_text("participant_id\nr1\n")
    assert main(["study", "import", str(run_copy), str(tmp_path / "bad.csv")]) == 1
    err = capsys.readouterr().err
    assert "nothing was changed" in err and "column 'role' is missing" in err and "Traceback" not in err
