"""One warm helper process that explains jobs off the main process (issue 22).

Public interface
----------------
``helper_cores() -> int``  CPU cores this process may use (``os.sched_getaffinity``)
``start_helper(*, background=True)``  start the helper (and its forkserver) if it is not running
``stop_helper()``  shut it down without waiting, cancel its queued jobs, end its process (also at exit)
``starting() -> bool``  the helper is being started (a run may hand it work once it is up)
``connect(model, data, config) -> HelperRun | None``  a run's connection: the model, data and config go to
the helper once (a run token); ``None`` (with the reason logged once) when the helper cannot serve the run
``HelperRun.submit(method, X_raw, ids, classes, probabilities, seeds, render) -> Future``  of
``(explanations, model rows, model calls)``; ``HelperRun.call(fn) -> Future`` of ``fn(token)`` run in the helper,
where ``run_inputs(token) -> (model, data, config)`` and ``run_store(token) -> dict`` (a run's scratch space there)

Why a helper. LIME, Anchor and DiCE are GIL-bound Python and shap's tree routine holds the GIL, so threads
cannot use a second core; a process can. A spawned process pays ~2 s of imports per start, so the helper is
long-lived and warm: a ``concurrent.futures.ProcessPoolExecutor`` with one worker, forked by a
``forkserver`` whose preload imports the explainer stack once. Forkserver, not fork: the dashboard is a
threaded server, and forking a threaded process is unsafe; the forkserver is a clean single-threaded
process started by fork+exec.

One helper per process, shared by every run in it (two dashboard sessions included): the machine this was
built for has 2 cores, so a second helper would only compete for them. Jobs are queued in submission order;
on wide data they are handed to the worker one at a time (:meth:`_Helper.submit`, :class:`HelperRun`), so every
job it has not started can be taken back: a run never waits for another run's queued job, nor for one of its own the worker has not started,
because such a job is taken back by the run that needs it (:class:`~.parallel.ExplainRunner`). The helper keeps
the states (model, data, config and built explainers) of the last :data:`_KEPT_RUNS` runs, so two interleaved runs
do not evict each other.

The cost: one extra process (about 200 MB resident with the explainer libraries loaded; 207 MB peak on the
credit-risk run at the original's defaults) for as long as the dashboard or the CLI process lives.
"""

from __future__ import annotations

import atexit
import gc
import itertools
import logging
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import types
from collections import OrderedDict, deque
from contextlib import contextmanager
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from threadpoolctl import threadpool_limits

from .forkserver_start import ensure_forkserver, usable_cores
from ..models.model_wrapper import HexevalModel
from ..explainers.base import instance_seed
from ..explainers.registry import build_explainer
from ..explainers.render import rendered

log = logging.getLogger(__name__)

#: How often the helper checks that the main process still lives.
_WATCH_SECONDS = 0.5
#: Run states the helper keeps (last used first out).
_KEPT_RUNS = 2


