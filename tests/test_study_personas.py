"""The personas' side of a study: what-if answers (simulated readers, LLM personas through the fake
OpenAI-compatible server, hostile replies included), paired against Random, and the label-swap check."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from hexeval_engine import evaluate, get_usecase, load_model
from hexeval_engine.config import load_config
from hexeval_engine.data.usecase_data import load_data_for_config
from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.study import calibration, create_study, import_ratings
from llm_server import Behaviour, FakeLLMServer, deterministic_rating
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

SENTINEL = "sk-STUDY-SENTINEL-4b1d-never-save-me"
TOP_K = 5  # personas.top_k_features of the heart config


def _heart():
    uc = get_usecase("heart")
    return load_data_for_config(uc.data_path, load_config(uc.config_path)), load_model(uc.model_path)


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _expected_reader_answer(record: dict, feature: str, old, new) -> int:
    """The documented reading procedure (docs/studies.md, metrics/readers.py docstring), written out
    for a single-feature change from the explanation record alone."""
    c = int(record["predicted_class"])
    if record.get("attributions") is not None:
        weights = {f: float(w) for f, w in record["attributions"].items() if float(w) != 0.0}
        shown = sorted(weights, key=lambda f: -abs(weights[f]))[:TOP_K]
        if feature not in shown:
            return c
        assert (record.get("extra") or {}).get("output") != "log-odds"  # heart's SHAP is in probability units
        return c if float(record["probability"]) - 0.5 - weights[feature] >= 0 else 1 - c
    if record.get("rule") is not None:
        for cond in record["rule"]["conditions"]:
            if cond["feature"] != feature:
                continue
            a, b = _num(new), _num(cond["value"])
            holds = {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[cond["op"]]
            if not holds:
                return -1
        return c
    for cf in (record.get("counterfactuals") or [])[:TOP_K]:
        changes = cf["changes"]
        if set(changes) == {feature}:
            a, b = (_num(x) for x in changes[feature])
            if a is not None and b is not None and _num(new) is not None:
                step = b - a
                if step != 0 and (_num(new) - a) * np.sign(step) >= abs(step) - 1e-9:
                    return 1 - c
            elif str(new) == str(changes[feature][1]):
                return 1 - c
    return c


def test_simulated_personas_answer_through_one_reader_per_family(run_copy):
    create_study(run_copy, cases=8, participants=1)
    study = json.loads((run_copy / "study/study.json").read_text())
    answers = pd.read_csv(run_copy / "study/persona_answers.csv", keep_default_na=False)
    records = {(r["method"], int(r["instance_id"])): r for r in map(json.loads, open(run_copy / "explanations.jsonl"))}
    data, model = _heart()
    assert len(answers) == len(study["items"]) and set(answers["status"]) == {"ok"}
    abstained = 0
    for item in study["items"]:
        wi = item["what_if"]
        row = answers[(answers["instance_index"] == item["instance_index"])
                      & (answers["explanation_type"] == item["method"])].iloc[0]
        record = records[(item["method"], item["instance_index"])]
        if item["method"] == "Narrative":  # a narrative retells its source explanation
            record = records[(record["extra"]["source_method"], item["instance_index"])]
        old = data.X_test.iloc[item["instance_index"]][wi["feature"]]
        expected = _expected_reader_answer(record, wi["feature"], old, wi["value"])
        assert int(row["simulation_answer"]) == expected, (item["method"], wi)
        changed = data.X_test.iloc[[item["instance_index"]]].copy()
        changed[wi["feature"]] = wi["value"]
        truth = int(model.predict(changed)[0])  # the oracle: the model itself
        if expected == -1:
            abstained += 1
            assert row["simulation_correct"] == ""
        else:
            assert str(row["simulation_correct"]) == str(expected == truth)
    # the study's what-ifs hit every family: attributions, a rule and counterfactuals were all read
    assert {"SHAP", "LIME", "Anchor", "DiCE", "Random", "Narrative"} <= set(answers["explanation_type"])
    label_swap = json.loads((run_copy / "study/label_swap.json").read_text())
    assert label_swap["applies"] is False and "simulator" in label_swap["note"]


def _people_rows(study, *, right: set[str], people=3) -> pd.DataFrame:
    """People who answer every what-if right for the methods in ``right`` and wrong for the others."""
    rows = []
    for p in range(people):
        for item in study["items"]:
            answer = item["what_if"]["answer"] if item["method"] in right else 1 - item["what_if"]["answer"]
            rows.append({"participant_id": f"r{p}", "role": "Patient", "explanation_type": item["method"],
                         "instance_index": item["instance_index"], **{d: 3 for d in DIMENSIONS}, "comment": "",
                         "simulation_answer": answer})
    return pd.DataFrame(rows)


def test_what_if_accuracy_is_paired_against_random_per_method_and_role(run_copy, tmp_path, capsys):
    create_study(run_copy, cases=6, participants=1)
    study = json.loads((run_copy / "study/study.json").read_text())
    _people_rows(study, right={"SHAP"}).to_csv(tmp_path / "r.csv", index=False)
    import_ratings(run_copy, tmp_path / "r.csv")
    block = calibration(run_copy)["roles"]["Patient"]["forward_accuracy"]
    # people: SHAP always right, Random always wrong -> +1 on each of 3 people x 6 cases
    assert block["people"]["SHAP"]["value"] == 1.0 and block["people"]["Random"]["value"] == 0.0
    assert block["people_vs_random"]["SHAP"] == {"value": 1.0, "ci_low": 1.0, "ci_high": 1.0, "n": 18}
    assert block["people_vs_random"]["LIME"]["value"] == 0.0 and block["people_vs_random"]["LIME"]["n"] == 18
    assert "Random" not in block["people_vs_random"]
    # personas: the stored reader answers, scored by hand (abstention = 0.5), paired on the same cases
    answers = pd.read_csv(run_copy / "study/persona_answers.csv", keep_default_na=False)
    score = answers["simulation_correct"].map({"True": 1.0, "False": 0.0, "": 0.5})
    by = dict(zip(zip(answers["explanation_type"], answers["instance_index"]), score))
    cases = sorted({i["instance_index"] for i in study["items"]})
    diffs = [by[("LIME", c)] - by[("Random", c)] for c in cases]
    assert block["personas_vs_random"]["LIME"]["value"] == pytest.approx(np.mean(diffs))
    assert block["personas_vs_random"]["LIME"]["n"] == len(cases)
    assert block["personas"]["Anchor"]["n"] == len(cases)
    sentence = calibration(run_copy)["roles"]["Patient"]["forward_sentence"]
    assert sentence.startswith("People in the role Patient anticipated the model better than with the Random "
                               "explanation with SHAP (+1.00 [+1.00, +1.00], 18 pairs);")
    from hexeval_engine.cli.main import main

    assert main(["study", "status", str(run_copy)]) == 0
    out = capsys.readouterr().out
    assert "What-if answers against the Random explanation" in out and "SHAP" in out and "+1.00" in out


# -- LLM personas through the fake OpenAI-compatible server ----------------------------------------------

def _options(text: str) -> list[str]:
    block = text.split("Options:\n", 1)[1].split("\n\n", 1)[0]
    return [line[2:] for line in block.splitlines() if line.startswith("- ")]


class Responder:
    """The fake server's answers: what-ifs answered with the first option (or a non-option for one
    persona); ratings that ignore the label (``biased=False``) or depend on it (``biased=True``)."""

    def __init__(self):
        self.biased = False
        self.off_list_persona = None

    def __call__(self, body, text):
        if "Options:\n" in text:
            if self.off_list_persona and f"You are {self.off_list_persona}" in text:
                return {"answer": "Probably somewhere in between"}
            return {"answer": _options(text)[0]}
        return deterministic_rating(text if self.biased else re.sub(r"Explanation [A-F]", "Explanation", text))


@pytest.fixture(scope="module")
def llm_run(tmp_path_factory):
    responder = Responder()
    with FakeLLMServer(responder=responder) as server, pytest.MonkeyPatch.context() as mp:
        root = tmp_path_factory.mktemp("llm_study")
        mp.setenv("OPENAI_API_KEY", SENTINEL)
        mp.setenv("HEXEVAL_LLM_BASE_URLS", server.url)
        mp.setenv("HEXEVAL_OUTPUTS", str(root / "outputs"))
        result = evaluate(usecase="heart", output_dir=root / "runs", config_overrides={
            "evaluation": {"sample_size": 3},
            "personas": {"rater": "openai", "base_url": server.url, "llm_model": "test-model",
                         "sample_instances": 3, "include": ["Dr. Sam Okafor", "Jordan Whitfield"]}})
        yield server, responder, result.output_path


def _llm_copy(llm_run, tmp_path, monkeypatch):
    server, responder, source = llm_run
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    monkeypatch.setenv("HEXEVAL_LLM_BASE_URLS", server.url)
    target = tmp_path / "outputs" / "heart" / source.name
    shutil.copytree(source, target)
    server.reset()
    return server, responder, target


def test_llm_personas_answer_the_what_ifs_and_hostile_replies_stay_failures(llm_run, tmp_path, monkeypatch):
    server, responder, run = _llm_copy(llm_run, tmp_path, monkeypatch)
    responder.off_list_persona = "Jordan Whitfield"
    server.add(Behaviour("malformed", match="You are Dr. Sam Okafor", times=1))
    server.add(Behaviour("echo_key_everywhere", match="You are Dr. Sam Okafor", times=1))
    try:
        create_study(run, cases=3, participants=1)
    finally:
        responder.off_list_persona = None
    study = json.loads((run / "study/study.json").read_text())
    answers = pd.read_csv(run / "study/persona_answers.csv", keep_default_na=False)
    asked = [r for r in server.completion_requests() if "Options:\n" in r.text]
    assert len(asked) == len(answers) == 2 * len(study["items"])  # two personas x every item, one request each
    assert all(r.headers["authorization"] == f"Bearer {SENTINEL}" for r in asked)
    okafor = answers[answers["persona_name"] == "Dr. Sam Okafor"]
    jordan = answers[answers["persona_name"] == "Jordan Whitfield"]
    # Jordan's answers name no option: each one a failure with its reason, none invented
    assert set(jordan["status"]) == {"failed"} and set(jordan["simulation_answer"]) == {""}
    assert jordan["error"].str.contains("not one of the two options").all()
    # Okafor: one malformed reply and one that echoes the key are failures; the rest answered option 0
    failed = okafor[okafor["status"] == "failed"]
    assert len(failed) == 2 and failed["error"].str.contains("unusable answer").all()
    good = okafor[okafor["status"] == "ok"]
    truth = {i["instance_index"]: i["what_if"]["answer"] for i in study["items"]}
    assert set(good["simulation_answer"]) == {"0"}
    assert all(row["simulation_correct"] == str(truth[row["instance_index"]] == 0) for _, row in good.iterrows())
    assert not any(SENTINEL in p.read_text(errors="ignore") for p in run.rglob("*") if p.is_file())
    # the label swap of a judge that ignores the label: every re-rated item keeps its scores
    swap = json.loads((run / "study/label_swap.json").read_text())
    assert swap["applies"] and swap["measured"] and swap["share_identical_items"] == 1.0
    assert swap["n_items"] == 2 * len(study["items"])
    assert all(e["mean_difference"] == 0 for e in swap["dimensions"].values())
    assert all(v["shown"] != v["swapped"] for v in swap["labels"].values())


def test_label_swap_catches_a_judge_that_reads_the_label(llm_run, tmp_path, monkeypatch):
    server, responder, run = _llm_copy(llm_run, tmp_path, monkeypatch)
    responder.biased = True
    try:
        create_study(run, cases=3, participants=1)
    finally:
        responder.biased = False
    swap = json.loads((run / "study/label_swap.json").read_text())
    assert swap["measured"] and swap["share_identical_items"] < 0.5
    assert any(e["mean_abs_difference"] > 0.5 for e in swap["dimensions"].values())
    study = json.loads((run / "study/study.json").read_text())
    role = study["roles"][0]
    _people_rows(study, right={"SHAP"}, people=2).assign(role=role).to_csv(tmp_path / "r.csv", index=False)
    import_ratings(run, tmp_path / "r.csv")
    cal = calibration(run)
    checks = cal["judge_checks"]
    assert "identical scores" in checks["label_swap_text"] and "Test-retest" in checks["test_retest_text"]
    personas = cal["roles"][role]["forward_accuracy"]["personas_vs_random"]  # the LLM personas of that role, paired
    assert set(personas) == {"SHAP", "LIME", "Anchor", "DiCE", "Narrative"} and {e["n"] for e in personas.values()} == {3}


def test_an_llm_that_rejects_the_key_leaves_every_persona_answer_a_failure(llm_run, tmp_path, monkeypatch):
    server, _, run = _llm_copy(llm_run, tmp_path, monkeypatch)
    server.add(Behaviour("status", status=401, message="invalid key {authorization}"))
    create_study(run, cases=2, participants=1)
    answers = pd.read_csv(run / "study/persona_answers.csv", keep_default_na=False)
    assert len(answers) and set(answers["status"]) == {"failed"} and set(answers["simulation_answer"]) == {""}
    assert answers["error"].str.contains("HTTP 401|earlier request failed with HTTP 401").all()
    swap = json.loads((run / "study/label_swap.json").read_text())
    assert swap["applies"] and not swap["measured"] and swap["n_failed"] > 0
    assert not any(SENTINEL in p.read_text(errors="ignore") for p in run.rglob("*") if p.is_file())
    # the study still works for people, and the calibration says the personas' answers failed
    study = json.loads((run / "study/study.json").read_text())
    _people_rows(study, right={"SHAP"}, people=2).assign(role=study["roles"][0]).to_csv(tmp_path / "r.csv", index=False)
    import_ratings(run, tmp_path / "r.csv")
    forward = calibration(run)["roles"][study["roles"][0]]["forward_accuracy"]
    assert forward["personas"] == {} and forward["n_persona_failures"] > 0 and forward["people"]["SHAP"]["value"] == 1.0


def test_personas_missing_from_the_persona_file_are_recorded_failures(llm_run, tmp_path, monkeypatch):
    from hexeval_engine.errors import ConfigError
    from hexeval_engine.study import persona_evidence

    server, _, run = _llm_copy(llm_run, tmp_path, monkeypatch)
    real = persona_evidence.configured_personas
    monkeypatch.setattr(persona_evidence, "configured_personas",
                        lambda config: [p for p in real(config) if p.name == "Jordan Whitfield"])
    create_study(run, cases=2, participants=1)
    answers = pd.read_csv(run / "study/persona_answers.csv", keep_default_na=False)
    gone = answers[answers["persona_name"] == "Dr. Sam Okafor"]
    assert len(gone) and set(gone["status"]) == {"failed"} and gone["error"].str.contains("no longer in").all()
    assert set(answers.loc[answers["persona_name"] == "Jordan Whitfield", "status"]) == {"ok"}
    assert not any("You are Dr. Sam Okafor" in r.text for r in server.completion_requests())

    def broken(config):
        raise ConfigError("The persona file personas.yaml is missing.")

    _, _, again = _llm_copy(llm_run, tmp_path / "again", monkeypatch)
    monkeypatch.setattr(persona_evidence, "configured_personas", broken)
    create_study(again, cases=2, participants=1)
    answers = pd.read_csv(again / "study/persona_answers.csv", keep_default_na=False)
    assert len(answers) == 2 * 2 * 6 and set(answers["status"]) == {"failed"}
    assert answers["error"].str.contains("persona file personas.yaml is missing").all()
