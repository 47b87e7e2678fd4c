"""``run_technical_evaluation``: explain a sample of test instances with each method and measure them.

Public interface
----------------
``run_technical_evaluation(model, data, config, *, on_progress=None) -> TechnicalResult``
``sample_instance_ids(data, config) -> list[int]``
``TechnicalResult``  ``.metrics`` (one row per method), ``.metrics_long``, ``.per_instance``,
``.per_instance_unshared``, ``.shared_instance_ids``, ``.explanations``, ``.instance_ids``,
``.failures``, ``.timings``, ``.model_rows``

What runs: SHAP, LIME and the ``Random`` baseline on the whole sample (``evaluation.sample_size``
rows of the test set, capped at its size), Anchor on the first ``explainers.anchor.max_instances``,
DiCE on the first ``explainers.dice.max_instances`` of the same sample. Cases beyond the smallest of
these counts can never be shared, so by default no method explains them (nor measures their
stability); ``evaluation.explain_unshared: true`` has SHAP, LIME and Random explain the whole sample
anyway (the original HEXEval's behaviour), their values going to ``per_instance_unshared``.

**One shared set of cases.** Methods are compared only on the cases *every* method explained
(successfully): ``shared_instance_ids``. All metric summaries (``metrics``, ``metrics_long``) and
``per_instance`` (saved as ``instance_metrics.csv``) cover exactly those cases, for every method, so
differences between methods can be paired case by case. Cases only some methods explained (the
sample beyond Anchor's or DiCE's cap) keep their metric values in ``per_instance_unshared``; they are
never used to compare methods. ``n_instances`` in ``metrics`` is the real number of shared cases
behind each row; ``n_explained`` counts every case the method explained.

With ``explainers.lime.stability_test``, the methods in ``evaluation.stability.methods`` (SHAP, LIME
and Random by default) also explain ``evaluation.stability.repeats`` noisy copies of the first
``lime.stability_subset`` cases of the sample (the shared cases come first), and, with
``lime.seed_reruns``, LIME re-explains them with ``repeats`` other seeds. The claim-scoped metrics and
the reader's test (:mod:`hexeval_engine.metrics.claim_evidence`) run once over every method's
explanations (same neighbours and baseline per case; their time is charged to the methods in
proportion to their explanations). Other metrics come from
:func:`hexeval_engine.metrics.compute.compute_instance_metrics` and are aggregated once by
:func:`hexeval_engine.metrics.aggregate.summarise` (mean and bootstrap CI).

One failing method never sinks the others: its error is logged with the traceback, recorded in
``failures`` and in the ``error`` column of its row, and the others complete (a method that failed
on every case is left out of the shared set; one that failed on some cases shrinks it).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..runtime.parallel import ExplainRunner
from ..explainers.base import instance_seed
from ..explainers.registry import spec_of
from ..explanation import Explanation
from ..metrics.aggregate import summarise
from ..metrics.compute import INSTANCE_COLUMNS
from ..metrics.shared_inputs import SharedInputs
from ..plain_values import describe_error
from ..progress import report
from .class_groups import CaseGroup, affine, case_groups, label_explanations, map_to_group, value_reference
from .measuring import claim_frame, measure_method, record_claims, summary_of
from .overlap import CLAIMS, announce, identities
from .sample_plan import Sample, counterfactual_sample, group_sample, plan_sample, shared_cases
from .sample_plan import sample_instance_ids  # noqa: F401 (part of this module's public interface)
from .check_pieces import CheckPieces
from .sanity import queue_reruns
from .stability import stability_explanations
from .timing import MethodClock
from .work import Progress, Work

log = logging.getLogger(__name__)

_META = ["method", "family", "algorithm", "n_instances", "n_explained", "seconds", "error"]


@dataclass
class TechnicalResult:
    """Everything the technical evaluation produced.

    Attributes
    ----------
    metrics : DataFrame
        One row per enabled method (``SHAP``, ``LIME``, ``Anchor``, ``DiCE``, then ``Random``):
        ``method``, ``family``, ``algorithm``, ``n_instances`` (shared cases behind the row),
        ``n_explained``, ``seconds``, ``error`` (empty unless the method failed), then per metric
        ``M``, ``M_ci_low``, ``M_ci_high`` (original HEXEval names included). Shared cases only.
    metrics_long : DataFrame
        ``method, metric, value, ci_low, ci_high, n, direction, meaning, derived`` (shared cases).
    per_instance : DataFrame
        ``method, instance_id, metric, value, derived`` on the shared cases: every method's rows
        cover the same instance ids. Multi-class and regression runs add ``explained_class``: the name of
        the class each case is explained for, or the side of the band its prediction is explained on.
    explanations : list of Explanation
        The explanations of the sample (not the noisy copies), by method then instance.
    instance_ids : list of int
        The sample: row positions in ``data.X_test``.
    failures : list of dict
        ``{"method", "error"}`` per failed method (and per failed instance, with ``instance_id``).
    timings : dict
        Seconds per method (its explanations, its stability runs and its metrics), ``shared`` (work
        no single method owns: predicting the sample, noisy copies, aggregation), ``total`` (wall
        time; the other entries add up to it).
    model_rows : int
        Rows the model evaluated during the evaluation (all processes).
    shared_instance_ids : list of int
        The cases every method explained; the only cases methods are compared on.
    per_instance_unshared : DataFrame
        Metric values of cases outside the shared set (same columns as ``per_instance``).
    explained_classes : dict
        Multi-class models: ``{instance_id: class label (text)}``, the class each case is explained for
        (its predicted class; see :mod:`hexeval_engine.technical.class_groups`). Empty for a binary model.
    randomised_fit : Future or None
        The randomisation check's re-fit, started in the helper process while this stage ran (backend ``auto``
        with the helper in use, a binary model); :func:`~hexeval_engine.technical.sanity.randomisation_check`
        takes it. Never pickled or saved.
    randomised_reruns : dict
        The check's SHAP, LIME, Anchor and DiCE re-explanations queued to the helper once this stage's explanations
        were known (same conditions; :func:`~hexeval_engine.technical.sanity.queue_reruns`), so they run while
        the metrics are computed here; the check takes them (or takes them back). Never pickled or saved.
    check_pieces : CheckPieces or None
        Where the check finds and keeps its re-fit and re-explanations (:mod:`.check_pieces`: stored pieces, and
        those this stage made while it waited for the helper, :mod:`.spare_reruns`). Never pickled or saved.
    """

    metrics: pd.DataFrame
    metrics_long: pd.DataFrame
    per_instance: pd.DataFrame
    explanations: list[Explanation]
    instance_ids: list[int]
    failures: list[dict] = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    model_rows: int = 0
    shared_instance_ids: list[int] = field(default_factory=list)
    per_instance_unshared: pd.DataFrame | None = None
    explained_classes: dict = field(default_factory=dict)
    randomised_fit: object = field(default=None, repr=False, compare=False)
    randomised_reruns: dict = field(default_factory=dict, repr=False, compare=False)
    check_pieces: object = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict:  # futures and the run's stores belong to this process
        return {**self.__dict__, "randomised_fit": None, "randomised_reruns": {}, "check_pieces": None}

    def explanation(self, method: str, instance_id: int) -> Explanation | None:
        """The explanation of one instance by one method, if there is one."""
        return next((e for e in self.explanations if e.method == method and e.instance_id == instance_id), None)

    def to_dict(self) -> dict:
        """JSON-friendly summary (tables as lists of records)."""
        return {"metrics": self.metrics.to_dict(orient="records"),
                "metrics_long": self.metrics_long.to_dict(orient="records"),
                "per_instance": self.per_instance.to_dict(orient="records"),
                "explanations": [e.to_dict() for e in self.explanations],
                "instance_ids": list(self.instance_ids), "failures": list(self.failures),
                "timings": dict(self.timings), "model_rows": int(self.model_rows),
                "shared_instance_ids": list(self.shared_instance_ids),
                "explained_classes": {str(k): v for k, v in self.explained_classes.items()}}



def run_technical_evaluation(model, data, config, *, on_progress=None, pieces=None) -> TechnicalResult:
    """Explain a sample of test instances with each enabled method and measure the explanations.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
    on_progress : callable, optional
        ``on_progress(done, total, message)``, called per method and per instance.
    pieces : object, optional
        Finished explanation calls to reuse and keep (:class:`hexeval_engine.runs.checkpoints.Pieces`): each
        runner is ``pieces.wrap(runner)``, which answers a stored call from the store and stores the others.

    Returns
    -------
    TechnicalResult
    """
    start_all = time.perf_counter()
    rows_before = model.rows
    sample = plan_sample(data, config)
    groups = case_groups(model, data, config, sample.ids)
    parts = [group_sample(g, sample) for g in groups]
    units = sum(p.progress_units() - 1 for p in parts) + 1  # the metrics step is counted once
    work = Work(progress=Progress(report(on_progress), units), pieces=pieces, checks=CheckPieces(pieces, config))
    reference = value_reference(groups)  # a regressor: SHAP and LIME explain the prediction once for all cases
    rows_in_workers, work.reference = _explain_reference(reference, sample, config, work) if reference else (0, {})
    if len(groups) > 1 and groups[0].task is not None and groups[0].task.is_multiclass:
        for method in [m for m in sample.methods if spec_of(m, config).pooled_over_classes]:
            work.reference.update(_explain_pooled(method, model, data, groups, parts, config, work))
    for group, part in zip(groups, parts):  # one group for a binary model (technical.class_groups)
        rows_in_workers += _explain_group(group, part, config, work, reference, whole=len(groups) == 1)
    for method in sample.methods:  # explained group by group: a method that failed on every case is left out
        mine = [e for e in work.explanations if e.method == method]
        if mine and method not in work.failed and not any(e.ok for e in mine):
            work.fail(method, f"all {len(mine)} instances failed; first error: {mine[0].error}")
    work.progress.message("Computing metrics")
    for group, part in zip(groups, parts):
        _measure_group(group, part, work)
    shared, per_instance, unshared, wide, long = _summarise_shared(sample, config, work)
    work.progress.step("Metrics computed")
    timings = _timings(sample.methods, work.clock, time.perf_counter() - start_all)
    metrics = _with_meta(wide, sample.methods, work.explanations, shared, timings, work.failed, config)
    explained = {int(e.instance_id): e.extra["class_view"]["class"] for e in work.explanations
                 if "class_view" in e.extra}
    per_instance, unshared = (_with_explained_class(t, work.explanations) for t in (per_instance, unshared))
    return TechnicalResult(metrics, long, per_instance, work.explanations, sample.ids, work.failures, timings,
                           int(model.rows - rows_before + rows_in_workers), shared, unshared,
                           dict(sorted(explained.items())), work.randomised_fit, work.randomised_reruns,
                           work.checks)


def _explain_reference(reference: CaseGroup, sample: Sample, config, work: Work) -> tuple[int, dict]:
    """A regressor: SHAP and LIME explain every case once, on the reference band view (towards its class 1).

    Returns the rows the workers evaluated and ``{(method, instance id): explanation}``; each case's group maps
    them onto its own view (:func:`hexeval_engine.technical.class_groups.map_to_group`).
    """
    methods = [m for m in sample.methods if affine(m, config)]
    if not methods or not sample.ids:
        return 0, {}
    q0 = reference.model.predict_proba(sample.X)[:, 1]
    towards = dataclasses.replace(sample, classes=np.ones(len(sample.ids), dtype=int), probabilities=q0)
    start = len(work.explanations)
    with _runner(work, reference.model, reference.data, reference.config) as runner:
        for method in methods:
            _explain_method(runner, method, towards, config, work)
        rows = runner.worker_rows
    produced = work.explanations[start:]
    del work.explanations[start:]
    return rows, {(e.method, e.instance_id): e for e in produced}


def _explain_pooled(method: str, model, data, groups: list[CaseGroup], parts: list, config, work: Work) -> dict:
    """A multi-class model: the searches of ``method`` (a spec with ``pooled_over_classes``: Anchor) for every class
    group run together, sharing each model call.

    Each case's search classifies samples by its own one-class view (``AnchorExplainer.explain(explained=...)``),
    so its rule is the one a search on that view finds; run group by group, each group's few cases made
    their own thousands of small model calls. Returns ``{(method, instance id): explanation}``.
    """
    if method not in parts[0].methods:
        return {}
    chosen = [(g, p, k) for g, p in zip(groups, parts) for k in range(p.counts[method])]
    if not chosen:
        return {}
    X = pd.concat([p.X.iloc[[k]] for _, p, k in chosen], ignore_index=True)
    ids = [p.ids[k] for _, p, k in chosen]
    n = len(ids)
    seeds = [instance_seed(config.evaluation.random_state, i, method) for i in ids]
    work.progress.message(f"{method}: explaining {n} instances")
    start = len(work.explanations)
    try:
        with work.clock.charge(method), ExplainRunner(model, data, config) as runner:
            work.explanations += runner.explainer(method).explain(
                X, ids, np.array([p.classes[k] for _, p, k in chosen]),
                np.array([p.probabilities[k] for _, p, k in chosen]), seeds,
                on_instance=lambda: work.progress.step(f"{method}: instance explained"),
                explained=np.array([g.explained for g, _, _ in chosen]))
    except Exception as err:  # one failing method must not sink the others
        log.exception("%s failed on the technical evaluation sample", method)
        work.fail(method, f"{type(err).__name__}: {err}")
        work.progress.skip(n, f"{method}: failed")
        return {}
    produced = work.explanations[start:]
    del work.explanations[start:]
    bad = [e for e in produced if not e.ok]
    work.failures += [{"method": method, "instance_id": e.instance_id, "error": e.error} for e in bad]
    if produced and len(bad) == len(produced):
        work.fail(method, f"all {len(bad)} instances failed; first error: {bad[0].error}")
    return {(method, e.instance_id): e for e in produced}


def _explain_group(group: CaseGroup, sample: Sample, config, work: Work, reference: CaseGroup | None, *,
                   whole: bool) -> int:
    """Explain one group's cases (and noisy copies) with every method; rows the workers evaluated.

    ``whole``: the group holds the whole sample (a binary model), so a method that failed on all its cases
    is left out here; otherwise that is judged over all groups once they ran (one case failing in a group
    of one must not leave a method out)."""
    start = len(work.explanations)
    work.perturbed, work.seed_runs = {}, {}
    rows = 0
    with _runner(work, group.model, group.data, group.config) as runner:
        stability_plan = announce(runner, group, sample, config, work, reference)
        for method in sample.methods:
            spec = spec_of(method, config)
            if reference is not None and spec.linear_in_output:  # explained once: map onto this case's view
                done = [work.reference.get((method, i)) for i in sample.ids[:sample.counts[method]]]
                work.explanations += [map_to_group(e, reference, group) for e in done if e is not None]
            elif spec.pooled_over_classes and any(k[0] == method for k in work.reference):  # pooled over the groups
                done = [work.reference.get((method, i)) for i in sample.ids[:sample.counts[method]]]
                work.explanations += [e for e in done if e is not None]
            elif spec.aims_at_target and group.counterfactual_error is not None:  # already in the wanted range
                _record_nothing_to_reach(method, group, sample, work)
            elif spec.aims_at_target and group.counterfactual_model is not group.model:
                with _runner(work, group.counterfactual_model, group.data, group.counterfactual_config) as other:
                    _explain_method(other, method, counterfactual_sample(group, sample), config, work, whole=whole)
                    rows += other.worker_rows
            else:
                _explain_method(runner, method, sample, config, work, whole=whole)
        _explain_noisy_copies(runner, group.model, group.data, group.config, sample, work, jobs=stability_plan)
        if work.randomised_fit is not None and runner.uses_helper and not work.randomised_reruns:
            # the check's re-explanations, while we measure (unless queued as soon as the cases were explained)
            ok = [m for m in sample.methods if m not in work.failed]
            work.randomised_reruns = queue_reruns(runner, config, lambda m, i: _explanation_of(work, m, i),
                                                  shared_cases(work.explanations, sample.ids, ok), work.checks)
            work.checks.keep_queued(work.randomised_reruns)
        rows += runner.worker_rows
        if runner.helper_lost:  # the helper could not load the model: the check's re-fit is done in-process too
            work.randomised_fit, work.randomised_reruns = None, {}
    work.group_noise.append((work.perturbed, work.seed_runs))
    work.group_early.append((work.early, work.shared_inputs))
    work.early, work.shared_inputs = {}, {}
    label_explanations(work.explanations[start:], group, sample.X)
    work.group_spans.append((start, len(work.explanations)))
    return rows


@contextmanager
def _runner(work: Work, model, data, config):
    """An :class:`ExplainRunner` for this view, answering stored calls from ``work.pieces`` when it is set."""
    with ExplainRunner(model, data, config) as runner:
        yield runner if work.pieces is None else work.pieces.wrap(runner)


def _explanation_of(work: Work, method: str, instance_id: int):
    """The sample's explanation of one case by one method so far (as ``TechnicalResult.explanation``)."""
    return next((e for e in work.explanations if e.method == method and e.instance_id == instance_id), None)