class _Helper:
    """The executor and what is known about its worker (its pid, once the warm-up job returned).

    Jobs wait here (:meth:`submit`) and are handed to the executor one at a time, when its worker has none: a
    ``ProcessPoolExecutor`` moves a job into its call queue (and marks it running, so it can no longer be cancelled)
    as soon as the worker's slot and one spare are free. With the spare, the job behind the running one could not
    be taken back: on wide data that was a whole Anchor search (tens of seconds) the main process waited for with
    nothing left to do. Handed over one at a time, every job the worker has not started can be taken back.
    """

    def __init__(self):
        self.executor: ProcessPoolExecutor | None = None
        self.warm: Future | None = None
        self.launched = threading.Event()
        self.stopped = False  # stop_helper() came while it was starting: shut down once it is up
        self.error: str = ""
        self._waiting: deque = deque()  # (future, fn, args) not handed to the executor yet, in submission order
        self._current: Future | None = None  # the executor's future of the job handed over last
        self._gate = threading.Lock()

    def stopped_by(self, err: BaseException) -> None:
        """Record that the helper died or was shut down (``err``): the next run starts a fresh one."""
        self.error = str(err) or type(err).__name__

    def pid(self) -> int | None:
        warm = self.warm
        if warm is None or not warm.done() or warm.cancelled() or warm.exception() is not None:
            return None
        return warm.result()

    def submit(self, fn, *args, one_at_a_time: bool = True) -> Future:
        """Queue ``fn(*args)`` for the worker; the future can be cancelled until the worker is free to start it.

        ``one_at_a_time=False``: handed to the executor at once, which may start it behind the worker's job (the
        spare slot); a run on narrow data queues its jobs so (:class:`HelperRun`).

        Raises ``BrokenProcessPool`` or ``RuntimeError`` when the job was handed over at once and the executor
        refused it (the helper died or was shut down); a job handed over later gets that error as its answer."""
        if not one_at_a_time:
            return self.executor.submit(fn, *args)
        future = Future()
        with self._gate:
            self._waiting.append((future, fn, args))
        refused = self._feed()
        if future in refused:
            raise refused[future]
        return future

    def _feed(self) -> dict:
        """Give the executor the next waiting job (one not cancelled) unless its worker has one.

        Returns ``{future: error}`` of the jobs the executor refused (each also gets the error as its answer)."""
        refused, handed = {}, None
        with self._gate:
            while handed is None and (self._current is None or self._current.done()):
                if not self._waiting:
                    self._current = None
                    break
                future, fn, args = self._waiting.popleft()
                if not future.set_running_or_notify_cancel():
                    continue  # cancelled while it waited: taken back, or no longer wanted
                try:
                    self._current = self.executor.submit(fn, *args)
                except (BrokenProcessPool, RuntimeError) as err:  # died or shut down: the job's answer is the error
                    self._current = None
                    refused[future] = err
                    continue
                handed = (self._current, future)
        for future, err in refused.items():  # outside the gate: a future's callbacks may queue more work
            future.set_exception(err)
        if handed is not None:
            current, future = handed
            current.add_done_callback(lambda done: self._relay(done, future))
        return refused

    def _relay(self, done: Future, future: Future) -> None:
        """The executor answered a job (``done``): hand the worker the next one, then give ``future`` the answer."""
        self._feed()
        if done.cancelled():  # cancelled by the executor's shutdown after it was handed over
            future.set_exception(CancelledError())
        elif done.exception() is not None:
            future.set_exception(done.exception())
        else:
            future.set_result(done.result())

    def cancel_waiting(self) -> None:
        """Cancel every job not handed to the executor yet (a shutdown)."""
        with self._gate:
            waiting, self._waiting = list(self._waiting), deque()
        for future, _, _ in waiting:
            future.cancel()


_LOCK = threading.Lock()
_STATE = {"helper": None, "atexit": False}  # the process's one helper (a resource, not a setting)
_TOKENS = itertools.count(1)
_LOGGED: set = set()


#: CPU cores this process may run on (its affinity mask, not the machine's core count).
helper_cores = usable_cores


def start_helper(*, background: bool = True) -> None:
    """Start the helper process (and its forkserver) unless one is running or starting.

    ``background``: start it from a daemon thread, so the caller does not wait for the forkserver's imports
    (about 2 s); runs that begin before it is up explain in-process.
    """
    with _LOCK:
        helper = _STATE["helper"]
        if helper is not None and not helper.error:
            return
        helper = _Helper()
        _STATE["helper"] = helper
        if not _STATE["atexit"]:
            atexit.register(stop_helper)
            _STATE["atexit"] = True
    if background:
        threading.Thread(target=_launch, args=(helper,), name="hexeval-helper-start", daemon=True).start()
    else:
        _launch(helper)


def _launch(helper: _Helper) -> None:
    try:
        context = multiprocessing.get_context("forkserver")
        ensure_forkserver()  # the slow part (its imports, unless the CLI started it early), before the moment below
        helper.executor = ProcessPoolExecutor(max_workers=1, mp_context=context)
        with _no_main_script():
            helper.warm = helper.executor.submit(_warm, os.getpid())  # launches the worker now, not at the first job
    except (OSError, ValueError, RuntimeError) as err:  # no forkserver on this platform, no processes left
        helper.error = f"{type(err).__name__}: {err}"
        log_once("start", "The helper process could not start (%s); explaining in-process.", helper.error)
    finally:
        helper.launched.set()
    if helper.stopped:
        _shut(helper)


@contextmanager
def _no_main_script():
    """While the worker is launched: ``__main__`` looks like an interactive session's.

    A new process of a forkserver first runs its parent's main script again (as ``__mp_main__``) unless the
    parent has none. The helper needs nothing from it, and running it again is harmful: the dashboard's
    script (Streamlit runs ``app.py`` as ``__main__``) would draw pages in the helper, a user's script without
    an ``if __name__ == "__main__":`` guard would start its work again. The launch only records what
    ``__main__`` is (a few milliseconds: the forkserver is already up), and the real module is put back at once.
    """
    real = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if real is not None:
            sys.modules["__main__"] = real


def stop_helper() -> None:
    """Shut the helper down without waiting: queued jobs are cancelled and its process is ended."""
    with _LOCK:
        helper = _STATE["helper"]
        _STATE["helper"] = None
    if helper is None:
        return
    helper.stopped = True
    if helper.launched.is_set():  # else the starting thread shuts it down once it is up (never wait for it)
        _shut(helper)


