"""The randomisation check's re-explanations the main process does while it would only wait for the helper.

With the helper process on narrow data, the helper searches Anchor's and DiCE's cases whole (their model calls are
pooled over every case), and once the main process has explained its own share and measured what is complete it
has nothing to do until those searches come back: on heart ~1.3 s of a 4 s run, on credit risk ~4 s of 9 s. The check's
re-explanations (:mod:`.sanity`) were queued to the helper only after that, behind the searches, and an interrupted
run had kept almost none of them.

Here the main process does them in that wait, one job at a time (:class:`SpareReruns`, called by the runner between
checks of the helper's answers): SHAP's, LIME's and Random's as soon as the helper's re-fit has come back, Anchor's
once its real searches have (their request caps come from them), DiCE's on the cases it expects to compare. Each
answer is kept where the check looks first (:class:`~.check_pieces.CheckPieces`: this run's memory, and the stored
pieces, so an interrupted run keeps it), and :func:`~.sanity.queue_reruns` queues the helper only the rest.

The cases are those the check will compare if every method explains every case it is given (the usual outcome):
the first ``evaluation.sanity.randomisation_cases`` of the sample's shared part. A job is keyed by its method, cases,
rows and caps exactly as the check keys its own, so a wrong guess (a method that failed on a case changes the shared
cases; a DiCE case whose real search failed is not compared) only leaves an answer the check never asks for; the
check then re-explains what it needs as it would have. Every answer is the one the helper or the check would give:
the same re-fit (the helper's, copied here), cases, seeds and caps, one fresh sequential explainer per job.
"""

from __future__ import annotations

import logging

from ..explainers.registry import spec_of
from ..plain_values import describe_error
from .class_groups import case_groups

log = logging.getLogger(__name__)


class SpareReruns:
    """One job of the check's re-explanations per call, while the main process waits for the helper.

    Parameters
    ----------
    runner : ExplainRunner or StoredRunner
        The group's runner (its model, data and config are the helper's run inputs).
    sample : Sample
        The group's sample (the whole sample: a binary model).
    jobs : list of ExplainJob
        The announced jobs of the sample's cases, one per method (the real explanations come from them).
    work : Work
        ``work.randomised_fit`` (the helper's re-fit), ``work.randomised_reruns`` (queued: then nothing is left to
        do here), ``work.checks`` (where answers are kept), ``work.failed``.
    """

    def __init__(self, runner, sample, jobs: list, work):
        self.runner, self.sample, self.work = runner, sample, work
        self.jobs = {job.method: job for job in jobs}
        self.tried: set = set()  # keys done (or failed) here: never tried twice
        self._randomised = None  # the randomised model, built once the re-fit is here (False: it could not be)
        self._group = None  # its case group of the cases expected now
        self.done_here = 0

    def wanted(self) -> bool:
        """Whether this run's check may use re-explanations done here (a binary model whose re-fit goes to the
        helper; narrow data, where one job is a fraction of a second: on wide data a search re-run can take
        longer than the helper has left, and the helper's answers would wait for it)."""
        from .sanity import WIDE_RERUN_COLUMNS  # noqa: PLC0415 (sanity imports this module's users)

        config = self.runner.config
        return (config.evaluation.sanity.randomisation_check and self.work.randomised_fit is not None
                and len(self.runner.data.feature_names) < WIDE_RERUN_COLUMNS)

    def __call__(self) -> bool:
        """Do one re-explanation whose inputs are here; False when there is none (yet)."""
        if self.work.randomised_reruns or not self.wanted():
            return False  # queued to the helper already: the check shares them out
        group = self._randomised_group()
        if group is None:
            return False
        for key in self._keys():
            if key in self.tried or self.work.checks.reruns(key, counted=False) is not None:
                continue
            self.tried.add(key)
            self._redo(group, key)
            return True
        return False

    def _randomised_group(self):
        """The randomised model's case group of the cases the check is expected to compare (rebuilt when a
        failure seen meanwhile changes them), or None while the re-fit is not here (or when it failed)."""
        if self._randomised is None:
            fit = self.work.randomised_fit
            if not fit.done() or fit.cancelled() or fit.exception() is not None:
                return None
            from .sanity import _randomised_model  # noqa: PLC0415

            self._randomised, _ = _randomised_model(self.runner.model, self.runner.data, self.runner.config,
                                                    fitted=fit.result())
            self._randomised = self._randomised or False  # None: nothing to re-explain here (the check says why)
        if self._randomised is False:
            return None
        ids = self._ids()
        if self._group is None or list(self._group.ids) != ids:
            groups = case_groups(self._randomised, self.runner.data, self.runner.config, ids)
            if len(groups) != 1:  # one group only for a binary model, the one case this applies to
                self._randomised = False
                return None
            self._group = groups[0]
        return self._group

    def _ids(self) -> list[int]:
        """The check's cases if every method explains every case it is given, minus the cases a method is known
        to have failed on so far."""
        sample, config = self.sample, self.runner.config
        methods = [m for m in sample.methods if m not in self.work.failed]
        if not methods:
            return []
        failed = {int(e.instance_id) for job in self.jobs.values() for e in (self.runner.ready(job) or [])
                  if not e.ok}
        n = min(sample.counts[m] for m in methods)
        ids = [int(i) for i in sample.ids[:n] if int(i) not in failed]
        return ids[:config.evaluation.sanity.randomisation_cases]

    def _keys(self) -> list[tuple]:
        """The check's job keys whose inputs are here, in the order it would queue them (searches last here: the
        others are ready first)."""
        from .sanity import SEARCH_CASES, _rerun_plan, rerun_factor, rerun_parts  # noqa: PLC0415

        config, group = self.runner.config, self._group
        ids = list(group.ids)
        if not ids:
            return []
        searched = set(ids[:SEARCH_CASES])
        factor = rerun_factor(self.runner.data)
        keys = []
        methods = [m for m in self.sample.methods if m not in self.work.failed and spec_of(m, config).randomisable]
        for method in sorted(methods, key=lambda m: spec_of(m, config).pools_model_calls):
            spec = spec_of(method, config)
            real = self._real(method)
            if real is None:
                if spec.bounded_reruns or not spec.pools_model_calls:
                    continue  # caps (Anchor) need the real searches; the others are explained before the wait
                # DiCE: its cases are re-searched as if each real search succeeds (a failed one is not compared)
                real = _expected
            plan = _rerun_plan(real, method, ids, searched, config, factor)
            if plan is None:
                continue
            keys += [(method, tuple(ids), tuple(rows), caps) for rows, caps in rerun_parts(plan, spec.pools_model_calls)]
        return keys

    def _real(self, method: str):
        job = self.jobs.get(method)
        answer = self.runner.ready(job) if job is not None else None
        if answer is None:
            return None
        by_case = {int(e.instance_id): e for e in answer}
        return lambda _m, i: by_case.get(int(i))

    def _redo(self, group, key: tuple) -> None:
        from .sanity import _redone  # noqa: PLC0415

        method, _, rows, caps = key
        try:
            answer = _redone(group, self.runner.data, method, list(rows), caps, self.runner.config)
        except Exception as err:  # the check re-explains it and records the error as it always does
            log.info("The randomisation check's %s re-explanation is left to the check (%s)", method,
                     describe_error(err))
            return
        self.work.checks.keep_reruns(key, answer)
        self.done_here += 1


class _Expected:
    """A real explanation taken to have succeeded (``ok``), for planning a re-search before the real one is back."""

    ok = True
    extra: dict = {}


def _expected(_method, _instance_id):
    return _Expected
