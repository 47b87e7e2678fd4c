"""The technical stage's metric passes: one method's per-case metrics, and the paired passes over all methods
(the question skills: ``metrics.registry.PASSES`` with scope ``paired``)."""

from __future__ import annotations

import logging
import time

import pandas as pd

from ..metrics.compute import INSTANCE_COLUMNS, compute_instance_metrics
from ..metrics.registry import paired_rows
from ..metrics.shared_inputs import SharedInputs
from ..plain_values import describe_error
from .timing import MethodClock
from .work import Work

log = logging.getLogger(__name__)


def kept(work: Work, kind: str, model, config, explanations, copies: tuple, compute):
    """``compute()``, or the frame stored under the key of its inputs (``work.pieces``, see
    :meth:`~hexeval_engine.runs.checkpoints.Pieces.measured_key`); a computed frame is stored as soon as it is
    done, so a resumed run or a later one measures these explanations no more."""
    pieces = work.pieces
    key = pieces.measured_key(kind, config, model, explanations, copies) if pieces is not None else None
    if key is not None:
        frame = pieces.get(key)
        if frame is not None:
            pieces.metrics_reused += 1
            pieces.name(key, frame)  # the summary of the run's frames is keyed by theirs
            return frame
    frame = compute()
    if key is not None and isinstance(frame, pd.DataFrame):
        pieces.put(key, frame)
        pieces.name(key, frame)
    return frame


def summary_of(work: Work, config, parts: list, shared: list, methods: list, compute):
    """``compute()`` (the summaries of the per-case values ``parts`` over the ``shared`` cases), or the summaries
    stored under the keys of ``parts`` (every one a stored frame, :func:`kept`), the cases and the methods."""
    pieces = work.pieces
    key = pieces.frames_key("summaries", config, parts, shared=[int(i) for i in shared], methods=list(methods)) \
        if pieces is not None and parts else None
    if key is not None:
        stored = pieces.get(key)
        if stored is not None:
            pieces.metrics_reused += 1
            return stored
    summaries = compute()
    if key is not None:
        pieces.put(key, summaries)
    return summaries


def method_metrics(model, data, config, mine: list, perturbed: dict, seed_runs: dict, work: Work,
                   shared: SharedInputs) -> pd.DataFrame:
    """Per-case metrics of one method's explanations ``mine`` and their noisy copies and re-runs, computed (or
    taken from the store: :func:`kept`)."""
    def compute():
        return compute_instance_metrics(model, data, mine, config, perturbed=perturbed, seed_runs=seed_runs,
                                        shared=shared)

    return kept(work, "method-metrics", model, config, mine, (perturbed, seed_runs), compute)


def measure_method(model, data, config, method: str, work: Work, shared: SharedInputs, *, explanations) -> None:
    """Per-case metrics of one method's ``explanations`` (skipped if it failed or explained nothing)."""
    mine = [e for e in explanations if e.method == method]
    if method in work.failed or not mine:
        return
    try:
        with work.clock.charge(method):
            work.per_instance_parts.append(method_metrics(
                model, data, config, mine, {k: v for k, v in work.perturbed.items() if k[0] == method},
                {k: v for k, v in work.seed_runs.items() if k[0] == method}, work, shared))
    except Exception as err:
        log.exception("Metrics failed for %s", method)
        work.fail(method, f"metrics: {describe_error(err)}")


def claim_frame(model, data, config, claimed: list, work: Work, shared: SharedInputs):
    """Claim-scoped metrics in one pass over every method's ``claimed`` explanations (every method on the same
    neighbours and baseline, paired per case), charged to the methods by share: a frame (``None`` when nothing
    is claimed), or the error that stopped them."""
    def compute():
        claims = paired_rows(model, data, claimed, config, shared=shared)
        return pd.DataFrame(claims, columns=INSTANCE_COLUMNS).astype({"value": float, "derived": bool}) \
            if claims else None

    try:
        claim_start = time.perf_counter()
        frame = kept(work, "paired-metrics", model, config, claimed, (), compute)
        charge_shares(work.clock, claimed, time.perf_counter() - claim_start)
    except Exception as err:  # the other metrics still count; the failure is recorded where results are read
        log.exception("The paired metric passes (question skills) failed")
        return err
    return frame


def record_claims(frame, ok_methods: list[str], work: Work) -> None:
    """Add :func:`claim_frame`'s answer to the run: its rows, or its error as a failure of the methods measured."""
    if isinstance(frame, Exception):
        work.failures.append({"method": "/".join(ok_methods), "error": f"question skills (measured on every method together): {describe_error(frame)}"})
    elif frame is not None:
        work.per_instance_parts.append(frame)


def charge_shares(clock: MethodClock, explanations, seconds: float) -> None:
    """Charge one pass over every method's explanations to the methods, in proportion to their count."""
    counts = pd.Series([e.method for e in explanations]).value_counts()
    for method, n in counts.items():
        clock.seconds[method] = clock.seconds.get(method, 0.0) + seconds * n / max(len(explanations), 1)
