"""Explain rows in-process, with a warm helper process, or spread over joblib workers (loky or dask).

Public interface
----------------
``ExplainRunner(model, data, config)``  context manager; ``runner.explain(method, X_raw, ids, classes,
probabilities, seeds) -> list[Explanation]``; ``runner.worker_rows`` / ``worker_calls`` count the
model work done in other processes.
``ExplainJob(method, X_raw, ids, classes, probabilities, seeds, render)``  one call ``explain`` will get;
``runner.prefetch(jobs)`` announces them in the order they will be asked for and
``runner.work_ahead(..., meanwhile=..., idle=...)`` does the main process's share before the first is asked for (and
calls ``meanwhile()`` once its own jobs are done and again before each job it takes back, and ``idle()`` for a piece of
spare work while it would only wait for the helper's last jobs); ``runner.ready(job)`` gives a
job that is complete, wherever it ran, without waiting; ``runner.helper_lost`` says why the helper could not load
the run (then it is done here).

``evaluation.parallel.backend``:

* ``auto`` (the default) — ``sequential``, plus the warm helper process of :mod:`.helper_pool` when this
  process may use at least 2 cores and the announced GIL-bound work (LIME, Anchor and DiCE rows × LIME's
  ``num_samples``) reaches ``helper_min_work``, or the data is wide (``WIDE_COLUMNS`` feature columns) and holds an
  Anchor or DiCE case (see :func:`helper_worth`). The announced LIME, Anchor and DiCE jobs are queued to the
  helper in the order the run needs them; SHAP (its C routine is fastest in-process) and Random stay on
  the main process, which does them first (``work_ahead``) and then takes back, from the end of the
  queue, every job the helper has not started (work stealing: whichever process is free does the next
  job). When the run asks for a job, one the helper has not started is taken back and run in-process;
  one it runs or ran is waited for. A job the helper failed on (or a helper that died) is re-run
  in-process, so an error looks exactly as in ``sequential``. A run that finds the helper still starting
  (its forkserver importing: a script's first run) explains in-process meanwhile, its own jobs first, then
  the helper's from the end, and once the helper is up queues it every job not started yet (the re-fit
  first, then Anchor and DiCE whole (in parts of 2 cases on data of ``WIDE_COLUMNS`` feature columns or more),
  then LIME's chunks), then takes back from the end as usual.
* ``sequential`` — one explainer per method, built once and reused (Anchor and DiCE pool the
  model calls of all instances, see :mod:`.lockstep`).
* ``loky`` — the rows are split into ``n_jobs`` chunks, each explained in a local worker process.
* ``dask`` — the same chunks go to an existing ``dask.distributed`` cluster
  (``scheduler_address``), submitted through a ``distributed.Client``.

Each row's randomness comes from its own seed (:func:`~.base.instance_seed`), never from the
order or grouping of rows, so every backend gives the same explanations. SHAP always runs
in-process: tree SHAP on a whole batch is faster than shipping it anywhere.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import time
from concurrent.futures import FIRST_COMPLETED, CancelledError, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..models.model_wrapper import HexevalModel
from . import helper_pool
from ..explainers.base import instance_seed
from ..explainers.registry import build_explainer, enabled_methods, spec_of
from ..explainers.render import rendered

log = logging.getLogger(__name__)

#: Rows per helper job of a method that explains case by case (LIME; finer jobs balance the two processes
#: better); methods that pool their model calls over a whole job (Anchor, DiCE) go whole, except on wide data.
_CHUNK = 25
#: Data with at least this many feature columns is *wide*: there a pooled job (Anchor, DiCE) goes to the helper
#: in parts of ``_POOLED_PART`` cases, so the main process can take parts back and both processes search. Pooling
#: pays when a model call costs mostly its fixed overhead (heart, credit risk: ~1-4 ms a call whatever its ~200
#: rows); on 300 columns a pooled Anchor call carries ~400 rows of 300 values per search and costs mostly
#: per row (the rows must be built, preprocessed and predicted), so pooling fewer searches saves little and
#: two processes halve the time. Every search has its own seed, so the explanations do not depend on the parts
#: (:mod:`.lockstep`); only the informational ``pooled_model_calls``/``pooled_instances`` count a part's.
WIDE_COLUMNS = 100
_POOLED_PART = 2


@dataclass
class ExplainJob:
    """One ``runner.explain`` call announced in advance (same arguments)."""

    method: str
    X_raw: pd.DataFrame
    ids: list
    classes: np.ndarray
    probabilities: np.ndarray
    seeds: list
    render: bool = True
    purpose: str = ""  # what the caller does with the answer ("noise", "rerun"); not part of the key
    _digest: tuple | None = field(default=None, init=False, repr=False, compare=False)
    _rows: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    def key(self) -> tuple:
        """What identifies the call: method, cases, seeds, rendering and a digest of the rows' values.

        Computed once (hashing the rows cost ~0.1 s per credit run when :meth:`ExplainRunner.ready` asked again
        and again); a job's rows are not changed after it is made."""
        if self._digest is None:
            self._digest = _key_of(self.method, self.row_hashes(), self.ids, self.seeds, self.render)
        return self._digest

    def row_hashes(self) -> np.ndarray:
        """pandas' hash of each row (of its values and dtypes, ``hash_pandas_object``), worked out once: the run's
        store keys its cases with them too. :func:`hash_rows_together` and the jobs cut from this one (a chunk, the
        cases not stored) hand them in instead."""
        if self._rows is None:
            self._rows = pd.util.hash_pandas_object(self.X_raw, index=False).to_numpy()
        return self._rows

    def cut(self, positions) -> "ExplainJob":
        """The call for the cases at ``positions`` (in that order), its rows' hashes taken from this job's when
        known."""
        positions = list(positions)
        part = ExplainJob(self.method, self.X_raw.iloc[positions].reset_index(drop=True),
                          [self.ids[k] for k in positions], np.asarray(self.classes)[positions],
                          np.asarray(self.probabilities)[positions], [self.seeds[k] for k in positions], self.render,
                          self.purpose)
        if self._rows is not None:
            part._rows = self._rows[positions]
        return part