def _record_nothing_to_reach(method: str, group: CaseGroup, sample: Sample, work: Work) -> None:
    """The failed explanation, by a method that aims at another outcome (DiCE), of a case whose prediction already
    lies in ``data.counterfactual_range``."""
    for iid in sample.ids[:sample.counts[method]]:
        e = Explanation(method=method, instance_id=int(iid), predicted_class=0, probability=0.0,
                        error=group.counterfactual_error)
        work.explanations.append(e)
        work.failures.append({"method": method, "instance_id": int(iid), "error": e.error})
        work.progress.step(f"{method}: instance explained")


def _measure_group(group: CaseGroup, sample: Sample, work: Work) -> None:
    """Per-case and claim-scoped metrics of one group's explanations, on that group's views."""
    start, end = work.group_spans.pop(0)
    work.perturbed, work.seed_runs = work.group_noise.pop(0)
    early, shared = work.group_early.pop(0)
    mine = work.explanations[start:end]
    # computed once per view, for every metric pass that needs them (DiCE's view has its own)
    shared.setdefault(id(group.model), SharedInputs(group.model, group.data))
    for method in sample.methods:
        model, config = group.view_of(method)
        inputs = shared.setdefault(id(model), SharedInputs(model, group.data))
        if method in early and method not in work.failed and early[method][1] == identities(
                [e for e in mine if e.method == method], {k: v for k, v in work.perturbed.items() if k[0] == method},
                {k: v for k, v in work.seed_runs.items() if k[0] == method}):
            work.per_instance_parts.append(early[method][0])  # measured while the helper explained
            continue
        measure_method(model, group.data, config, method, work, inputs, explanations=mine)
    ok = [m for m in sample.methods if m not in work.failed]
    claimed = [e for e in mine if e.method in ok and e.ok]
    if CLAIMS in early and early[CLAIMS][1:] == ([id(e) for e in claimed], ok):
        record_claims(early[CLAIMS][0], ok, work)  # measured while the helper explained
        return
    record_claims(claim_frame(group.model, group.data, group.config, claimed, work, shared[id(group.model)]), ok,
                   work)


