"""Run many per-instance searches together so that their model calls are pooled.

Anchor and DiCE are bound by the number of model calls: each instance's search asks the model
about a few hundred rows at a time, many times over, and every call has a fixed cost (pandas
preprocessing, per-tree overhead: 3-10 ms on the bundled pipelines) that dwarfs the per-row cost.
Instances are independent, so their requests can be answered together.

:func:`run_lockstep` runs one search per instance in its own thread, but only **one thread runs
at a time** (a baton passes between them in a fixed order). When every unfinished search is
waiting for predictions, their rows go to the model in **one call** and each search resumes with
its share. Each search owns its random state: numpy's (and Python's) global RNG is swapped in
when the search gets the baton and saved when it yields, so every instance sees exactly the
random numbers it would see alone. Results therefore do not depend on which instances run
together, on chunking, or on the parallel backend.

**Time budget.** Each search is charged its own time: the time it holds the baton plus its share
(by rows) of every pooled model call it waits on. When ``budget_seconds`` is given, a search that
asks the model for more after spending that much raises :class:`TimeBudgetExceeded` inside
itself; it ends there, its result is that error, and the other searches go on.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from typing import Callable

import numpy as np

from ..explainers.base import GLOBAL_RNG_LOCK, TimeBudgetExceeded

log = logging.getLogger(__name__)

#: Largest number of searches run together (bounds threads and rows per pooled call).
MAX_TOGETHER = 32


class _Search(threading.Thread):
    """One search's thread, its random state and the baton it shares with the driver.

    The baton is two plain locks created held (``threading.Lock``: any thread may release it), which cost
    far less to make than the two ``threading.Event`` (a ``Condition`` each) they replace: the driver
    releases ``turn`` to let the search run, the search releases ``yielded`` when it waits for predictions
    or ends. Each release is matched by exactly one acquire on the other side, so turns alternate as before.
    """

    def __init__(self, fn: Callable, seed: int, budget: float | None = None, setting: str = ""):
        super().__init__(daemon=True)
        self.fn = fn
        self.budget, self.setting = budget, setting
        self.spent = 0.0          # own seconds: turns with the baton + share of pooled model calls
        self.turn_started = 0.0
        self.seed = seed
        self.np_state = self.py_state = None  # saved at the end of each turn; seeded directly before the first
        self.turn = _held_lock()
        self.yielded = _held_lock()
        self.request = None
        self.answer = None
        self.output = None
        self.error: BaseException | None = None
        self.finished = False

    def run(self) -> None:
        self.turn.acquire()
        try:
            self.output = self.fn(self.predict)
        except BaseException as err:  # recorded for this instance; the caller reports it
            self.error = err
        finally:
            self.finished = True
            self.yielded.release()

    def predict(self, M: np.ndarray) -> np.ndarray:
        """Called from the search: hand the rows over and wait for the pooled answer."""
        spent = self.spent + time.perf_counter() - self.turn_started
        if self.budget is not None and spent > self.budget:
            raise TimeBudgetExceeded(self.budget, spent, self.setting)
        self.request = np.atleast_2d(np.asarray(M, dtype=float))
        self.yielded.release()
        self.turn.acquire()
        answer, self.answer = self.answer, None
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def step(self) -> None:
        """Give this search the baton with its own RNG state; return when it yields or ends.

        Before its first turn the global generators are seeded with the search's seed, which puts them in
        the states ``RandomState(seed % 2**32)`` and ``Random(seed)`` start in (``RandomState.seed`` and
        ``Random.seed`` are the documented seeding paths and reset the cached Gaussian as well); later turns
        restore the states saved when the search last yielded.
        """
        if self.np_state is None:
            np.random.seed(self.seed % (2**32))
            random.seed(self.seed)
        else:
            np.random.set_state(self.np_state)
            random.setstate(self.py_state)
        self.turn_started = time.perf_counter()
        self.turn.release()
        self.yielded.acquire()
        self.spent += time.perf_counter() - self.turn_started
        self.np_state = np.random.get_state()
        self.py_state = random.getstate()


def _held_lock() -> threading.Lock:
    lock = threading.Lock()
    lock.acquire()
    return lock


def run_lockstep(fns: list[Callable], seeds: list[int], predict_rows: Callable[[np.ndarray], np.ndarray], *,
                 on_finish: Callable[[int], None] | None = None, max_together: int = MAX_TOGETHER,
                 budget_seconds: float | None = None, budget_setting: str = "") -> list:
    """Run ``fns[i](predict)`` for every ``i`` with pooled predictions.

    Parameters
    ----------
    fns : list of callables
        ``fn(predict)`` runs one search; ``predict(M)`` returns ``predict_rows`` of its rows.
    seeds : list of int
        Seed of numpy's and Python's global RNG as seen by ``fns[i]``.
    predict_rows : callable
        Answers stacked requests (one model call): ``(m, p)`` coded rows -> ``(m,)`` values.
    on_finish : callable, optional
        Called with ``i`` (from the calling thread) as soon as search ``i`` has finished.
    max_together : int
        Largest number of searches run (and pooled) together.
    budget_seconds : float, optional
        Own seconds a search may spend before its next model request fails with
        :class:`TimeBudgetExceeded` (see the module docstring); ``budget_setting`` names the config
        key its message tells the user to raise.

    Returns
    -------
    list
        Per search, its return value or the exception it raised.
    """
    results: list = [None] * len(fns)
    with GLOBAL_RNG_LOCK:
        saved_np, saved_py = np.random.get_state(), random.getstate()
        try:
            for start in range(0, len(fns), max_together):
                group = list(range(start, min(start + max_together, len(fns))))
                searches = {i: _Search(fns[i], int(seeds[i]), budget_seconds, budget_setting)
                            for i in group}
                for s in searches.values():
                    s.start()
                _drive(searches, predict_rows, on_finish)
                for i, s in searches.items():
                    s.join()
                    results[i] = s.error if s.error is not None else s.output
        finally:
            np.random.set_state(saved_np)
            random.setstate(saved_py)
    return results


def _drive(searches: dict, predict_rows, on_finish) -> None:
    active = list(searches)
    while active:
        for i in active:
            searches[i].step()
            if searches[i].finished and on_finish is not None:
                on_finish(i)
        active = [i for i in active if not searches[i].finished]
        if not active:
            return
        requests = [searches[i].request for i in active]
        started = time.perf_counter()
        try:
            answers = np.asarray(predict_rows(np.vstack(requests)))
        except BaseException as err:
            log.exception("A pooled model call failed; the %d searches waiting on it fail with it.", len(active))
            for i in active:
                searches[i].answer = err
            answers = None
        total_rows = max(sum(len(r) for r in requests), 1)
        call_seconds = time.perf_counter() - started
        for i, r in zip(active, requests):
            searches[i].spent += call_seconds * len(r) / total_rows
        if answers is not None:
            bounds = np.cumsum([0] + [len(r) for r in requests])
            for k, i in enumerate(active):
                searches[i].answer = answers[bounds[k]:bounds[k + 1]]
