"""record_amendment (the run-integrity contract) and the run lock it takes for every amendment writer."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import threading

import pytest

from hexeval_engine.errors import RunError
from hexeval_engine.runs.amendments import record_amendment


def _run(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"run_id": "r", "files": {"a.csv": "x"}}), encoding="utf-8")
    (run / "a.csv").write_bytes(b"a,b\n1,2\n")
    return run


def test_amendment_writes_files_and_records_their_hashes(tmp_path):
    run = _run(tmp_path)
    entry = record_amendment(run, what="study answers", files={"study/answers/p1.json": '{"x": 1}', "b.bin": b"\x00\x01"})
    assert (run / "study/answers/p1.json").read_text() == '{"x": 1}'
    assert entry["files"] == {"study/answers/p1.json": hashlib.sha256(b'{"x": 1}').hexdigest(),
                              "b.bin": hashlib.sha256(b"\x00\x01").hexdigest()}
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["files"] == {"a.csv": "x"} and manifest["run_id"] == "r"
    assert manifest["amendments"] == [entry] and entry["what"] == "study answers" and entry["when"].endswith("+00:00")
    assert (run / "a.csv").read_bytes() == b"a,b\n1,2\n"
    assert not [p for p in run.rglob("*.tmp")]


@pytest.mark.parametrize("bad", ["../x", "/etc/x", "run.json"])
def test_amendment_refuses_paths_outside_the_run_or_the_manifest(tmp_path, bad):
    run = _run(tmp_path)
    before = (run / "run.json").read_bytes()
    with pytest.raises(RunError):
        record_amendment(run, what="x", files={bad: "y"})
    assert (run / "run.json").read_bytes() == before


def _amend_many(run, who, n):
    for i in range(n):
        record_amendment(run, what=f"{who} {i}", files={f"study/answers/{who}.json": str(i)})


def test_concurrent_amendments_lose_no_entry(tmp_path):
    run = _run(tmp_path)
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_amend_many, args=(run, who, 15)) for who in ("p1", "p2")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0]
    entries = json.loads((run / "run.json").read_text())["amendments"]
    assert len(entries) == 30
    assert {e["what"] for e in entries} == {f"{w} {i}" for w in ("p1", "p2") for i in range(15)}


def test_concurrent_amendments_from_threads_of_one_process_lose_no_entry(tmp_path):
    # one Streamlit server serves several participants on threads: the lock must hold between threads too
    run = _run(tmp_path)
    workers = [threading.Thread(target=_amend_many, args=(run, who, 15)) for who in ("p1", "p2", "p3")]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    entries = json.loads((run / "run.json").read_text())["amendments"]
    assert sorted(e["what"] for e in entries) == sorted(f"{w} {i}" for w in ("p1", "p2", "p3") for i in range(15))
