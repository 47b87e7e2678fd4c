"""Signed runs (issue 36, item 2): an edit made together with its hash, or a fake amendment, is detected by every
reader; HEXEval's own amendments verify; runs that cannot be verified say so wherever "as written" would be."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat

import pytest

from app_helpers import app, open_page
from hexeval_engine import ConfigError
from hexeval_engine.cli.main import main
from hexeval_engine.report.html import render_report
from hexeval_engine.runs.amendments import record_amendment
from hexeval_engine.runs.folders import check_output_root
from hexeval_engine.runs.integrity import check_integrity
from hexeval_engine.runs.store import list_runs, load_run
from ui_run_fixtures import save_fixture_run

from test_runs import save


def _manifest(run_dir) -> dict:
    return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))


def _write_manifest(run_dir, manifest) -> None:
    (run_dir / "run.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def _edit_with_its_hash(run_dir) -> None:
    """What an editor who read the design notes does: change a value, then the hash recorded for the file."""
    path = run_dir / "technical_metrics.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("0.5", "0.9", 1), encoding="utf-8")
    manifest = _manifest(run_dir)
    manifest["files"]["technical_metrics.csv"] = hashlib.sha256(path.read_bytes()).hexdigest()
    _write_manifest(run_dir, manifest)


def _report(run) -> str:
    return render_report(dataclasses.replace(run, recommendations={}, persona_ratings=None))


def _verify(run_dir, capsys) -> tuple[int, str]:
    code = main(["runs", "verify", str(run_dir)])
    return code, capsys.readouterr().out


def test_a_saved_run_is_signed_and_verifies_as_written(tmp_path, capsys):
    run_dir = save(tmp_path)
    signature = _manifest(run_dir)["signature"]
    assert signature["scheme"] == "HMAC-SHA256" and len(signature["value"]) == 64
    integrity = load_run(run_dir).integrity
    assert integrity.verifiable and integrity.state == "as written" and integrity.warning == ""
    code, out = _verify(run_dir, capsys)
    assert code == 0 and "AS WRITTEN" in out and "Signature: valid" in out
    assert "Not verifiable" not in _report(load_run(run_dir)) and "Warning." not in _report(load_run(run_dir))


def test_an_edit_with_its_hash_updated_is_detected_everywhere(tmp_path, capsys):
    intact = save(tmp_path)
    run_dir = save(tmp_path)
    _edit_with_its_hash(run_dir)
    run = load_run(run_dir)
    assert run.integrity.edited == ["run.json"] and run.integrity.state == "edited"
    assert "run.json was changed after HEXEval signed it" in run.integrity.warning
    assert "Edited after the run: run.json" in _report(run)
    code, out = _verify(run_dir, capsys)
    assert code == 1 and "EDITED" in out and "Signature: FAILS" in out
    assert main(["runs", "show", str(run_dir)]) == 0
    assert "warning: Edited after the run: run.json" in capsys.readouterr().out
    assert main(["runs", "list", "--output", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if run.run_id in line and not line.startswith("warning"))
    assert "EDITED" in line and "as written" not in line
    assert "as written" in next(line for line in out.splitlines() if intact.name in line)


def test_a_fake_amendment_entry_is_detected(tmp_path, capsys):
    run_dir = save(tmp_path)
    record_amendment(run_dir, what="study answers", files={"study/answers.csv": "who,answer\nA,yes\n"})
    assert _verify(run_dir, capsys)[0] == 0  # HEXEval's own amendment verifies
    path = run_dir / "technical_metrics.csv"
    path.write_text("method,fidelity_insertion,error\nSHAP,0.99,\nLIME,0.4,\n", encoding="utf-8")
    manifest = _manifest(run_dir)
    forged = dict(manifest["amendments"][0], what="recomputed metrics",
                  files={"technical_metrics.csv": hashlib.sha256(path.read_bytes()).hexdigest()})
    manifest["amendments"].append(forged)  # a copy of a real entry, its chain link and mac included
    _write_manifest(run_dir, manifest)
    integrity = check_integrity(run_dir)
    assert integrity.edited == ["run.json"]
    code, out = _verify(run_dir, capsys)
    assert code == 1 and "EDITED" in out


def test_a_removed_amendment_breaks_the_chain(tmp_path, capsys):
    run_dir = save(tmp_path)
    for n in (1, 2):
        record_amendment(run_dir, what=f"answers {n}", files={f"study/a{n}.csv": f"n\n{n}\n"})
    assert check_integrity(run_dir).state == "as written"
    manifest = _manifest(run_dir)
    assert manifest["amendments"][1]["previous"] == manifest["amendments"][0]["mac"]
    assert manifest["amendments"][0]["previous"] == manifest["signature"]["sealed"]
    del manifest["amendments"][0]
    (run_dir / "study" / "a1.csv").unlink()
    _write_manifest(run_dir, manifest)
    assert check_integrity(run_dir).edited == ["run.json"]


def test_runs_from_before_signatures_open_and_say_not_verifiable_everywhere(tmp_path, capsys):
    run_dir = save(tmp_path)
    manifest = _manifest(run_dir)
    del manifest["signature"]
    _write_manifest(run_dir, manifest)
    run = load_run(run_dir)
    assert not run.integrity.verifiable and run.integrity.edited == []
    assert run.integrity.warning.startswith("Not verifiable: this run was saved before HEXEval signed its runs")
    assert "Not verifiable." in _report(run)
    assert main(["runs", "list", "--output", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "NOT VERIFIABLE" in out and "as written" not in out and f"warning: run {run.run_id}: Not verifiable" in out
    assert main(["runs", "show", str(run_dir)]) == 0
    assert "warning: Not verifiable" in capsys.readouterr().out
    assert _verify(run_dir, capsys)[0] == 1
    record_amendment(run_dir, what="answers", files={"study/a.csv": "n\n1\n"})  # an amendment never vouches for it
    assert "signature" not in _manifest(run_dir) and check_integrity(run_dir).state == "not verifiable"


def test_a_run_without_hashes_says_not_verifiable_in_the_report_and_on_the_results_page(tmp_path):
    run_dir = save_fixture_run(tmp_path / "outputs")
    manifest = _manifest(run_dir)
    del manifest["files"]
    _write_manifest(run_dir, manifest)
    assert "Not verifiable." in _report(load_run(run_dir))
    at = open_page(app(viewed_run=str(run_dir)), "app_pages/results.py")
    assert any(w.value.startswith("Not verifiable: this run was saved before HEXEval recorded file hashes")
               for w in at.warning)


def test_a_run_signed_by_another_installation_is_not_verifiable_here(tmp_path, monkeypatch):
    run_dir = save(tmp_path)
    monkeypatch.setenv("HEXEVAL_SIGNING_KEY", str(tmp_path / "other" / "key"))
    save(tmp_path)  # this "installation" makes its own key
    integrity = check_integrity(run_dir)
    assert integrity.state == "not verifiable" and integrity.signature == "other_key"
    assert "signed by another HEXEval installation" in integrity.warning
    _edit_with_its_hash(run_dir)
    assert check_integrity(run_dir).state == "not verifiable"  # what HMAC cannot do: checked only with its key


def test_the_key_is_made_on_first_save_private_and_never_by_a_reader(tmp_path, monkeypatch):
    key = tmp_path / "config" / "hexeval" / "run-signing.key"
    monkeypatch.setenv("HEXEVAL_SIGNING_KEY", str(key))
    runs = tmp_path / "runs"
    run_dir = save(runs)
    assert key.is_file() and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert not any(p.name == key.name for p in runs.rglob("*"))
    os.unlink(key)
    assert check_integrity(run_dir).signature == "no_key" and not key.exists()
    assert list_runs(runs)[0].integrity.state == "not verifiable" and not key.exists()


def test_a_key_inside_the_runs_folder_is_refused_before_anything_is_evaluated(tmp_path, monkeypatch):
    monkeypatch.setenv("HEXEVAL_SIGNING_KEY", str(tmp_path / "runs" / "key"))
    with pytest.raises(ConfigError, match="is inside the runs folder"):
        check_output_root(tmp_path / "runs")