def _shut(helper: _Helper) -> None:
    if helper.executor is None:
        return
    pid = helper.pid()
    helper.cancel_waiting()
    helper.executor.shutdown(wait=False, cancel_futures=True)
    if pid is not None:  # a running job would otherwise keep the interpreter waiting at exit
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass  # it already ended
    if helper.warm is not None and not helper.warm.done():
        helper.warm.cancel()


def helper_pid() -> int | None:
    """The helper worker's process id, once it has started (``None`` before, or with no helper)."""
    helper = _STATE["helper"]
    return helper.pid() if helper is not None else None


def log_once(key: str, message: str, *args) -> None:
    """Log ``message`` at INFO the first time ``key`` comes in this process (one line per reason, not per job)."""
    if key not in _LOGGED:
        _LOGGED.add(key)
        log.info(message, *args)


class HelperRun:
    """One run's connection to the helper: its token and the model, data and config it sent once.

    ``one_at_a_time``: the run's jobs are handed to the worker one at a time (:meth:`_Helper.submit`), so the main
    process can take back every job the worker has not started. :func:`connect` asks for it on wide data, where a
    job is a search of seconds to minutes; on narrow data the executor's spare slot holds a job of a fraction of a
    second, and a run that the main process would take more whole searches back from loses more of its work to an
    interruption (heart, killed at 80 % of the technical stage: 178 pieces kept instead of ~230, the resumed run
    4.5 s instead of 1.6 s)."""

    def __init__(self, helper: _Helper, token: str, loaded: Future | None = None, *, one_at_a_time: bool = True):
        self.helper, self.token, self.loaded = helper, token, loaded
        self.one_at_a_time = one_at_a_time

    def load_error(self) -> str:
        """Why the helper could not load this run's inputs (``""`` while loading or once loaded).

        A model whose class the helper cannot import (defined in the user's main script, or in a module only
        the main process can find) pickles here but not there: the helper's first job tells.
        """
        loaded = self.loaded
        if loaded is None or not loaded.done() or loaded.cancelled():
            return ""
        err = loaded.exception()
        if err is None or isinstance(err, BrokenProcessPool):  # a helper that died is not this run's model's fault
            return ""
        return f"{type(err).__name__}: {err}"

    def call(self, fn, *, one_at_a_time: bool | None = None) -> Future:
        """Queue ``fn(token)``, a module-level function that runs in the helper on this run's inputs
        (:func:`run_inputs`), handed over as the run's jobs are unless ``one_at_a_time`` says otherwise; raises as
        :meth:`submit` does."""
        return self.helper.submit(fn, self.token,
                                  one_at_a_time=self.one_at_a_time if one_at_a_time is None else one_at_a_time)

    def submit(self, method: str, X_raw, ids, classes, probabilities, seeds, render: bool) -> Future:
        """Queue one explanation job; its future holds ``(explanations, model rows, model calls)``.

        Raises ``BrokenProcessPool`` or ``RuntimeError`` when the helper has died or been shut down.
        """
        return self.helper.submit(_explain_job, self.token, method, X_raw, list(ids), classes, probabilities,
                                  list(seeds), render, one_at_a_time=self.one_at_a_time)


def starting() -> bool:
    """Whether the helper is being started (its forkserver importing the explainer stack) and has not failed."""
    helper = _STATE["helper"]
    return helper is not None and not helper.launched.is_set() and not helper.error and not helper.stopped


