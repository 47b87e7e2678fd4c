"""Ctrl-C while ``hexeval`` starts (the engine's imports take seconds): one line, exit 130 at once, no traceback.

Before (issue 36, item 3): a ``KeyboardInterrupt`` traceback from the command and another from the helper's
forkserver (interrupted while importing its preload), exit status -2, and 9–13 s to exit under load.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from hexeval_engine.runs.store import scan_runs


@pytest.mark.parametrize("delay", [1.0, 2.0])
def test_ctrl_c_during_start_up_exits_130_quietly_and_at_once(tmp_path, delay):
    out = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "hexeval_engine", "evaluate", "--usecase", "heart", "--quiet",
                             "--output", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": os.getcwd()}, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(delay)  # the engine's imports take ~3 s: the command has not started yet
        assert proc.poll() is None
        interrupted = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: every process of the command's group
        _, err = proc.communicate(timeout=30)  # returns once every process holding its output has ended
        seconds = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = err.decode()
    assert proc.returncode == 130, text[-2000:]
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text[-2000:]
    assert text.strip() == "hexeval: interrupted while starting; nothing was done."
    assert seconds < 5, f"{seconds:.1f} s from Ctrl-C until every process of the command ended"
    assert scan_runs(out) == ([], [])