def hash_rows_together(jobs: list) -> None:
    """Work out the rows' hashes of the jobs not hashed yet, in one pass for the jobs alike in columns and dtypes
    (a row's hash depends on its values and dtypes alone, so each job gets what it would alone; pandas' fixed cost
    per column and call was most of the hashing of a bundled run's ~40 small calls)."""
    alike: dict[tuple, list] = {}
    for job in jobs:
        if job._rows is None and len(job.X_raw):
            alike.setdefault(_layout(job.X_raw), []).append(job)
    for layout, same in alike.items():
        if len(same) < 2:
            continue
        stacked = pd.concat([job.X_raw for job in same], ignore_index=True)
        if _layout(stacked) != layout:  # stacking changed a dtype: each job hashes its own rows when asked
            continue
        rows = pd.util.hash_pandas_object(stacked, index=False).to_numpy()
        start = 0
        for job in same:
            job._rows, start = rows[start:start + len(job.X_raw)], start + len(job.X_raw)


def _layout(frame: pd.DataFrame) -> tuple:
    """A frame's column names and dtypes."""
    return tuple(str(c) for c in frame.columns), tuple(frame.dtypes)


@dataclass
class _Part:
    """A slice of an announced job: queued to the helper (``future``) or done here (``result``/``error``)."""

    job: ExplainJob
    future: object = None
    result: list | None = None
    error: Exception | None = None
    reported: bool = False
    chunked: bool = False  # a slice of a job whose method explains case by case (LIME), not a whole pooled job

    @property
    def done(self) -> bool:
        """Explained (or failed) already, here or taken in from the helper."""
        return self.result is not None or self.error is not None


@dataclass
class _Ahead:
    job: ExplainJob
    parts: list = field(default_factory=list)


def _per_row(on_instance):
    """``on_instance()`` as the ``step(job)`` :meth:`ExplainRunner._do_here` calls per row (``None`` stays ``None``)."""
    return (lambda _job: on_instance()) if on_instance is not None else None


