"""The ``hexeval`` command as a process of its own (issue 22: what a person waits for from the shell).

``hexeval evaluate`` starts the helper's forkserver before it imports the engine, so the run finds its helper
ready, and it ends without the interpreter's teardown. These tests run the real command in a new process and
check what a user relies on: the run is saved whole, the output is complete, the helper took the run's
announced work (the log says so when it could not), no process is left behind, and the public imports keep
working although the package now loads its names on first use.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

from hexeval_engine.runs.store import list_runs

from helper_fixtures import needs_two_cores

ROOT = Path(__file__).resolve().parents[1]


def _processes_with(marker: str) -> list[int]:
    """Processes whose environment holds ``marker`` (children inherit it: the forkserver and the helper)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in environ and state != "Z":
                found.append(int(entry))
    return found


def _command(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hexeval_engine", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}, timeout=timeout)


@needs_two_cores
def test_evaluate_from_the_shell_hands_work_to_a_ready_helper_saves_the_run_and_leaves_no_process(tmp_path):
    marker = f"HEXEVAL_TEST_{uuid.uuid4().hex}"
    out = tmp_path / "runs"
    done = _command("-v", "evaluate", "--usecase", "heart", "--output", str(out), env={marker: "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    # the helper was up when the run announced its jobs (else the engine logs that it explained in-process)
    assert "not up yet" not in done.stderr and "explaining in-process" not in done.stderr, done.stderr[-3000:]
    (run,) = list_runs(out)
    manifest = json.loads((run.path / "run.json").read_text())
    assert manifest["status"] == "complete" and run.status == "complete" and not run.edited_files
    assert "Recommendations" in done.stdout and done.stdout.rstrip().splitlines()[-1].strip()  # printed to the end
    deadline = time.monotonic() + 20
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _processes_with(marker) == [], "the helper or its forkserver outlived the hexeval command"


def test_a_reader_that_leaves_early_ends_the_command_quietly():
    """``hexeval --help | head -1``: the reader closes the pipe; the command ends with the interpreter's own
    status for output it could not flush, never a traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "hexeval_engine", "--help"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    proc.stdout.close()  # the reader is gone before anything was written
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err
    assert proc.returncode in (0, 120)


def test_the_package_loads_its_names_on_first_use_and_keeps_every_public_import():
    script = ("import sys\n"
              "import hexeval_engine\n"
              "light = 'sklearn' not in sys.modules and 'pandas' not in sys.modules\n"
              "import hexeval_engine.evaluate\n"  # the submodule first: the name must stay the function
              "from hexeval_engine import evaluate, EvaluationResult, HexevalModel, load_data, summarise\n"
              "names = [n for n in hexeval_engine.__all__ if getattr(hexeval_engine, n) is None]\n"
              "print(light, callable(evaluate) and evaluate.__module__, names, 'evaluate' in dir(hexeval_engine))\n"
              "try:\n"
              "    hexeval_engine.no_such_name\n"
              "except AttributeError as err:\n"
              "    print(err)\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    first, second = done.stdout.splitlines()
    assert first == "True hexeval_engine.evaluate [] True"
    assert second == "module 'hexeval_engine' has no attribute 'no_such_name'"
