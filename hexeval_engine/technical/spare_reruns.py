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
from . import sanity  # the check's own planning and re-explaining, through its module (one place to look)

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

    def wanted(self) -> bool:
        """Whether this run's check may use re-explanations done here (a binary model whose re-fit goes to the
        helper; narrow data, where one job is a fraction of a second: on wide data a search re-run can take
        longer than the helper has left, and the helper's answers would wait for it)."""
        config = self.runner.config
        return (config.evaluation.sanity.randomisation_check and self.work.randomised_fit is not None
                and len(self.runner.data.feature_names) < sanity.WIDE_RERUN_COLUMNS)

    def __call__(self) -> bool:
        """Do one re-explanation whose inputs are here; False when there is none (yet)."""
        if self.work.randomised_reruns or not self.wanted() or not self._randomised_here():
            return False  # queued to the helper already (the check shares them out), or nothing to re-explain with
        # each method's real explanations as they are now, read once per call (the cases and the plans need them)
        answers = {method: self.runner.ready(job) for method, job in self.jobs.items()}
        group = self._group_of(answers)
        if group is None:
            return False
        for key in self._keys(group, answers):
            if key in self.tried or self.work.checks.reruns(key, counted=False) is not None:
                continue
            self.tried.add(key)
            self._redo(group, key)
            return True
        return False

    def _randomised_here(self) -> bool:
        """Whether the randomised model is built (once the helper's re-fit is back; never when it failed)."""
        if self._randomised is None:
            fit = self.work.randomised_fit
            if not fit.done() or fit.cancelled() or fit.exception() is not None:
                return False
            self._randomised, _ = sanity._randomised_model(self.runner.model, self.runner.data, self.runner.config,
                                                           fitted=fit.result())
            self._randomised = self._randomised or False  # None: nothing to re-explain here (the check says why)
        return self._randomised is not False

    def _group_of(self, answers: dict):
        """The randomised model's case group of the cases the check is expected to compare (rebuilt when a failure
        seen meanwhile changes them), or None when the model makes other than one group."""
        ids = self._ids(answers)
        if self._group is None or list(self._group.ids) != ids:
            groups = case_groups(self._randomised, self.runner.data, self.runner.config, ids)
            if len(groups) != 1:  # one group only for a binary model, the one case this applies to
                self._randomised = False
                return None
            self._group = groups[0]
        return self._group

    def _ids(self, answers: dict) -> list[int]:
        """The check's cases if every method explains every case it is given, minus the cases a method is known
        to have failed on so far."""
        sample, config = self.sample, self.runner.config
        methods = [m for m in sample.methods if m not in self.work.failed]
        if not methods:
            return []
        failed = {int(e.instance_id) for answer in answers.values() for e in (answer or []) if not e.ok}
        n = min(sample.counts[m] for m in methods)
        ids = [int(i) for i in sample.ids[:n] if int(i) not in failed]
        return ids[:config.evaluation.sanity.randomisation_cases]

    def _keys(self, group, answers: dict) -> list[tuple]:
        """The check's job keys whose inputs are here (``answers``: each method's real explanations, or None while
        they are not back), in the order it would queue them (searches last here: the others are ready first)."""
        config = self.runner.config
        ids = list(group.ids)
        if not ids:
            return []
        searched = set(ids[:sanity.SEARCH_CASES])
        factor = sanity.rerun_factor(self.runner.data)
        keys = []
        methods = [m for m in self.sample.methods if m not in self.work.failed and spec_of(m, config).randomisable]
        for method in sorted(methods, key=lambda m: spec_of(m, config).pools_model_calls):
            spec = spec_of(method, config)
            real = _by_case(answers.get(method))
            if real is None:
                if spec.bounded_reruns or not spec.pools_model_calls:
                    continue  # caps (Anchor) need the real searches; the others are explained before the wait
                # DiCE: its cases are re-searched as if each real search succeeds (a failed one is not compared)
                real = _expected
            plan = sanity._rerun_plan(real, method, ids, searched, config, factor)
            if plan is None:
                continue
            keys += sanity.rerun_keys(method, ids, plan, config)
        return keys

    def _redo(self, group, key: tuple) -> None:
        method, _, rows, caps = key
        try:
            answer = sanity._redone(group, self.runner.data, method, list(rows), caps, self.runner.config)
        except Exception as err:  # the check re-explains it and records the error as it always does
            log.info("The randomisation check's %s re-explanation is left to the check (%s)", method,
                     describe_error(err))
            return
        self.work.checks.keep_reruns(key, answer)


def _by_case(answer):
    """A method's real explanations (or None while they are not back) as ``explanation(method, instance id)``."""
    if answer is None:
        return None
    by_case = {int(e.instance_id): e for e in answer}
    return lambda _m, i: by_case.get(int(i))


class _Expected:
    """A real explanation taken to have succeeded (``ok``), for planning a re-search before the real one is back."""

    ok = True
    extra: dict = {}


def _expected(_method, _instance_id):
    return _Expected