def _cancel_queued(parts, *, forget: bool = False) -> None:
    """Cancel the helper's queued jobs among ``parts`` (a running one finishes unread); ``forget``: the parts
    no longer point at them, so they are done here when asked for."""
    for part in parts:
        if part.future is not None:
            part.future.cancel()
            if forget:
                part.future = None


def take_back(futures: list, redo) -> None:
    """Work stealing from the helper's queue: walk ``futures`` (queued to the helper in this order) from the end,
    cancel each job the helper has not started and call ``redo(k)`` to do job ``k`` here instead; stop at the
    first job it runs or ran (the helper takes jobs in order, so it started every job before that one too)."""
    for k in reversed(range(len(futures))):
        if not futures[k].cancel():
            break
        redo(k)


def _until_answered(futures: list, meanwhile, idle=None) -> None:
    """After the take-back walk, the helper still runs the job it had started (on wide data its jobs are handed to its
    worker one at a time, so every other one was taken back; on narrow data also the one the executor queued behind
    it, ~0.2 s of LIME on credit risk). Call ``meanwhile()`` each time one of ``futures`` is answered, so the
    main process measures what that made possible (e.g. the claim-scoped metrics, once the last of the cases is in)
    instead of waiting for all of them first.

    ``idle()``, when given, does one piece of spare work and says whether it did any; it is called while none of
    ``futures`` is answered, so the main process works instead of waiting (one piece at a time: an answer that comes
    meanwhile waits for that piece only)."""
    pending = [f for f in futures if not f.done()]
    while pending:
        if idle is not None and idle():
            left = [f for f in pending if not f.done()]
            if len(left) < len(pending):
                meanwhile()
            pending = left
            continue
        _, waiting = wait(pending, return_when=FIRST_COMPLETED)
        pending = list(waiting)
        meanwhile()


def _whole_jobs_first(parts: list) -> list:
    """The order parts are queued to the helper: whole jobs (Anchor, DiCE) first, then LIME's chunks of noisy
    copies and re-runs, then LIME's chunks of the cases, each in announcement order.

    The main process takes back from the end of the queue, and the helper has started every job before the one it
    runs. A whole job queued among the chunks was waited for whole (credit risk: DiCE's 0.12 s with nothing else to
    do), and what is measured from it waited for the end of the explanations, when the helper has nothing left to
    do: its metrics, and the claim-scoped metrics of all methods (0.3 s), which need every method's cases. Queued
    first, Anchor and DiCE are done while the main process explains its own share; with LIME's cases at the end,
    the main process takes them back first. Every method's cases are then explained early: the claim-scoped
    metrics are measured while the helper works, and the sanity check's re-explanations join its queue early."""
    return sorted(parts, key=lambda p: (p.chunked, p.chunked and not p.job.purpose))


def _key_of(method, rows: np.ndarray, ids, seeds, render) -> tuple:
    """:meth:`ExplainJob.key` from the rows' hashes."""
    values = hashlib.sha1(rows.tobytes()).hexdigest()  # tobytes: C order whatever the array's layout
    return method, tuple(int(i) for i in ids), tuple(int(s) for s in seeds), bool(render), values


