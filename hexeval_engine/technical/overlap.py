"""The technical stage with the helper process (backend ``auto``): announce every explanation call, let the helper
start on them, and measure whatever is complete while the main process takes jobs back.

See :mod:`hexeval_engine.runtime.parallel` for the runner's side (prefetch, work stealing, ``ready``).
"""

from __future__ import annotations

import functools
import logging

from ..explainers.base import instance_seed
from ..explainers.registry import spec_of
from ..runtime.parallel import ExplainJob
from ..metrics.shared_inputs import SharedInputs
from ..plain_values import describe_error
from .class_groups import CaseGroup
from .measuring import claim_frame, method_metrics
from .sample_plan import Sample, shared_cases
from .sanity import fit_given_in_helper, fitted_in_helper, queue_reruns
from .spare_reruns import SpareReruns
from .stability import stability_jobs
from .work import Work

log = logging.getLogger(__name__)


def announce(runner, group: CaseGroup, sample: Sample, config, work: Work, reference) -> list | None:
    """The ``auto`` backend: announce every explanation call of this group (its methods' cases, then the noisy
    copies and LIME's re-runs) and let the runner's helper process start on them; the main process then does
    its own share (:meth:`~hexeval_engine.runtime.parallel.ExplainRunner.work_ahead`).

    Returns the stability runs' planned calls (``None``: planned when they run), so the copies are predicted once.
    """
    if group.config.evaluation.parallel.backend != "auto":
        return None
    jobs = []
    for method in sample.methods:
        spec = spec_of(method, config)
        if reference is not None and spec.linear_in_output or spec.pooled_over_classes and any(
                k[0] == method for k in work.reference) or spec.aims_at_target and (
                group.counterfactual_error is not None or group.counterfactual_model is not group.model):
            continue  # explained elsewhere (see _explain_group)
        n, ids = sample.counts[method], sample.ids
        seeds = [instance_seed(config.evaluation.random_state, i, method) for i in ids[:n]]
        jobs.append(ExplainJob(method, sample.X.iloc[:n], ids[:n], sample.classes[:n], sample.probabilities[:n],
                               seeds))
    plan = []
    if (sample.stab_methods or sample.reruns) and sample.n_stab:
        n = sample.n_stab
        plan = stability_jobs(group.model, group.data, group.config, sample.X.iloc[:n], sample.ids[:n],
                              sample.classes[:n], sample.stab_methods, seed_reruns=sample.reruns)
    # the sanity check's re-fit goes first: the main process cannot take it back, so done last it would end the run;
    # one an earlier (interrupted) run stored is handed to the helper instead, for the re-explanations queued later
    refit, stored = (), None
    if group.task is None and group.config.evaluation.sanity.randomisation_check:
        stored = work.checks.fit(counted=False)
        refit = (fitted_in_helper,) if stored is None else (functools.partial(fit_given_in_helper, fitted=stored),)
    work.randomised_fit = next(iter(runner.prefetch(jobs + plan, first=refit)), None)
    if stored is None:
        work.checks.keep_when_done(work.randomised_fit, work.checks.keep_fit)  # kept as soon as it comes back
    if runner.uses_helper or runner.awaits_helper:
        here = [m for m in sample.methods if not runner.in_helper(m)]
        helper = ' and '.join(m for m in sample.methods if runner.in_helper(m))
        work.progress.message(f"Explaining with {' and '.join(here) or 'nothing'} here while a helper process "
                              + (f"explains {helper}" if runner.uses_helper else f"starts to take {helper}"))

        def meanwhile():
            _take_late_fit(runner, work)
            measure_early(runner, group, sample, work, jobs, plan)

        spare = SpareReruns(runner, sample, jobs, work) if group.task is None else None
        runner.work_ahead(on_instance=lambda job: work.progress.step(
            "Stability: copy explained" if job.purpose else f"{job.method}: instance explained"),
            charge=work.clock.charge, meanwhile=meanwhile, idle=spare)
        _take_late_fit(runner, work)  # a hand-over after the last meanwhile()
    return plan