def _explain_method(runner, method: str, sample: Sample, config, work: Work, *, whole: bool = True) -> None:
    """Explain the first ``counts[method]`` cases with ``method``, recording failed cases and (``whole``: these
    are all the cases the method explains) a total failure."""
    n, ids = sample.counts[method], sample.ids
    progress = work.progress
    progress.message(f"{method}: explaining {n} instances")
    seeds = [instance_seed(config.evaluation.random_state, i, method) for i in ids[:n]]
    try:
        with work.clock.charge(method):
            produced = runner.explain(method, sample.X.iloc[:n], ids[:n], sample.classes[:n],
                                      sample.probabilities[:n], seeds,
                                      on_instance=lambda m=method: progress.step(f"{m}: instance explained"))
    except Exception as err:  # one failing method must not sink the others
        # recorded in the results (the method's error, shown where they are read); the traceback only for debugging
        log.warning("%s failed on the technical evaluation sample: %s", method, describe_error(err))
        log.debug("%s's traceback", method, exc_info=True)
        origin = spec_of(method, config).plugin
        work.fail(method, describe_error(err) + (f" (the explainer plugin {origin} raised it: fix the plugin, or "
                                                 "remove it from evaluation.explainers.plugins or uninstall its "
                                                 "package)" if origin else ""))
        progress.skip(n, f"{method}: failed")
        return
    bad = [e for e in produced if not e.ok]
    work.failures += [{"method": method, "instance_id": e.instance_id, "error": e.error} for e in bad]
    if whole and produced and len(bad) == len(produced):
        work.fail(method, f"all {len(bad)} instances failed; first error: {bad[0].error}")
    work.explanations += produced