class ExplainRunner:
    """Runs explainers with the configured backend; reuses in-process explainers across calls.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
    """

    def __init__(self, model, data, config):
        self.model, self.data, self.config = model, data, config
        self.parallel = config.evaluation.parallel
        self.worker_rows = 0
        self.worker_calls = 0
        self._explainers: dict = {}
        self._client = None
        self._helper = None  # helper_pool.HelperRun once announced jobs go to the helper
        #: announced jobs (parts) the helper did, and those the main process took back or re-ran
        self.jobs_in_helper = 0
        self.jobs_here = 0
        self.seconds_waiting = 0.0  # the main process waiting for the helper's answers
        self._ahead: dict = {}  # ExplainJob.key() -> _Ahead, in announcement order
        self._queued: list = []  # the parts queued to the helper, in the order they were queued
        self._calls: list = []  # helper_call futures: the caller takes them after the runner closes
        #: why the helper could not load this run (its model's class cannot be imported there): the rest is done here
        self.helper_lost = ""
        #: the helper was starting when the jobs were announced: they are handed to it once it is up (work_ahead)
        self._late = False
        self._late_first: tuple = ()  # prefetch's ``first`` functions, queued at the hand-over
        #: futures of prefetch's ``first`` functions queued late (at the hand-over), in their order
        self.late_calls: list = []

    def __enter__(self) -> "ExplainRunner":
        if self.parallel.backend == "dask":
            try:
                from distributed import Client  # optional extra (dask): loaded only for the dask backend
            except ImportError as err:
                raise ConfigError("evaluation.parallel.backend is 'dask' but dask.distributed is not installed. "
                                  "Install it with `pip install hexeval[dask]` or use 'sequential'/'loky'.") from err
            try:
                self._client = Client(self.parallel.scheduler_address, timeout=10)
            except OSError as err:
                raise ConfigError(f"Cannot reach the dask scheduler at {self.parallel.scheduler_address!r}: {err}. "
                                  "Start the cluster, fix evaluation.parallel.scheduler_address, or use "
                                  "backend 'sequential'.") from err
        return self

    def __exit__(self, *exc) -> None:
        if self._helper is not None:
            log.debug("helper: %d jobs done there, %d taken back; %.2f s waiting for it", self.jobs_in_helper,
                      self.jobs_here, self.seconds_waiting)
        for ahead in self._ahead.values():  # an interrupted or failed run leaves nothing queued behind it
            _cancel_queued(ahead.parts)
        self._ahead.clear()
        if exc and exc[0] is not None:  # helper_call work too, once nobody will take it
            for future in self._calls:
                future.cancel()
        self._calls.clear()
        if self._client is not None:
            self._client.close()
            self._client = None

    @property
    def uses_helper(self) -> bool:
        """Whether announced jobs went to the helper process (and it has not lost the run since)."""
        return self._helper is not None and not self.helper_lost

    @property
    def awaits_helper(self) -> bool:
        """Whether the announced jobs wait for a helper that was still starting (:meth:`work_ahead` hands them over
        once it is up, doing them here meanwhile)."""
        return self._late

    def _lost(self) -> bool:
        """Whether the helper could not load this run's inputs; found once per run, logged once per reason.

        Then every job still queued there is cancelled and the run is done here, job by job as it is asked for
        (each queued job would fail there in turn: a class from the user's main script, say).
        """
        if self.helper_lost:
            return True
        reason = self._helper.load_error() if self._helper is not None else ""
        if not reason:
            return False
        self.helper_lost = reason
        helper_pool.log_once(f"load:{reason}", "The helper process could not load the model (%s); this run is "
                             "explained in-process.", reason)
        for ahead in self._ahead.values():
            _cancel_queued(ahead.parts, forget=True)
        for future in self._calls:
            future.cancel()
        return True

    def in_helper(self, method: str) -> bool:
        """Whether ``method``'s jobs may go to the helper process (its spec's ``runs_in_helper``: GIL-bound
        Python; SHAP's tree routine is fastest in-process, Random cheap)."""
        return spec_of(method, self.config).runs_in_helper

    def prefetch(self, jobs: list, *, first: tuple = (), whole_run: bool = False) -> list:
        """Announce the ``explain`` calls to come, in the order they will come (``auto`` backend only).

        The LIME, Anchor and DiCE jobs are queued to the helper if it is worth it (see the module notes);
        the others are done by :meth:`work_ahead`. Any other backend, or a run the helper cannot take,
        ignores the announcement and explains each call when it comes.

        ``first``: functions queued to the helper before the jobs, as :meth:`helper_call` queues them (work the
        main process could not take back, such as the sanity check's re-fit: done first, it overlaps the main
        process's own share instead of ending the run). Returns their futures (``[]`` when the helper is not
        used).

        ``whole_run``: some of the run's calls were answered already (stored by an interrupted run, see
        :class:`~hexeval_engine.runs.checkpoints.StoredRunner`); the helper is then judged by the whole run's work,
        as it was for the run that stored them, so what is left of it (and ``first``, the check's work) is shared
        between both processes as it would have been, not done in this one because little of it is left.
        """
        rows = sum(len(j.ids) for j in jobs if self.in_helper(j.method))
        columns = len(self.data.feature_names)
        if whole_run:
            worth = bool(rows or first) and helper_worth(self.config, columns=columns)
        else:
            searches = sum(len(j.ids) for j in jobs
                           if self.in_helper(j.method) and spec_of(j.method, self.config).pools_model_calls)
            worth = helper_worth(self.config, rows, columns=columns, searches=searches)
        if not worth:
            return []
        helper_pool.start_helper(background=True)  # a no-op when it runs; if it was not, later runs find it warm
        self._helper = helper_pool.connect(self.model, self.data, self.config, portable=_portable(self.model),
                                           one_at_a_time=self._wide())
        if self._helper is None:
            if helper_pool.starting():  # its forkserver is still importing: handed over once it is up (work_ahead)
                self._late, self._late_first = True, tuple(first)
                self._announce(jobs)
            return []
        calls = [f for f in (self.helper_call(fn) for fn in first) if f is not None]
        self._announce(jobs)
        return calls

    def _announce(self, jobs: list) -> None:
        """Record the announced jobs as parts (LIME in chunks); queue the helper's parts when it is connected (whole
        jobs first, see :func:`_whole_jobs_first`)."""
        new = []
        hash_rows_together(jobs)
        for job in jobs:
            ahead = self._ahead.setdefault(job.key(), _Ahead(job))
            if ahead.parts:
                continue  # announced twice: one answer serves both
            if not self.in_helper(job.method):
                ahead.parts.append(_Part(job))
                continue
            whole = spec_of(job.method, self.config).pools_model_calls
            size = (_POOLED_PART if self._wide() else len(job.ids) or 1) if whole else _CHUNK
            for start in range(0, len(job.ids), size):
                part = _Part(_slice(job, start, start + size), chunked=not whole)
                ahead.parts.append(part)
                new.append(part)
        if self._helper is not None:
            for part in _whole_jobs_first(new):
                self._submit(part)

    def _wide(self) -> bool:
        """Whether the data is wide (``WIDE_COLUMNS``): pooled jobs then go to the helper in parts."""
        return len(self.data.feature_names) >= WIDE_COLUMNS

    def _submit(self, part: _Part) -> None:
        self._queued.append(part)
        try:
            part.future = self._helper.submit(part.job.method, part.job.X_raw, part.job.ids, part.job.classes,
                                              part.job.probabilities, part.job.seeds, part.job.render)
        except (BrokenProcessPool, RuntimeError) as err:  # died or shut down meanwhile
            log.warning("The helper process stopped (%s); the rest is explained in-process.", err)
            self._helper.helper.stopped_by(err)

    def _hand_over(self) -> None:
        """A run that found its helper starting: once it is up, connect and queue to it prefetch's ``first``
        functions, then every LIME, Anchor and DiCE part not done here yet (Anchor and DiCE first, then LIME's chunks,
        each in announcement order); the main process then takes back from the end as usual. A helper that failed
        to start leaves the run in-process."""
        if not self._late or helper_pool.starting():
            return
        self._late = False
        self._helper = helper_pool.connect(self.model, self.data, self.config, portable=_portable(self.model),
                                           one_at_a_time=self._wide())
        if self._helper is None:
            return
        helper_pool.log_once("late", "The helper process came up during a run; it takes the jobs not started yet.")
        self.late_calls = [f for f in (self.helper_call(fn) for fn in self._late_first) if f is not None]
        left = [p for a in self._ahead.values() for p in a.parts
                if self.in_helper(p.job.method) and not p.done]
        for part in _whole_jobs_first(left):
            self._submit(part)

    def helper_call(self, fn, *, one_at_a_time: bool | None = None):
        """A future of ``fn(token)`` run in the helper after the announced jobs (see
        :meth:`~.helper_pool.HelperRun.call`), or ``None`` when this run does not use the helper.

        ``one_at_a_time``: hand it to the worker only when it has no job of this kind (``None``: as the run's jobs
        are handed over), so that the main process can take it back until the worker starts it."""
        if self._helper is None or self._lost():
            return None
        try:
            future = self._helper.call(fn, one_at_a_time=one_at_a_time)
            self._calls.append(future)
            return future
        except (BrokenProcessPool, RuntimeError) as err:
            log.warning("The helper process stopped (%s); that work is done in-process.", err)
            return None

    def work_ahead(self, *, on_instance=None, charge=None, meanwhile=None, idle=None) -> None:
        """Do the main process's share of the announced jobs before the first is asked for.

        First the jobs kept in-process (SHAP, Random), in order; then, from the end of the helper's queue,
        every job it has not started (taken back and done here). ``on_instance(job)`` is called per
        explained row of ``job``; ``charge(method)`` is a context manager that times the work (a method's
        clock). An error is kept and raised when the job is asked for, where the sequential backend would
        raise it. ``meanwhile()`` is called once the jobs kept in-process are done, again before each job taken
        back and once after the last: the caller does the work that became possible (measuring what is
        complete, see :meth:`ready`). Work done there is work the main process does not leave for the end of
        the run, and the helper keeps the jobs the main process had no time to take back: the two processes
        finish closer together. ``idle()`` does one piece of spare work (see :func:`_until_answered`) while the main
        process would only wait for the helper's last jobs.
        """
        if self._helper is None and not self._late:
            return
        parts = [p for a in self._ahead.values() for p in a.parts]
        for part in [p for p in parts if p.future is None and not (self._late and self.in_helper(p.job.method))]:
            self._do_here(part, on_instance, charge)
            self._hand_over()
        if meanwhile is not None:
            meanwhile()
        while self._late:  # the helper is still starting: its jobs are done here from the end meanwhile
            left = [p for p in parts if p.future is None and not p.done]
            if not left:
                self._late = False
                break
            self._do_here(left[-1], on_instance, charge)
            if meanwhile is not None:
                meanwhile()
            self._hand_over()
        if self._helper is None or self._lost():
            return  # its jobs are done here as they are asked for
        queued = [p for p in self._queued if p.future is not None]

        def here(k: int) -> None:
            self._do_here(queued[k], on_instance, charge)
            if meanwhile is not None:
                meanwhile()

        take_back([p.future for p in queued], here)  # a job ready() took in meanwhile is done: the walk stops there
        if meanwhile is not None:
            _until_answered([p.future for p in queued if not p.done and p.future is not None], meanwhile, idle)

    def ready(self, job: ExplainJob) -> list | None:
        """The explanations of an announced ``job`` if every part of it is complete without error, here or in the
        helper (the same objects :meth:`explain` will return for it), else ``None``; never waits. A part the
        helper finished is taken in now (its answer checked as :meth:`explain` checks it)."""
        ahead = self._ahead.get(job.key())
        if ahead is None:
            return None
        for part in ahead.parts:
            if part.done:
                continue
            future = part.future
            if future is None or not future.done() or future.cancelled() or future.exception() is not None:
                return None
            self._finish(part, None)
        if any(p.result is None or p.error is not None for p in ahead.parts):
            return None
        return [e for p in ahead.parts for e in p.result]

    def _do_here(self, part: _Part, on_instance, charge) -> None:
        job = part.job
        step = (lambda: on_instance(job)) if on_instance is not None else None
        try:
            if charge is not None:
                with charge(job.method):
                    part.result = self._in_process(job, step)
            else:
                part.result = self._in_process(job, step)
        except Exception as err:  # kept and raised where the sequential backend would raise it
            part.error = err
        self.jobs_here += part.future is not None
        part.reported = step is not None
        part.future = None

    def _in_process(self, job: ExplainJob, on_instance) -> list:
        explainer = self.explainer(job.method)
        if _reports_progress(explainer):
            out = explainer.explain(job.X_raw, job.ids, job.classes, job.probabilities, job.seeds,
                                    on_instance=on_instance)
        else:  # a plugin with the plain interface (docs/plugins.md): its cases are counted once it answers
            out = explainer.explain(job.X_raw, job.ids, job.classes, job.probabilities, job.seeds)
            for _ in range(len(out) if on_instance is not None else 0):
                on_instance()
        return rendered(out, job.X_raw, self.data, self.config) if job.render else out

    def _collect(self, ahead: _Ahead, on_instance) -> list:
        """The announced job's explanations: done here, waited for, or taken back from the helper."""
        out = []
        try:
            for part in ahead.parts:
                if not part.done:
                    if part.future is not None and not self._lost():
                        self._finish(part, on_instance)
                    else:  # the helper lost the run: its job is done here
                        self._do_here(part, _per_row(on_instance), None)
                if part.error is not None:
                    raise part.error
                if not part.reported and on_instance is not None:
                    for _ in part.result:
                        on_instance()
                out.extend(part.result)
        except BaseException:  # an error, Stop or Ctrl-C: the job's other parts are not wanted any more
            _cancel_queued(ahead.parts)
            raise
        return out

    def _finish(self, part: _Part, on_instance) -> None:
        if part.future.cancel():  # not started: take it back
            self._do_here(part, _per_row(on_instance), None)
            return
        try:
            waited = time.perf_counter()
            try:
                result, rows, calls = part.future.result()
            finally:
                self.seconds_waiting += time.perf_counter() - waited
        except CancelledError:
            log.warning("A %s job queued to the helper process was cancelled; explaining it in-process.",
                        part.job.method)
        except BrokenProcessPool as err:
            log.warning("The helper process stopped (%s); explaining %s in-process.", err, part.job.method)
            self._helper.helper.stopped_by(err)
        except Exception:  # re-run here, so the error (if it recurs) is recorded as the sequential path records it
            if self._lost():  # logged once; the job is redone here like the rest of the run
                self._do_here(part, _per_row(on_instance), None)
                return
            log.warning("A %s job failed in the helper process; re-running it in-process.", part.job.method,
                        exc_info=True)
        else:
            self.worker_rows += rows
            self.worker_calls += calls
            got = [int(e.instance_id) for e in result]
            if got == [int(i) for i in part.job.ids]:
                self.jobs_in_helper += 1
                part.result, part.future = result, None
                return
            log.error("A %s job came back from the helper process for other cases (%s… instead of %s…); "
                      "explaining it in-process.", part.job.method, got[:3], list(part.job.ids)[:3])
        self._do_here(part, _per_row(on_instance), None)

    def explainer(self, method: str):
        """The in-process explainer for ``method`` (built on first use)."""
        if method not in self._explainers:
            seed = instance_seed(self.config.evaluation.random_state, -1, f"{method}:explainer")
            self._explainers[method] = build_explainer(method, self.model, self.data, self.config, seed=seed)
        return self._explainers[method]

    def explain(self, method: str, X_raw, instance_ids, classes, probabilities, seeds, *, on_instance=None,
                render: bool = True) -> list:
        """Explanations of ``X_raw``'s rows (labelled ``instance_ids``), rendered to text.

        ``on_instance()`` is called once per explained row (per finished chunk on loky/dask).
        ``render=False`` skips the texts, for explanations only metrics read (noisy copies, re-runs).
        """
        return self.explain_job(ExplainJob(method, X_raw, instance_ids, classes, probabilities, seeds, render),
                                on_instance=on_instance)

    def explain_job(self, job: ExplainJob, *, on_instance=None) -> list:
        """:meth:`explain` of the call ``job`` (an announced call is found by the rows' hashes the job knows)."""
        n = len(job.ids)
        if n == 0:
            return []
        if self._ahead:
            ahead = self._ahead.pop(job.key(), None)
            if ahead is not None:
                return self._collect(ahead, on_instance)
        if self.parallel.backend in ("sequential", "auto") or spec_of(job.method, self.config).in_process_only \
                or n == 1:
            return self._in_process(job, on_instance)
        out = self._distributed(job.method, job.X_raw, list(job.ids), np.asarray(job.classes),
                                np.asarray(job.probabilities), list(job.seeds), job.render)
        if on_instance is not None:
            for _ in out:
                on_instance()
        return out

    def _distributed(self, method, X_raw, ids, classes, probabilities, seeds, render) -> list:
        from joblib import Parallel, delayed, parallel_config  # only the dask backend uses joblib here

        chunks = [c for c in np.array_split(np.arange(len(ids)), min(self.parallel.n_jobs, len(ids))) if len(c)]
        payload = _portable(self.model)
        tasks = [delayed(_explain_chunk)(method, payload, self.data, self.config, X_raw.iloc[c].reset_index(drop=True),
                                         [ids[i] for i in c], classes[c], probabilities[c], [seeds[i] for i in c],
                                         render)
                 for c in chunks]
        if self.parallel.backend == "dask":
            # Submitted directly: joblib's dask backend scatters large arguments from the event
            # loop, which fails when the cluster's workers live in this process (processes=False).
            futures = [self._client.submit(fn, *args, pure=False, **kwargs) for fn, args, kwargs in tasks]
            results = self._client.gather(futures)
        else:
            with parallel_config(backend="loky", n_jobs=self.parallel.n_jobs):
                results = Parallel()(tasks)
        out = []
        for explanations, rows, calls in results:
            out.extend(explanations)
            self.worker_rows += rows
            self.worker_calls += calls
        return out


