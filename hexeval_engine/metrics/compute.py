"""Every applicable metric for every explanation, as one long per-instance table.

Public interface (stable)
-------------------------
``compute_instance_metrics(model, data, explanations, config, *, perturbed=None, seed_runs=None,
shared=None) -> pandas.DataFrame`` with columns ``method``, ``instance_id``, ``metric``, ``value``, ``derived``
``INSTANCE_COLUMNS``  that column list
``relevance_vector(explanation, feature_names) -> ndarray``  what the vector metrics rank

* Vector metrics, computed the same way for every explanation with an importance vector (any
  method, the Random baseline included; nothing depends on the method's name): fidelity
  (raw, normalised and combined deletion/insertion), soft sufficiency / comprehensiveness and
  parsimony. Their masked rows go to the model together, in chunks of 50,000 rows. Rows from
  Anchor/DiCE derived vectors carry ``derived=True`` (from ``Explanation.importance_derived``).
* Rule metrics for explanations with a rule (from the search, and on the held-out test rows);
  counterfactual metrics for explanations with counterfactuals (including the distance to the
  training data and the range check).
* Stability: ``perturbed`` maps ``(method, instance_id)`` to the explanations of the noisy copies
  of that instance, copy ``r`` at position ``r`` (as ``technical_stability.stability_explanations``
  makes them): ``stability`` (mean cosine, kept for reference), ``max_sensitivity`` and
  ``local_lipschitz``. ``seed_runs`` maps ``(method, instance_id)`` to explanations of the same
  instance with different seeds (LIME): ``lime_seed_agreement``.
* Failed explanations (``error`` set) are skipped; feed them to the report separately.

Model calls: one (chunked) for all masked rows; one on ``X_test`` when there are rules; one on
``X_train`` when there are counterfactuals or ``evaluation.fidelity.baseline`` is
``other_class_average``; one on the noisy copies when ``perturbed`` is given. A ``shared``
:class:`~hexeval_engine.metrics.shared_inputs.SharedInputs` passed by the caller makes the training-row,
baseline and noisy-copy work happen once across several calls (same values).
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from .counterfactuals import CounterfactualSpace, counterfactual_metrics
from .fidelity import FidelityCurves
from .masking import MaskedRows
from .parsimony import entropy_complexity, gini_sparseness, num_important_features
from .plausibility import plausibility_table
from .registry import method_rows
from ..explainers.actionability import FIXED, declares_limits, feature_actionability, forbidden_changes
from .rules import held_out_rule_metrics, rule_coverage, rule_length, rule_precision
from .sensitivity import local_lipschitz, max_sensitivity, standardised_distances
from .soft_removal import SoftRemoval
from .stability import explanation_vector, instance_stability, seed_agreement
from .shared_inputs import SharedInputs

log = logging.getLogger(__name__)

INSTANCE_COLUMNS = ["method", "instance_id", "metric", "value", "derived"]
_PARSIMONY = {"num_important_features": num_important_features, "gini_sparseness": gini_sparseness,
              "entropy_complexity": entropy_complexity}


def compute_instance_metrics(model, data, explanations, config, *, perturbed=None, seed_runs=None,
                             shared: SharedInputs | None = None) -> pd.DataFrame:
    """Per-instance metric values for a list of explanations.

    Parameters
    ----------
    model : HexevalModel
        The wrapped model (``predict_proba`` / ``predict`` on raw rows).
    data : Dataset
        ``instance_id`` of each explanation is a row position in ``data.X_test``; ``X_train``
        gives the training range and neighbours of counterfactuals.
    explanations : list of Explanation
        Any mix of methods; failed ones are skipped.
    config : HexevalConfig
        Uses ``evaluation.random_state``, ``evaluation.fidelity`` (``steps``, ``min_gap``,
        ``tie_draws``, ``soft_draws``, ``baseline``), ``evaluation.stability.noise_std``,
        ``evaluation.counterfactual`` and ``evaluation.explainers.dice`` (``immutable_features``,
        ``feature_ranges``).
    perturbed, seed_runs : dict, optional
        ``{(method, instance_id): [Explanation, ...]}`` for the stability metrics and
        ``lime_seed_agreement``.
    shared : SharedInputs, optional
        Training-row classes, baselines and noisy copies shared with other metric passes of the same
        model and data, so they are computed once (a new one is made when omitted or when it belongs
        to another model or data set).

    Returns
    -------
    pandas.DataFrame
        Columns ``INSTANCE_COLUMNS``; ``value`` may be ``NaN`` where a metric is undefined
        for that instance (documented per metric).
    """
    ok = [e for e in explanations if e.error is None]
    if shared is None or not shared.belongs_to(model, data):
        shared = SharedInputs(model, data)
    rows = method_rows(model, data, ok, config, shared=shared, perturbed=perturbed, seed_runs=seed_runs)
    frame = pd.DataFrame(rows, columns=INSTANCE_COLUMNS)
    return frame.astype({"value": float, "derived": bool})


# The method-scope passes (``metrics.registry.PASSES``), each with the pass signature.

def vector_pass(model, data, explanations, config, *, shared, **_) -> list[tuple]:
    """Fidelity, soft removal and parsimony of every explanation with an importance vector."""
    return _vector_rows(model, data, [e for e in explanations if _has_vector(e)], config, shared)


def rule_pass(model, data, explanations, config, **_) -> list[tuple]:
    """Rule metrics of every explanation with a rule (search estimates and held out)."""
    return _rule_rows(model, data, [e for e in explanations if e.rule is not None])


def counterfactual_pass(model, data, explanations, config, *, shared, **_) -> list[tuple]:
    """Counterfactual metrics of every explanation with counterfactuals."""
    return _counterfactual_rows(data, [e for e in explanations if e.counterfactuals is not None], config, shared)


def stability_pass(model, data, explanations, config, *, shared, perturbed, **_) -> list[tuple]:
    """Stability on noisy copies (``perturbed``)."""
    return _stability_rows(data, {(e.method, e.instance_id): e for e in explanations}, perturbed, config, shared)


def seed_agreement_pass(model, data, explanations, config, *, seed_runs, **_) -> list[tuple]:
    """Agreement of a method with itself across seeds (``seed_runs``: LIME's re-runs)."""
    by_key = {(e.method, e.instance_id): e for e in explanations}
    rows = []
    for (method, iid), runs in seed_runs.items():
        runs = list(runs)
        if (method, iid) in by_key and not any(r is by_key[(method, iid)] for r in runs):
            runs = [by_key[(method, iid)], *runs]
        rows.append((method, iid, "lime_seed_agreement", seed_agreement(runs, data.feature_names), False))
    return rows


def _has_vector(e) -> bool:
    return e.importance is not None or e.attributions is not None


def relevance_vector(explanation, feature_names) -> np.ndarray:
    """The explanation's relevance per feature, in ``feature_names`` order (missing features = 0).

    Signed attributions towards the explained class where the explanation has them, else its
    non-negative importance vector (Anchor's rule features, DiCE's changed features).
    """
    weights = explanation.attributions if explanation.attributions is not None else explanation.importance
    unknown = [f for f in (weights or {}) if f not in feature_names]
    if unknown:
        raise ValueError(f"The {explanation.method} explanation of case {explanation.instance_id} names feature(s) "
                         f"{sorted(unknown)} that are not columns of the data ({list(feature_names)}); explanations "
                         "must speak in the original columns.")
    return explanation_vector(explanation, feature_names)


def _importance(explanation, feature_names) -> np.ndarray:
    weights = explanation.importance if explanation.importance is not None else explanation.attributions
    return np.array([abs(float(weights.get(f, 0.0))) for f in feature_names])


def _vector_rows(model, data, explanations, config, shared: SharedInputs) -> list[tuple]:
    if not explanations:
        return []
    ev = config.evaluation
    features = list(data.feature_names)
    scores = np.array([relevance_vector(e, features) for e in explanations]).reshape(len(explanations), len(features))
    positions = np.array([e.instance_id for e in explanations], dtype=int)
    classes = np.array([e.predicted_class for e in explanations], dtype=int)
    masked = MaskedRows(data.X_test[features], shared.baseline(ev.fidelity.baseline))
    per_class = ev.fidelity.baseline == "other_class_average"  # row c: typical of the class other than c
    baseline_of = classes if per_class else np.zeros(len(classes), dtype=int)
    common = {"positions": positions, "random_state": ev.random_state, "instance_ids": positions,
              "baseline_of": baseline_of}
    curves = FidelityCurves(masked, scores, classes, ev.fidelity.steps, tie_draws=ev.fidelity.tie_draws, **common)
    soft = SoftRemoval(masked, scores, classes, draws=ev.fidelity.soft_draws, **common)
    proba = masked.predict(model)
    values = {**curves.result(proba, min_gap=ev.fidelity.min_gap), **soft.result(proba, min_gap=ev.fidelity.min_gap)}
    out = []
    for i, e in enumerate(explanations):
        out += [(e.method, e.instance_id, name, float(v[i]), e.importance_derived) for name, v in values.items()]
        vector = _importance(e, features)
        out += [(e.method, e.instance_id, name, fn(vector), e.importance_derived) for name, fn in _PARSIMONY.items()]
    return out


def _rule_rows(model, data, explanations) -> list[tuple]:
    if not explanations:
        return []
    X_test = data.X_test[list(data.feature_names)]
    predicted = model.predict(X_test)
    out = []
    for e in explanations:
        out += [(e.method, e.instance_id, "rule_precision", rule_precision(e.rule), False),
                (e.method, e.instance_id, "rule_coverage", rule_coverage(e.rule), False),
                (e.method, e.instance_id, "rule_length", rule_length(e.rule), False)]
        held_out = held_out_rule_metrics(e.rule, e.predicted_class, X_test, predicted, exclude=e.instance_id,
                                         categorical=data.categorical_features)
        out += [(e.method, e.instance_id, name, value, False) for name, value in held_out.items()]
    return out


def _counterfactual_rows(data, explanations, config, shared: SharedInputs) -> list[tuple]:
    if not explanations:
        return []
    ev = config.evaluation
    dice, checks = ev.explainers.dice, ev.counterfactual
    kinds = feature_actionability(config, data.feature_names)
    space = CounterfactualSpace.from_data(data, immutable_features=[f for f, k in kinds.items() if k in FIXED],
                                          feature_ranges=dice.feature_ranges)
    manifold = shared.manifold(k=checks.k_neighbours, reference_rows=checks.reference_rows,
                               random_state=ev.random_state)
    instances = [data.X_test.iloc[e.instance_id] for e in explanations]
    plausible = plausibility_table(instances, [e.predicted_class for e in explanations],
                                   [e.counterfactuals for e in explanations], manifold, space,
                                   max_knn_ratio=checks.max_knn_ratio)
    rows = []
    limits = declares_limits(config)  # nothing declared: every change counts as possible, so 0 would say nothing
    for e, instance, extra in zip(explanations, instances, plausible):
        values = {**counterfactual_metrics(instance, e.counterfactuals, space), **extra}
        if e.counterfactuals and limits:  # share of its counterfactuals that change what the person cannot change
            values["counterfactual_non_actionable"] = float(np.mean(
                [bool(forbidden_changes(cf.changes, kinds)) for cf in e.counterfactuals]))
        rows += [(e.method, e.instance_id, name, value, False) for name, value in values.items()]
    return rows


def _stability_rows(data, by_key, perturbed, config, shared: SharedInputs) -> list[tuple]:
    keys = [k for k in perturbed if k in by_key]
    if not keys:
        return []
    features = list(data.feature_names)
    distances = _copy_distances(data, [(k, perturbed[k]) for k in keys], config, shared)
    rows = []
    for key in keys:
        original, others = by_key[key], list(perturbed[key])
        e_x = explanation_vector(original, features)
        e_copies = np.array([explanation_vector(o, features) if o.error is None else np.full(len(features), np.nan)
                             for o in others]).reshape(len(others), len(features))
        method, iid = key
        derived = original.importance_derived
        rows += [(method, iid, "stability", instance_stability(original, others, features), derived),
                 (method, iid, "max_sensitivity", max_sensitivity(e_x, e_copies), derived),
                 (method, iid, "local_lipschitz", local_lipschitz(e_x, e_copies, distances[key]), derived)]
    return rows


def _copy_distances(data, items, config, shared: SharedInputs) -> dict:
    """``||x' - x||`` in standardised units for every noisy copy, rebuilt from the run's seeds.

    The copies are regenerated with :func:`hexeval_engine.metrics.stability.noisy_copies` (copy
    ``r`` at list position ``r``) and checked against the probability each perturbed explanation
    recorded; a copy that does not match (or a failed explanation) gets ``NaN``, so
    ``local_lipschitz`` uses only copies it can vouch for.
    """
    ev = config.evaluation
    numeric = list(data.numeric_features)
    scales = data.X_train[numeric].apply(pd.to_numeric, errors="coerce").std(skipna=True).fillna(0.0).to_numpy()
    features = list(data.feature_names)
    iids = sorted({iid for (_, iid), _ in items})
    repeats = max((len(others) for _, others in items), default=0)
    if not iids or not repeats:
        return {key: np.empty(0) for key, _ in items}
    position = {iid: k for k, iid in enumerate(iids)}
    # copy r of every case at once (a copy depends only on its case and r), shared by every method
    stacked, proba = shared.noisy_copies(iids, repeats=repeats, noise_std=ev.stability.noise_std,
                                         random_state=ev.random_state)
    proba = proba.reshape(repeats, len(iids), 2)
    numeric_copies = (stacked[numeric].to_numpy(dtype=float, na_value=np.nan).reshape(repeats, len(iids), len(numeric))
                      if numeric else np.empty((repeats, len(iids), 0)))
    cases = data.X_test[numeric].to_numpy(dtype=float, na_value=np.nan) if numeric else np.empty((len(data.X_test), 0))
    out = {}
    for (method, iid), others in items:
        k, span = position[iid], len(others)
        x = cases[iid]  # the case's numeric values (row iid of the test rows), read once for every item
        dist = standardised_distances(x, numeric_copies[:span, k, :], scales)
        recorded = np.array([o.probability if o.error is None else np.nan for o in others], dtype=float)
        rebuilt = proba[np.arange(span), k, [o.predicted_class for o in others]]
        matches = np.isclose(recorded, rebuilt, rtol=0, atol=1e-6)
        if not matches[np.isfinite(recorded)].all():
            log.warning("Local Lipschitz estimate of %s on case %s skips %d noisy cop(ies) that could not be "
                        "rebuilt from the run's seeds.", method, iid, int((~matches & np.isfinite(recorded)).sum()))
        out[(method, iid)] = np.where(matches, dist, np.nan)
    return out
