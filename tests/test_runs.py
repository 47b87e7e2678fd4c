"""Saved runs: atomic, listed only when complete, damaged folders reported, never colliding."""

from __future__ import annotations

import json
import threading

import pandas as pd
import pytest

from hexeval_engine import RunError
from hexeval_engine.runs.compare import compare_runs
from hexeval_engine.runs.store import delete_run, list_runs, load_run, new_run_id, save_run, scan_runs


def manifest(run_id, usecase="heart", **extra):
    return {"run_id": run_id, "created": "2026-11-21T10:00:00+00:00", "usecase": usecase, "status": "complete",
            "config": {}, "rater": {"kind": "simulated", "model": "simulated-v1"}, "model": {"sha256": "x"},
            "data": {"sha256": "y"}, "timings": {"total": 1.0}, "counts": {"sample_size": 5}, **extra}


def tables(value=0.5):
    wide = pd.DataFrame({"method": ["SHAP", "LIME"], "fidelity_insertion": [value, 0.4], "error": ["", ""]})
    long = pd.DataFrame({"method": ["SHAP", "LIME"], "metric": ["fidelity_insertion"] * 2, "value": [value, 0.4],
                         "ci_low": [0.1, 0.1], "ci_high": [0.9, 0.9], "n": [5, 5], "direction": ["higher"] * 2,
                         "meaning": ["m"] * 2, "derived": [False, False]})
    ratings = pd.DataFrame({"persona_role": ["Cardiologist"] * 2, "explanation_type": ["SHAP", "LIME"],
                            "status": ["ok", "ok"], "comment": ["fine", ""], "error": ["", ""],
                            **{d: [value * 8, 3] for d in ("interpretability", "completeness", "actionability", "trust",
                                                           "satisfaction", "decision_support")}})
    return {"technical_metrics": wide, "technical_metrics_long": long, "persona_ratings": ratings}


def save(root, run_id=None, value=0.5, usecase="heart"):
    rid = run_id or new_run_id()
    recs = {"mode": "combined", "stakeholders": {"Cardiologist": {"recommended_method": "SHAP" if value > 0.45 else "LIME"}}}
    return save_run(root, usecase, manifest=manifest(rid, usecase), tables=tables(value), recommendations=recs,
                    explanations=[{"method": "SHAP", "instance_id": 0, "text": "age raises risk"}])


def test_round_trip_and_listing(tmp_path):
    path = save(tmp_path)
    run = load_run(path)
    assert run.technical_metrics["fidelity_insertion"].tolist() == [0.5, 0.4]
    assert run.persona_ratings["comment"].tolist() == ["fine", ""]
    assert run.explanations[0]["text"] == "age raises risk"
    assert run.rater_label.startswith("Simulated")
    assert [r.run_id for r in list_runs(tmp_path)] == [run.run_id]
    assert list_runs(tmp_path, usecase="credit_risk") == []
    assert not [p for p in (tmp_path / "heart").iterdir() if p.name.startswith(".tmp-")]


def test_partial_and_damaged_folders_never_list(tmp_path):
    good = save(tmp_path)
    (tmp_path / "heart" / ".tmp-20261121-000000-abcdef-123").mkdir()  # a killed writer's leftovers
    broken = tmp_path / "heart" / "20261121-000001-badbad"
    broken.mkdir()
    (broken / "run.json").write_text("{ not json")
    missing = tmp_path / "heart" / "20261121-000002-nofile"
    missing.mkdir()
    runs, problems = scan_runs(tmp_path)
    assert [r.path for r in runs] == [good]
    reasons = {p.path.name: p.reason for p in problems}
    assert "invalid JSON" in reasons[broken.name] and "no run.json" in reasons[missing.name]
    with pytest.raises(RunError, match="damaged"):
        load_run(broken)
    incomplete = tmp_path / "heart" / "20261121-000003-fields"
    incomplete.mkdir()
    (incomplete / "run.json").write_text(json.dumps({"run_id": "x"}))
    with pytest.raises(RunError, match="missing or invalid: created"):
        load_run(incomplete)


def test_concurrent_runs_never_collide(tmp_path):
    paths, errors = [], []

    def worker():
        try:
            paths.append(save(tmp_path))
        except Exception as err:  # collect to assert below
            errors.append(err)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(paths)) == 8 and len(list_runs(tmp_path)) == 8


def test_same_id_never_overwrites(tmp_path):
    first = save(tmp_path, run_id="20261121-000000-aaaaaa", value=0.5)
    second = save(tmp_path, run_id="20261121-000000-aaaaaa", value=0.3)
    assert first != second
    assert load_run(first).technical_metrics["fidelity_insertion"][0] == 0.5


def test_compare_and_delete(tmp_path):
    a, b = load_run(save(tmp_path, value=0.5)), load_run(save(tmp_path, value=0.3))
    diff = compare_runs(a, b)
    shap = diff["metrics"].set_index("method").loc["SHAP"]
    assert shap["difference"] == pytest.approx(-0.2)
    trust = diff["ratings"].set_index(["explanation_type", "dimension"]).loc[("SHAP", "trust")]
    assert trust["difference"] == pytest.approx(-1.6) and trust["n_a"] > 0 and trust["n_b"] > 0
    assert diff["recommendation_changes"] == {"Cardiologist": ("SHAP", "LIME")}
    assert diff["warnings"] == []  # same model and data hashes
    # A custom upload is compared with a bundled run: allowed, with a warning that they differ.
    other = load_run(save(tmp_path, usecase="custom-heart"))
    cross = compare_runs(a, other)
    assert "different use cases" in cross["warnings"][0] and not cross["metrics"].empty
    with pytest.raises(RunError, match="not inside the runs folder"):
        delete_run(tmp_path.parent, tmp_path)
    delete_run(a.path, tmp_path)
    assert not a.path.exists() and b.path.exists()


def test_compare_warns_about_different_or_unrecorded_inputs_and_cli_says_none(tmp_path, capsys):
    from hexeval_engine.cli.main import main as cli

    a = save(tmp_path, value=0.5)
    rid = new_run_id()
    b = save_run(tmp_path, "heart", manifest=manifest(rid, model={"sha256": "m2"}, data={}), tables=tables(0.3),
                 recommendations={"stakeholders": {"Patient": {"recommended_method": "DiCE"}}}, explanations=[])
    warnings = compare_runs(load_run(a), load_run(b))["warnings"]
    assert len(warnings) == 2
    assert "different model files" in warnings[0]
    assert f"Run {rid} records no data hash" in warnings[1]
    assert cli(["runs", "compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "warning: The runs used different model files" in out
    # stakeholders of one run only are listed as such, never as a change of pick ("none → DiCE")
    assert "→" not in out
    assert "Only in run a (not compared): Cardiologist" in out and "Only in run b (not compared): Patient" in out
    assert "None" not in out
