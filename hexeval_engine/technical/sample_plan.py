"""The technical stage's sample: which test cases it explains, how many each method explains, which are shared.

Public interface
----------------
``sample_instance_ids(data, config) -> list[int]``  the sample (test-set positions)
``Sample``  the cases and their per-method counts; ``plan_sample(data, config)``, ``group_sample(group, sample)``,
``counterfactual_sample(group, sample)``
``shared_cases(explanations, ids, methods) -> list[int]``  the cases every method explained
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..explainers.registry import enabled_methods, spec_of
from ..explainers.base import explained_classes
from .class_groups import CaseGroup


def sample_instance_ids(data, config) -> list[int]:
    """``evaluation.sample_size`` test-set positions (capped at its size), fixed by ``evaluation.random_state``."""
    n = min(config.evaluation.sample_size, len(data.X_test))
    rng = np.random.default_rng(config.evaluation.random_state)
    return sorted(int(i) for i in rng.choice(len(data.X_test), size=n, replace=False))




@dataclass
class Sample:
    """The cases to explain and how many of them each method explains.

    Attributes
    ----------
    methods : list of str
        The enabled methods, in running order.
    ids : list of int
        The sample (row positions in ``data.X_test``).
    X : DataFrame
        The sample's feature values, in ``ids`` order.
    classes, probabilities : ndarray
        The explained class and its probability per case.
    counts : dict
        Cases each method explains (the first ``counts[method]`` of the sample).
    stab_methods : list of str
        Methods measured for stability on noisy copies.
    reruns : str or None
        The method that re-explains the stability cases with other seeds (its spec's ``seed_reruns``: LIME), or
        ``None``.
    n_stab : int
        Cases (from the start of the sample) the stability runs use.
    repeats : int
        Noisy copies (or re-runs) per stability case.
    """

    methods: list
    ids: list
    X: pd.DataFrame
    classes: np.ndarray
    probabilities: np.ndarray
    counts: dict
    stab_methods: list
    reruns: str | None
    n_stab: int
    repeats: int

    def progress_units(self) -> int:
        """Steps the progress bar counts: every explanation, every stability run and the metrics."""
        stab_units = self.n_stab * self.repeats * (len(self.stab_methods) + bool(self.reruns))
        return sum(self.counts.values()) + stab_units + 1


def plan_sample(data, config) -> Sample:
    """Draw the sample and decide how many cases each method and the stability runs use (the groups'
    models predict it: :func:`group_sample`)."""
    ev = config.evaluation
    methods = enabled_methods(config)
    ids = sample_instance_ids(data, config)
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = np.zeros(len(ids), dtype=int), np.zeros(len(ids))
    counts = {m: instances_for(m, len(ids), config) for m in methods}
    if counts and not ev.explain_unshared:  # cases beyond the smallest cap could never be compared
        cap = min(counts.values())
        counts = {m: min(n, cap) for m, n in counts.items()}
    testing = ev.explainers.lime.stability_test
    specs = {m: spec_of(m, config) for m in methods}
    stab_methods = [m for m in methods if specs[m].has_stability and m in ev.stability.methods] if testing else []
    rerun = next((m for m, s in specs.items() if s.seed_reruns), None)
    reruns = rerun if testing and ev.explainers.lime.seed_reruns else None
    # the first ``stability_subset`` cases of the sample, as configured (not cut to Anchor's or DiCE's
    # cap); the shared cases are at the start of the sample (Anchor and DiCE explain its start)
    n_stab = min(ev.explainers.lime.stability_subset, max(counts.values(), default=0))
    return Sample(methods, ids, X, classes, probabilities, counts, stab_methods, reruns, n_stab,
                   ev.stability.repeats)


def group_sample(group: CaseGroup, sample: Sample) -> Sample:
    """The part of ``sample`` in ``group``, predicted by the group's model: a method explains the group's
    cases among the sample's first ``counts[method]``, the stability runs those among its first ``n_stab``."""
    position = {i: k for k, i in enumerate(sample.ids)}
    ids = list(group.ids)
    X = sample.X.iloc[[position[i] for i in ids]].reset_index(drop=True)
    classes, probabilities = explained_classes(group.model, X) if ids else (np.array([], int), np.array([]))

    def within(n: int) -> int:
        return sum(1 for i in ids if position[i] < n)

    return dataclasses.replace(sample, ids=ids, X=X, classes=classes, probabilities=probabilities,
                               counts={m: within(n) for m, n in sample.counts.items()}, n_stab=within(sample.n_stab))


def counterfactual_sample(group: CaseGroup, sample: Sample) -> Sample:
    """The group's sample as the counterfactual view predicts it (its probability of the explained class)."""
    classes, probabilities = explained_classes(group.counterfactual_model, sample.X) if sample.ids else \
        (sample.classes, sample.probabilities)
    return dataclasses.replace(sample, classes=classes, probabilities=probabilities)


def instances_for(method: str, n: int, config) -> int:
    """How many of the sample's ``n`` cases ``method`` explains (its spec's case cap)."""
    return spec_of(method, config).cap(config, n)


def shared_cases(explanations, ids, methods) -> list[int]:
    """The ids (in sample order) that every one of ``methods`` explained without error."""
    ok_by_method = {m: {e.instance_id for e in explanations if e.method == m and e.ok} for m in methods}
    if not ok_by_method:
        return []
    common = set.intersection(*ok_by_method.values())
    return [i for i in ids if i in common]