def _explain_noisy_copies(runner, model, data, config, sample: Sample, work: Work, *, jobs=None) -> None:
    """Explain noisy copies of the stability cases (and LIME's re-runs) with the methods that did not fail
    (``jobs``: their calls as :func:`announce` planned them)."""
    ok_stab = [m for m in sample.stab_methods if m not in work.failed]
    ok_reruns = sample.reruns if sample.reruns not in work.failed else None
    n_stab = sample.n_stab
    if not ((ok_stab or ok_reruns) and n_stab):
        return
    work.progress.message(f"Stability: {', '.join(ok_stab or [f'{ok_reruns} re-runs'])} on {n_stab} instances")
    try:
        work.perturbed, work.seed_runs = stability_explanations(
            runner, model, data, config, sample.X.iloc[:n_stab], sample.ids[:n_stab], sample.classes[:n_stab],
            ok_stab, on_instance=lambda: work.progress.step("Stability: copy explained"), clock=work.clock,
            seed_reruns=ok_reruns, jobs=jobs)
    except Exception as err:  # stability is one metric; the others still count
        log.exception("Stability explanations failed")
        work.failures.append({"method": "/".join(ok_stab or [ok_reruns]),
                              "error": f"stability: {describe_error(err)}"})


def _summarise_shared(sample: Sample, config, work: Work):
    """Split the per-case values into shared and unshared cases and summarise the shared ones.

    Returns
    -------
    tuple
        ``(shared ids, per_instance, per_instance_unshared, wide summary, long summary)``.
    """
    ev = config.evaluation
    everything = (pd.concat(work.per_instance_parts, ignore_index=True) if work.per_instance_parts
                  else pd.DataFrame(columns=INSTANCE_COLUMNS).astype({"value": float, "derived": bool}))
    shared = shared_cases(work.explanations, sample.ids, [m for m in sample.methods if m not in work.failed])
    in_shared = everything["instance_id"].isin(shared)
    per_instance = everything[in_shared].reset_index(drop=True)
    unshared = everything[~in_shared].reset_index(drop=True)
    wide, long = summary_of(work, config, work.per_instance_parts, shared, sample.methods, lambda: summarise(
        per_instance, n_resamples=ev.bootstrap_resamples, confidence=ev.confidence_level, seed=ev.random_state,
        methods=sample.methods))
    return shared, per_instance, unshared, wide, long


