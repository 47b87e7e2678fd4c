"""Fixtures shared by the helper-process tests: a warm helper, and none left running after a module."""

from __future__ import annotations

import os
import time
from concurrent.futures import Future

import pytest

from hexeval_engine.runtime import helper_pool

#: Skips a module on a machine where the helper would never be used (fewer than 2 usable cores).
needs_two_cores = pytest.mark.skipif(helper_pool.helper_cores() < 2, reason="the helper needs 2 usable cores")


def wait_pid(seconds: float = 60.0) -> int:
    """The helper's process id once it is up; fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pid = helper_pool.helper_pid()
        if pid is not None:
            return pid
        time.sleep(0.05)
    raise AssertionError("the helper did not start")


@pytest.fixture(scope="module", autouse=True)
def no_helper_left():
    """Stop the helper after the module's tests (a module imports this fixture to use it)."""
    yield
    helper_pool.stop_helper()


@pytest.fixture
def warm_helper() -> int:
    """The helper, started and warm (a test before may have stopped it); its process id."""
    helper_pool.start_helper(background=False)
    return wait_pid()


def settled(*, result=None, error: BaseException | None = None) -> Future:
    """A future already finished with ``result`` (or raising ``error``), as the helper's answer to a job."""
    answer = Future()
    answer.set_running_or_notify_cancel()
    if error is not None:
        answer.set_exception(error)
    else:
        answer.set_result(result)
    return answer


def gone_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` has ended (is no longer listed) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def helper_starts_first(monkeypatch):
    """The main process walks the helper's queue back only once the helper has started the first job in it.

    The helper's worker gets one job at a time, so on a busy machine a slow re-fit queued first can leave every
    explanation job to the main process, which takes them all back (right, but then a test of what the helper
    explains has nothing to look at)."""
    from hexeval_engine.runtime import parallel

    take_back = parallel.take_back

    def patient(futures, redo):
        deadline = time.monotonic() + 60
        while futures and not futures[0].running() and not futures[0].done() and time.monotonic() < deadline:
            time.sleep(0.01)
        return take_back(futures, redo)

    monkeypatch.setattr(parallel, "take_back", patient)
