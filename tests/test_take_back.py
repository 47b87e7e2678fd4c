"""Work stealing from the helper's queue: jobs it has not started are taken back from the end, and the walk stops
at the first one it started (it takes jobs in order)."""

from __future__ import annotations

from concurrent.futures import Future

from hexeval_engine.runtime.parallel import take_back


def _started() -> Future:
    future = Future()
    assert future.set_running_or_notify_cancel()  # what the executor does when the helper picks the job up
    return future


def test_jobs_not_started_are_taken_back_from_the_end_and_the_walk_stops_at_a_started_one():
    futures = [_started(), Future(), _started(), Future(), Future()]  # the helper took jobs 0 and 2
    done_here = []
    take_back(futures, done_here.append)
    assert done_here == [4, 3]  # job 1 was not started either, but it lies before a started job: left to the helper
    assert futures[3].cancelled() and futures[4].cancelled() and not futures[1].cancelled()


def test_a_queue_the_helper_has_not_touched_is_all_taken_back():
    futures = [Future() for _ in range(3)]
    done_here = []
    take_back(futures, done_here.append)
    assert done_here == [2, 1, 0] and all(f.cancelled() for f in futures)
