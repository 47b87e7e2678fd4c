"""The extra explanations the stability metrics compare: of noisy copies, and LIME with other seeds.

Public interface
----------------
``noisy_copies`` (lives in :mod:`hexeval_engine.metrics.stability`, which rebuilds the same copies; re-exported here
for the callers that knew it from this module)
``stability_jobs(model, data, config, X_raw, ids, classes, methods, *, seed_reruns=None) -> list[ExplainJob]``
the explanation calls the stability runs make (so a run can announce them before explaining anything)
``stability_explanations(runner, model, data, config, X_raw, ids, classes, methods, *, on_instance=None,
clock=None, seed_reruns=None, jobs=None) -> (perturbed, seed_runs)``  the dicts ``compute_instance_metrics`` takes

Noise (Alvarez-Melis & Jaakkola 2018): every numeric feature gets Gaussian noise with standard
deviation ``evaluation.stability.noise_std`` times that feature's training standard deviation;
categorical features and missing values are left unchanged. Each copy is explained for the class
the model predicted for the *original* instance, so the comparison is like for like. Each
instance's noise and seeds derive from ``evaluation.random_state`` and its id only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..explainers.base import instance_seed
from ..runtime.parallel import ExplainJob
from ..metrics.stability import noisy_copies
from .timing import MethodClock


def stability_jobs(model, data, config, X_raw: pd.DataFrame, ids, classes, methods, *,
                   seed_reruns: str | None = None) -> list[ExplainJob]:
    """The explanation calls of the stability runs: noisy copies per method in ``methods``, then the re-runs of
    the method ``seed_reruns`` names (LIME: its spec's ``seed_reruns``) with other seeds.

    Predicts the copies (one model call) and, with ``seed_reruns``, the cases (one more).
    """
    settings = config.evaluation.stability
    rs = config.evaluation.random_state
    classes = np.asarray(classes, dtype=int)
    jobs = []
    if methods:
        copies = [noisy_copies(data, X_raw, ids, noise_std=settings.noise_std, repeat=r, random_state=rs)
                  for r in range(settings.repeats)]
        stacked = pd.concat(copies, ignore_index=True)
        stacked_ids = [iid for _ in copies for iid in ids]
        stacked_classes = np.tile(classes, len(copies))
        proba = model.predict_proba(stacked)
        stacked_prob = proba[np.arange(len(stacked)), stacked_classes]
        for method in methods:
            seeds = [instance_seed(rs, iid, f"{method}:noise:{k // len(ids)}") for k, iid in enumerate(stacked_ids)]
            jobs.append(ExplainJob(method, stacked, stacked_ids, stacked_classes, stacked_prob, seeds, render=False,
                                   purpose="noise"))
    if seed_reruns:
        X_rep = pd.concat([X_raw.reset_index(drop=True)] * settings.repeats, ignore_index=True)
        rep_ids = [iid for _ in range(settings.repeats) for iid in ids]
        rep_classes = np.tile(classes, settings.repeats)
        proba = model.predict_proba(X_raw)
        rep_prob = np.tile(proba[np.arange(len(ids)), classes], settings.repeats)
        seeds = [instance_seed(rs, iid, f"{seed_reruns}:rerun:{k // len(ids)}") for k, iid in enumerate(rep_ids)]
        jobs.append(ExplainJob(seed_reruns, X_rep, rep_ids, rep_classes, rep_prob, seeds, render=False, purpose="rerun"))
    return jobs


def stability_explanations(runner, model, data, config, X_raw: pd.DataFrame, ids, classes, methods, *,
                           on_instance=None, clock=None, seed_reruns: str | None = None, jobs=None) -> tuple[dict, dict]:
    """Explanations of noisy copies (``methods``) and re-runs with other seeds.

    ``seed_reruns`` names the method re-run with other seeds (LIME, when ``explainers.lime.seed_reruns``). ``jobs``: the calls
    :func:`stability_jobs` planned earlier (those of methods not in ``methods`` and, without ``seed_reruns``,
    the re-runs are skipped); planned here when not given.

    ``clock`` (a :class:`~hexeval_engine.technical.timing.MethodClock`), if given, is charged each
    method's explanations under that method's name.

    Returns
    -------
    perturbed, seed_runs : dict
        ``{(method, instance_id): [Explanation, ...]}``.
    """
    if jobs is None:
        jobs = stability_jobs(model, data, config, X_raw, ids, classes, methods, seed_reruns=seed_reruns)
    perturbed: dict = {}
    seed_runs: dict = {}
    clock = clock or MethodClock()
    for job in jobs:
        rerun = job.purpose == "rerun"
        if (rerun and not seed_reruns) or (not rerun and job.method not in methods):
            continue
        with clock.charge(job.method):
            explained = runner.explain(job.method, job.X_raw, job.ids, job.classes, job.probabilities, job.seeds,
                                       on_instance=on_instance, render=False)
        into = seed_runs if rerun else perturbed
        for e in explained:
            into.setdefault((job.method, e.instance_id), []).append(e)
    return perturbed, seed_runs
