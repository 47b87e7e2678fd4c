"""Tamper evidence: a run edited after it was written is flagged by every reader; HEXEval's own amendments are not."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import pytest

from hexeval_engine import RunError
from hexeval_engine.cli.main import main
from hexeval_engine.report.html import render_report
from hexeval_engine.runs.amendments import record_amendment
from hexeval_engine.runs.integrity import check_integrity, edited_files
from hexeval_engine.runs.compare import compare_runs
from hexeval_engine.runs.store import list_runs, load_run

from test_runs import save


def _edit_metric(run_dir):
    path = run_dir / "technical_metrics.csv"
    text = path.read_text(encoding="utf-8")
    assert "0.5" in text
    path.write_text(text.replace("0.5", "0.9", 1), encoding="utf-8")


def _random_wins(run_dir):
    path = run_dir / "recommendations.json"
    recs = json.loads(path.read_text(encoding="utf-8"))
    recs["stakeholders"]["Cardiologist"] = {"recommended_method": "Random", "score": 0.99}
    path.write_text(json.dumps(recs), encoding="utf-8")


def _report(run) -> str:
    """The report of ``run``; its cards and ratings are left out (the test runs save minimal ones the report cannot draw)."""
    return render_report(dataclasses.replace(run, recommendations={}, persona_ratings=None))


def test_manifest_records_a_sha256_of_every_file_but_itself(tmp_path):
    run_dir = save(tmp_path)
    manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    on_disk = {p.name for p in run_dir.iterdir() if p.is_file()} - {"run.json"}
    assert set(manifest["files"]) == on_disk
    for name, digest in manifest["files"].items():
        assert digest == hashlib.sha256((run_dir / name).read_bytes()).hexdigest()
    assert manifest["amendments"] == []
    assert edited_files(run_dir) == []
    assert load_run(run_dir).integrity.warning == ""


def test_edited_tables_are_flagged_by_load_list_compare_report_and_cli(tmp_path, capsys):
    intact = save(tmp_path)
    run_dir = save(tmp_path)
    _edit_metric(run_dir)
    _random_wins(run_dir)
    expected = ["recommendations.json", "technical_metrics.csv"]
    assert edited_files(run_dir) == expected
    run = load_run(run_dir)
    assert run.edited_files == expected
    assert "Edited after the run: recommendations.json, technical_metrics.csv" in run.integrity.warning
    listed = {info.path.name: info.edited_files for info in list_runs(tmp_path)}
    assert listed == {run_dir.name: expected, intact.name: []}
    warnings = compare_runs(load_run(intact), run)["warnings"]
    assert any(run.run_id in w and "technical_metrics.csv" in w for w in warnings)
    assert "Edited after the run: recommendations.json, technical_metrics.csv" in _report(run)
    assert "Edited after the run" not in _report(load_run(intact))

    assert main(["runs", "show", str(run_dir)]) == 0
    assert "warning: Edited after the run: recommendations.json, technical_metrics.csv" in capsys.readouterr().out
    assert main(["runs", "list", "--output", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"warning: run {run.run_id}: Edited after the run" in out and "EDITED" in out and "as written" in out
    assert main(["runs", "compare", str(intact), str(run_dir)]) == 0
    assert "technical_metrics.csv" in capsys.readouterr().out


def test_missing_and_added_files_are_flagged(tmp_path):
    run_dir = save(tmp_path)
    (run_dir / "explanations.jsonl").unlink()
    (run_dir / "narratives.csv").write_text("method,text\nSHAP,hand-made\n", encoding="utf-8")
    assert edited_files(run_dir) == ["explanations.jsonl", "narratives.csv"]


def test_an_amendment_is_not_flagged_but_a_later_edit_of_it_is(tmp_path):
    run_dir = save(tmp_path)
    entry = record_amendment(run_dir, what="study answers", files={"study/answers.csv": "who,answer\nA,yes\n",
                                                                    "technical_metrics.csv": b"method\nSHAP\n"})
    assert entry["files"]["study/answers.csv"] == hashlib.sha256(b"who,answer\nA,yes\n").hexdigest()
    assert (run_dir / "study" / "answers.csv").read_text(encoding="utf-8") == "who,answer\nA,yes\n"
    manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert [a["what"] for a in manifest["amendments"]] == ["study answers"]
    assert manifest["amendments"][0]["when"].endswith("+00:00")
    assert edited_files(run_dir) == []
    (run_dir / "study" / "answers.csv").write_text("who,answer\nA,no\n", encoding="utf-8")
    assert edited_files(run_dir) == ["study/answers.csv"]


@pytest.mark.parametrize("relpath", ["../escape.csv", "/tmp/abs.csv", "run.json"])
def test_amendments_stay_inside_the_run_and_never_replace_the_manifest(tmp_path, relpath):
    run_dir = save(tmp_path)
    with pytest.raises(RunError, match="only files inside the run folder other than run.json"):
        record_amendment(run_dir, what="x", files={relpath: "a"})
    assert not (tmp_path / "heart" / "escape.csv").exists()


def test_runs_from_before_hashes_are_not_verifiable_not_edited(tmp_path):
    run_dir = save(tmp_path)
    manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    del manifest["files"], manifest["amendments"]
    (run_dir / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    _edit_metric(run_dir)
    integrity = check_integrity(run_dir)
    assert not integrity.verifiable and integrity.edited == [] and edited_files(run_dir) == []
    assert "cannot be verified" in integrity.warning
    assert "Edited after the run" not in _report(load_run(run_dir))