def connect(model, data, config, *, portable: dict, one_at_a_time: bool = True) -> HelperRun | None:
    """Send a run's model (``portable``: its fields without the lock), data and config to the helper once; its jobs
    are handed to the worker one at a time or not (``one_at_a_time``, see :class:`HelperRun`).

    Returns ``None``, logging why once per reason, when no helper is up yet (it is starting or could not
    start) or the run cannot be sent (a model that cannot be pickled: an ONNX session, a user's estimator
    holding an open handle); the run then explains in-process, exactly as the ``sequential`` backend.
    """
    helper = _STATE["helper"]
    if helper is None or not helper.launched.is_set() or helper.error or helper.executor is None:
        log_once("not-ready", "The helper process is not up yet; this run explains in-process until it is.")
        return None
    try:
        payload = pickle.dumps((portable, data, config), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as err:  # a user's model may raise anything from __reduce__: logged, the run stays here
        log_once(f"pickle:{type(model.estimator).__name__}",
                  "The model (%s) cannot be sent to the helper process (%s: %s); explaining in-process.",
                  type(model.estimator).__name__, type(err).__name__, err)
        return None
    token = f"{os.getpid()}-{next(_TOKENS)}"
    try:
        loaded = helper.submit(_load_run, token, payload, one_at_a_time=one_at_a_time)
    except (BrokenProcessPool, RuntimeError) as err:  # died or shut down: start a fresh one for later runs
        log_once("broken", "The helper process stopped (%s); explaining in-process.", err)
        helper.stopped_by(err)
        start_helper(background=True)  # its replacement starts now, so the next run finds it warm
        return None
    return HelperRun(helper, token, loaded, one_at_a_time=one_at_a_time)


# --- in the helper process -------------------------------------------------------------------------------

_RUNS: OrderedDict = OrderedDict()  # token -> [model, data, config, {method: explainer}, {scratch}] (the helper's cache)


def _warm(main_pid: int) -> int:
    """The first job: the worker is up (its imports came with the forkserver); its pid lets us end it.

    The helper computes on one thread (BLAS and OpenMP): it shares the machine with the main process, and
    idle BLAS workers spin-wait (see :mod:`hexeval_engine.runtime.blas_threads`); the results do not change.
    The objects of the preloaded libraries are frozen out of the garbage collector's full passes (they live as long
    as the helper; see :mod:`hexeval_engine.runtime.gc_freeze`).
    A watchdog ends the helper once the main process is gone (:func:`_watch`): a main process killed outright
    (``kill -9``, the out-of-memory killer) cannot shut it down, and the helper holds the pipes that would tell it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C at a terminal is for the main process, which stops us
    threadpool_limits(limits=1)
    gc.freeze()  # the preloaded libraries live as long as the helper: full collections skip them (runtime.gc_freeze)
    threading.Thread(target=_watch, args=(main_pid,), name="hexeval-helper-watchdog", daemon=True).start()
    return os.getpid()


def _watch(main_pid: int) -> None:
    """End this process once the main process ``main_pid`` has died, checked every :data:`_WATCH_SECONDS`.

    The sign is the pipe the main process launched the helper through: only the main process holds its writing
    end (``multiprocessing.parent_process()``'s sentinel), so its end, however it comes (``kill -9`` included),
    closes it at once, even while the dead process waits to be reaped (a zombie, which ``os.kill(pid, 0)`` still
    finds: a parent reading the output pipes to their end before reaping would wait for the helper for ever).
    Where there is no such pipe, the helper looks for ``main_pid`` itself."""
    parent = multiprocessing.parent_process()
    while True:
        time.sleep(_WATCH_SECONDS)
        if parent is not None:
            if not parent.is_alive():
                os._exit(0)  # nobody is left to take our answers
            continue
        try:
            os.kill(main_pid, 0)
        except ProcessLookupError:
            os._exit(0)  # nobody is left to take our answers
        except PermissionError:
            continue  # the pid exists (owned by another user: reused, but then alive): keep watching


def _load_run(token: str, payload: bytes) -> None:
    """Keep a run's model, data and config (unpickled once) under its token."""
    portable, data, config = pickle.loads(payload)  # sent by this program's own main process (connect)
    _RUNS[token] = [HexevalModel(**portable), data, config, {}, {}]
    while len(_RUNS) > _KEPT_RUNS:
        _RUNS.popitem(last=False)


def run_inputs(token: str) -> tuple:
    """In the helper: the ``(model, data, config)`` a run sent (for :meth:`HelperRun.call`'s functions)."""
    if token not in _RUNS:
        raise LookupError(f"run {token} is not loaded in the helper (evicted by later runs)")
    _RUNS.move_to_end(token)
    return tuple(_RUNS[token][:3])


def run_store(token: str) -> dict:
    """In the helper: a run's scratch dict, for what one :meth:`HelperRun.call` function leaves to a later one
    (the randomisation check's re-fitted model, kept here instead of being sent back and forth)."""
    if token not in _RUNS:
        raise LookupError(f"run {token} is not loaded in the helper (evicted by later runs)")
    return _RUNS[token][4]


def _explain_job(token, method, X_raw, ids, classes, probabilities, seeds, render):
    """Explain one job with the run's cached explainer; returns explanations and the model work it did."""
    if token not in _RUNS:
        raise LookupError(f"run {token} is not loaded in the helper (evicted by later runs)")
    _RUNS.move_to_end(token)
    model, data, config, explainers, _ = _RUNS[token]
    if method not in explainers:
        seed = instance_seed(config.evaluation.random_state, -1, f"{method}:explainer")
        explainers[method] = build_explainer(method, model, data, config, seed=seed)
    rows, calls = model.rows, model.calls
    out = explainers[method].explain(X_raw, ids, classes, probabilities, seeds)
    if render:
        out = rendered(out, X_raw, data, config)
    return out, model.rows - rows, model.calls - calls