def _with_explained_class(table: pd.DataFrame, explanations) -> pd.DataFrame:
    """Multi-class and regression runs: ``explained_class`` says in words what each row explains.

    Multi-class: the class's name (the class the case is explained for, its predicted class); regression:
    the side of the band the prediction is explained on ("disease progression at least 208"). A binary
    run's table is returned unchanged.
    """
    words = {}
    for e in explanations:
        if "class_view" in e.extra:
            words.setdefault(int(e.instance_id), e.extra["class_view"]["name"])
        elif "value_view" in e.extra:
            view = e.extra["value_view"]
            words.setdefault(int(e.instance_id), f"{view['quantity']} {view['side']}")
    if not words:
        return table
    return table.assign(explained_class=table["instance_id"].map(lambda i: words.get(int(i), "")).astype(str))


def _timings(methods, clock: MethodClock, total: float) -> dict:
    """Seconds per method, ``shared`` (the rest of the wall time) and ``total``."""
    timings = {m: clock.seconds.get(m, 0.0) for m in methods}
    timings["shared"] = total - sum(timings.values())
    timings["total"] = total
    return timings


def _with_meta(wide: pd.DataFrame, methods, explanations, shared, timings, failed, config) -> pd.DataFrame:
    meta = []
    shared = set(shared)
    for method in methods:
        mine = [e for e in explanations if e.method == method and e.ok]
        algorithms = sorted({e.algorithm for e in mine if e.algorithm})
        n_shared = sum(1 for e in mine if e.instance_id in shared)
        meta.append({"method": method, "family": spec_of(method, config).family, "algorithm": "; ".join(algorithms),
                     "n_instances": n_shared if method not in failed else 0,
                     "n_explained": len(mine) if method not in failed else 0,
                     "seconds": float(timings.get(method, 0.0)), "error": failed.get(method, "")})
    meta = pd.DataFrame(meta, columns=_META)
    values = wide.set_index("method").reindex(methods).reset_index()
    return meta.merge(values, on="method", how="left")
