"""Ctrl-C and the dashboard's Stop end the LLM stage at once (issue 14, defect 6).

Before: against an unresponsive server, SIGINT 1.5 s into the persona stage was followed by 120
more requests and an exit after about 16 minutes (the thread pool waited for every queued task).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import yaml
from llm_server import Behaviour, FakeLLMServer
from rating_tasks import tasks

from hexeval_engine import get_usecase
from hexeval_engine.raters import make_rater
from hexeval_engine.runs.store import scan_runs


class FakeStop(Exception):
    """Stands for Streamlit's StopException, raised inside a progress callback when Stop was pressed."""


def wait_for(condition, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(0.05)


def _ctrl_c_heard() -> None:
    """In the child before it starts: SIGINT back to its default. A shell starts background jobs with SIGINT
    ignored (POSIX, no job control) and children inherit that, so a suite run in the background (``make test &``)
    started the CLI deaf to Ctrl-C, which a person at a terminal never is."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_the_persona_stage_exits_at_once_and_saves_nothing(tmp_path):
    uc = get_usecase("heart")
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "evaluation": {"sample_size": 3, "bootstrap_resamples": 100, "stability": {"repeats": 1},
                       "explainers": {"shap": {"background_size": 20}, "lime": {"enabled": False},
                                      "anchor": {"enabled": False}, "dice": {"enabled": False}}},
        "personas": {"file": str(uc.personas_path), "sample_instances": 3, "runs_per_method": 5,
                     "concurrency": 2, "timeout_seconds": 120, "max_retries": 3}}))
    out = tmp_path / "runs"
    with FakeLLMServer() as server:
        server.add(Behaviour("hang"))
        env = {**os.environ, "PYTHONPATH": os.getcwd(), "PYTHONFAULTHANDLER": "1"}
        proc = subprocess.Popen([sys.executable, "-m", "hexeval_engine", "evaluate", "--usecase", "heart",
                                 "--config", str(config), "--output", str(out), "--quiet", "--rater", "openai",
                                 "--llm-model", "test-model", "--llm-base-url", server.url],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=_ctrl_c_heard)
        try:
            wait_for(lambda: len(server.completion_requests()) >= 2 or proc.poll() is not None, 180)
            assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
            time.sleep(0.3)  # the queue is full: 60 ratings wait behind the two in flight
            sent_before = len(server.completion_requests())
            interrupted = time.monotonic()
            proc.send_signal(signal.SIGINT)
            try:
                _, err = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:  # say where it hangs: faulthandler dumps every thread on SIGABRT
                proc.send_signal(signal.SIGABRT)
                _, err = proc.communicate(timeout=30)
                stacks = err.decode().split("\nExtension modules:")[0]  # the module list after the stacks says nothing
                raise AssertionError("still running 30 s after Ctrl-C; its threads:\n" + stacks[-8000:])
            exit_seconds = time.monotonic() - interrupted
        finally:
            if proc.poll() is None:
                proc.kill()
        requests_after = len(server.completion_requests()) - sent_before
    assert proc.returncode == 130, err.decode()[-2000:]
    assert "interrupted; nothing partial was saved" in err.decode()
    assert exit_seconds < 10, f"exit took {exit_seconds:.1f} s after Ctrl-C"
    assert requests_after == 0  # no queued rating and no retry was sent after Ctrl-C
    runs, problems = scan_runs(out)
    assert runs == [] and problems == []
    assert not [p for p in out.rglob(".tmp-*")]


def test_stop_raised_by_the_progress_callback_drops_queued_ratings_while_waiting():
    """The dashboard's Stop surfaces as an exception in the next st.* call: rate_many calls on_progress
    while it waits, so Stop works even when no answer ever comes."""
    calls = []

    def on_progress(done, total, message):
        calls.append(message)
        raise FakeStop()

    outcome = []
    with FakeLLMServer() as server:
        server.add(Behaviour("hang"))
        with make_rater("openai", model="m", base_url=server.url, api_key="k-123456", concurrency=2,
                        timeout=120, max_retries=3) as rater:
            def run():
                try:
                    rater.rate_many(tasks(12, runs=2), on_progress)
                except FakeStop:
                    outcome.append("stopped")

            worker = threading.Thread(target=run, daemon=True)
            worker.start()
            worker.join(timeout=20)
            assert not worker.is_alive(), "rate_many kept waiting after Stop"
            time.sleep(0.3)
            sent = len(server.completion_requests())
    assert outcome == ["stopped"] and calls and "Waiting for answers" in calls[0]
    assert sent <= 2  # only the two calls already in flight; the other 22 were dropped