def _take_late_fit(runner, work: Work) -> None:
    """The check's re-fit, once a helper that was still starting came up and took it (``runner.late_calls``)."""
    if work.randomised_fit is None and runner.late_calls:
        work.randomised_fit = runner.late_calls[0]
        work.checks.keep_when_done(work.randomised_fit, work.checks.keep_fit)


def measure_early(runner, group: CaseGroup, sample: Sample, work: Work, jobs: list, plan: list) -> None:
    """While the helper explains: the metrics of each method whose explanations and noisy copies are complete
    (SHAP and Random, which the main process explained, first; then those the helper finished), and the
    claim-scoped metrics once every method's cases are explained, kept in ``work.early`` for
    :func:`_measure_group`. It uses them only if that method's explanations and noisy copies are still the same
    objects (else, e.g. when another method's stability run failed and left every method without copies, it
    measures again). Same inputs, same deterministic functions, same values; done here, this work no longer
    waits for the end of the run while the helper has nothing left to do."""
    for job in jobs:
        if job.method in work.early:
            continue
        mine = runner.ready(job)
        if mine is None or job.method in work.failed or not any(e.ok for e in mine):
            continue
        perturbed, seed_runs = {}, {}
        extra = [j for j in plan if j.method == job.method]
        answers = [runner.ready(j) for j in extra]
        if any(a is None for a in answers):
            continue
        for j, answer in zip(extra, answers):
            for e in answer:
                (seed_runs if j.purpose == "rerun" else perturbed).setdefault((j.method, e.instance_id), []).append(e)
        model, config = group.view_of(job.method)
        inputs = work.shared_inputs.setdefault(id(model), SharedInputs(model, group.data))
        try:
            with work.clock.charge(job.method):
                frame = method_metrics(model, group.data, config, mine, perturbed, seed_runs, work, inputs)
        except Exception as err:  # measured again after the explanations, where its error is recorded as usual
            log.info("%s's metrics are computed after the explanations (%s)", job.method, describe_error(err))
            continue
        work.early[job.method] = (frame, identities(mine, perturbed, seed_runs))
    if CLAIMS not in work.early:
        claims_early(runner, group, sample, work, jobs)


#: ``work.early``'s key of the claim-scoped metrics measured early.
CLAIMS = ("claims",)


def claims_early(runner, group: CaseGroup, sample: Sample, work: Work, jobs: list) -> None:
    """Once every method's cases are explained (each with at least one explanation that did not fail): the
    sanity check's re-explanations not done here meanwhile (:mod:`.spare_reruns`) are queued to the helper
    (:func:`~.sanity.queue_reruns`), and the claim-scoped
    metrics are measured, kept as ``work.early[CLAIMS] = (rows or error, claimed explanations' ids, methods)``."""
    if [j.method for j in jobs] != list(sample.methods) or any(m in work.failed for m in sample.methods):
        return  # a method explained elsewhere (or already left out): measured after the explanations
    answers = [runner.ready(job) for job in jobs]
    if any(a is None or not any(e.ok for e in a) for a in answers):
        return
    if work.randomised_fit is not None and runner.uses_helper and not work.randomised_reruns:
        # the check's re-explanations join the helper's queue now, behind its last jobs, instead of ending the run
        explained = [e for a in answers for e in a]
        by_case = {(e.method, e.instance_id): e for e in explained}
        work.randomised_reruns = queue_reruns(runner, group.config, lambda m, i: by_case.get((m, i)),
                                              shared_cases(explained, sample.ids, list(sample.methods)),
                                              work.checks)
        work.checks.keep_queued(work.randomised_reruns)  # each kept as soon as it comes back
    claimed = [e for a in answers for e in a if e.ok]
    inputs = work.shared_inputs.setdefault(id(group.model), SharedInputs(group.model, group.data))
    work.early[CLAIMS] = (claim_frame(group.model, group.data, group.config, claimed, work, inputs),
                           [id(e) for e in claimed], list(sample.methods))


def identities(mine, perturbed: dict, seed_runs: dict) -> tuple:
    """What a method's metrics were computed from, as object identities (the objects, not equal copies)."""
    return ([id(e) for e in mine], {k: [id(e) for e in v] for k, v in perturbed.items()},
            {k: [id(e) for e in v] for k, v in seed_runs.items()})