def _explain_chunk(method, payload, data, config, X_raw, ids, classes, probabilities, seeds, render=True):
    """Worker task: rebuild the model, explain a chunk, return explanations and model work done."""
    model = HexevalModel(**payload)
    seed = instance_seed(config.evaluation.random_state, -1, f"{method}:explainer")
    explainer = build_explainer(method, model, data, config, seed=seed)
    out = explainer.explain(X_raw, ids, classes, probabilities, seeds)
    return (rendered(out, X_raw, data, config) if render else out), model.rows, model.calls


def _portable(model) -> dict:
    """The model's fields without its lock (locks cannot be sent to other processes)."""
    return {"estimator": model.estimator, "preprocessor": model.preprocessor, "feature_names": model.feature_names,
            "threshold": model.threshold, "class_labels": model.class_labels, "source": model.source,
            "kind": model.kind, "sha256": model.sha256, "input_codes": model.input_codes}


def helper_worth(config, rows: int | None = None, *, columns: int = 0, searches: int | None = None) -> bool:
    """Whether backend ``auto`` hands work to the helper process: this process may use 2 cores and the
    GIL-bound rows (LIME, Anchor and DiCE; ``rows``, or estimated from ``config``) × LIME's ``num_samples``
    reach ``evaluation.parallel.helper_min_work``, or the data is wide (``columns`` feature columns, at least
    :data:`WIDE_COLUMNS`) and there is a search to do (an Anchor or DiCE case: ``searches``, or estimated from
    ``config``). On wide data every search is seconds of work (a 300-column Anchor case ~14 CPU s, a DiCE case ~3 s
    on a 2-core machine of 2026), while the rows × samples estimate stays that of a narrow run (sample size 10:
    45,000, below the 50,000 that keeps small narrow runs in one process), so a run whose searches cost minutes
    kept them all in one process."""
    ev = config.evaluation
    if ev.parallel.backend != "auto" or helper_pool.helper_cores() < 2:
        return False
    if rows is None or searches is None:
        n = ev.sample_size
        lime = ev.explainers.lime
        specs = [spec_of(m, config) for m in enabled_methods(config)]
        if searches is None:
            searches = sum(s.cap(config, n) for s in specs if s.runs_in_helper and s.pools_model_calls)
        if rows is None:
            rows = sum(s.cap(config, n) for s in specs if s.runs_in_helper)
            if lime.stability_test and lime.enabled:
                rows += min(lime.stability_subset, n) * ev.stability.repeats * (1 + bool(lime.seed_reruns))
    if columns >= WIDE_COLUMNS and searches > 0:
        return True
    work = rows * ev.explainers.lime.num_samples
    return work > 0 and work >= ev.parallel.helper_min_work


def _reports_progress(explainer) -> bool:
    """Whether ``explain`` takes ``on_instance`` (the built-in explainers do; a plugin need not)."""
    try:
        return "on_instance" in inspect.signature(explainer.explain).parameters
    except (TypeError, ValueError):  # a callable whose signature cannot be read: call it the plain way
        return False


def _slice(job: ExplainJob, start: int, stop: int) -> ExplainJob:
    if start == 0 and stop >= len(job.ids):
        return job
    return job.cut(range(start, min(stop, len(job.ids))))
