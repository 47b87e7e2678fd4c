"""A participant's answer survives a server killed (SIGKILL) at any point of saving it: the run stays
"as written" and the answer is saved whole or not at all; ``hexeval study serve`` stopped with SIGTERM
leaves no process behind (the Streamlit child is stopped with it)."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from local_server import ROOT, free_port
from study_fixtures import run_copy, saved_run  # noqa: F401  (fixtures)

from hexeval_engine.ratings_summary import DIMENSIONS
from hexeval_engine.runs.integrity import check_integrity
from hexeval_engine.study import create_study
from hexeval_engine.study.answers import next_item, open_link, save_answer, set_role

POINTS = ("fsync", "replace", "unlink", "write")


def _answer_killed_at(run, token, item_id, step, answer):
    """In a forked child: save ``answer``, SIGKILLing the process just before its ``step``-th file operation."""
    count = [0]
    real = {name: getattr(os, name) for name in POINTS}

    def counted(name):
        def call(*args, **kwargs):
            if count[0] == step:
                os.kill(os.getpid(), signal.SIGKILL)
            count[0] += 1
            return real[name](*args, **kwargs)
        return call

    for name in POINTS:
        setattr(os, name, counted(name))
    save_answer(run, token, item_id, **answer)
    os._exit(0)


def _disk_answers(run: Path, pid: str) -> dict:
    """The participant's answers as they are on disk (the oracle: the file's own JSON)."""
    path = run / "study" / "answers" / f"{pid}.json"
    return json.loads(path.read_text())["answers"] if path.exists() else {}


def test_a_kill_at_every_point_of_an_answer_leaves_the_run_as_written_and_the_answer_whole_or_absent(run_copy, tmp_path):
    links = create_study(run_copy, cases=1, participants=1)
    token = links["p1"].split("token=")[1]
    set_role(run_copy, token, "Patient")
    study, pid, record = open_link(run_copy, token)
    item = next_item(study, pid, record)
    answer = {"scores": {d: 1 + i % 5 for i, d in enumerate(DIMENSIONS)}, "comment": "kept whole",
              "simulation_answer": 1 if (item.get("what_if") or {}).get("question") else None}
    entries_before = len(json.loads((run_copy / "run.json").read_text())["amendments"])
    ctx = multiprocessing.get_context("fork")
    outcomes = []
    for step in range(200):
        run = tmp_path / f"kill-{step}"
        shutil.copytree(run_copy, run)
        child = ctx.Process(target=_answer_killed_at, args=(run, token, item["item_id"], step, answer))
        child.start()
        child.join(120)
        killed = child.exitcode == -signal.SIGKILL
        assert killed or child.exitcode == 0, child.exitcode
        integrity = check_integrity(run)  # the next reader completes a journaled answer
        assert integrity.verifiable and integrity.edited == [], (step, integrity.edited)
        saved = _disk_answers(run, pid).get(item["item_id"])
        if saved is not None:  # whole: every part of the answer, exactly
            assert {d: saved[d] for d in DIMENSIONS} == answer["scores"] and saved["comment"] == "kept whole"
            assert saved["simulation_answer"] == answer["simulation_answer"]
        entries = json.loads((run / "run.json").read_text())["amendments"]
        assert len(entries) == entries_before + (saved is not None)  # one entry for a saved answer, none otherwise
        assert not (run / ".amendment-journal.json").exists()
        outcomes.append((killed, saved is not None))
        if not killed:
            break
    assert outcomes[-1] == (False, True)  # past the last point the save simply completes
    kills = [saved for killed, saved in outcomes if killed]
    assert len(kills) >= 6 and False in kills and True in kills  # killed before and after the commit point


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (read from /proc, the kernel's own list)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_study_serve_stopped_by_a_signal_leaves_no_process(run_copy, tmp_path, signum):
    create_study(run_copy, cases=1, participants=1)
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    serve = subprocess.Popen([sys.executable, "-m", "hexeval_engine.cli.main", "study", "serve", str(run_copy),
                              "--port", str(port)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)  # its own group: only the signal the test sends reaches it
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + 120
    while True:
        assert serve.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-1500:]
        try:
            with opener.open(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
    children = _children(serve.pid)
    try:
        assert children, "the Streamlit server should be a child of the command"
        serve.send_signal(signum)
        code = serve.wait(60)
        for pid in children:
            for _ in range(40):
                if not _alive(pid):
                    break
                time.sleep(0.25)
            assert not _alive(pid), f"the Streamlit child {pid} is still running after the command stopped"
        assert code == 128 + signum
    finally:
        for pid in children:  # a failed test leaves nothing running either
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
