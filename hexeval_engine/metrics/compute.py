"""Every applicable metric for every explanation, as one long per-instance table.

Public interface (stable)
-------------------------
``compute_instance_metrics(model, data, explanations, config, *, perturbed=None, seed_runs=None)
-> pandas.DataFrame`` with columns ``method``, ``instance_id``, ``metric``, ``value``, ``derived``
``INSTANCE_COLUMNS``  that column list

* Fidelity (deletion / insertion AUC) for every explanation with an importance vector, all
  methods batched into one vectorised computation; parsimony on the same vectors. Rows from
  Anchor/DiCE derived vectors carry ``derived=True`` (from ``Explanation.importance_derived``).
* Rule metrics for explanations with a rule, counterfactual metrics for explanations with
  counterfactuals.
* Stability: ``perturbed`` maps ``(method, instance_id)`` to the explanations of noisy copies
  of that instance; ``seed_runs`` maps ``(method, instance_id)`` to explanations of the same
  instance with different seeds (LIME), the one in ``explanations`` need not be included.
* Failed explanations (``error`` set) are skipped; feed them to the report separately.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .baseline import make_baseline
from .counterfactuals import CounterfactualSpace, counterfactual_metrics
from .fidelity import deletion_insertion_auc
from .parsimony import entropy_complexity, gini_sparseness, num_important_features
from .rules import rule_coverage, rule_length, rule_precision
from .stability import instance_stability, seed_agreement

INSTANCE_COLUMNS = ["method", "instance_id", "metric", "value", "derived"]
_PARSIMONY = {"num_important_features": num_important_features, "gini_sparseness": gini_sparseness,
              "entropy_complexity": entropy_complexity}


def compute_instance_metrics(model, data, explanations, config, *, perturbed=None, seed_runs=None) -> pd.DataFrame:
    """Per-instance metric values for a list of explanations.

    Parameters
    ----------
    model : HexevalModel
        The wrapped model (``predict_proba`` on raw rows).
    data : Dataset
        ``instance_id`` of each explanation is a row position in ``data.X_test``.
    explanations : list of Explanation
        Any mix of methods; failed ones are skipped.
    config : HexevalConfig
        Uses ``evaluation.fidelity.steps`` and ``evaluation.explainers.dice``
        (``immutable_features``, ``feature_ranges``).
    perturbed, seed_runs : dict, optional
        ``{(method, instance_id): [Explanation, ...]}`` for ``stability`` and
        ``lime_seed_agreement``.

    Returns
    -------
    pandas.DataFrame
        Columns ``INSTANCE_COLUMNS``; ``value`` may be ``NaN`` where a metric is undefined
        for that instance (documented per metric).
    """
    ok = [e for e in explanations if e.error is None]
    rows: list[tuple] = []
    rows += _fidelity_rows(model, data, [e for e in ok if e.importance is not None], config.evaluation.fidelity.steps)
    for e in ok:
        if e.importance is not None:
            vector = _importance_matrix([e], data.feature_names)[0]
            rows += [(e.method, e.instance_id, name, fn(vector), e.importance_derived) for name, fn in _PARSIMONY.items()]
        if e.rule is not None:
            rows += [(e.method, e.instance_id, "rule_precision", rule_precision(e.rule), False),
                     (e.method, e.instance_id, "rule_coverage", rule_coverage(e.rule), False),
                     (e.method, e.instance_id, "rule_length", rule_length(e.rule), False)]
    rows += _counterfactual_rows(data, [e for e in ok if e.counterfactuals is not None], config)
    by_key = {(e.method, e.instance_id): e for e in ok}
    for (method, iid), others in (perturbed or {}).items():
        if (method, iid) in by_key:
            rows.append((method, iid, "stability", instance_stability(by_key[(method, iid)], others,
                                                                      data.feature_names), False))
    for (method, iid), runs in (seed_runs or {}).items():
        runs = list(runs)
        if (method, iid) in by_key and not any(r is by_key[(method, iid)] for r in runs):
            runs = [by_key[(method, iid)], *runs]
        rows.append((method, iid, "lime_seed_agreement", seed_agreement(runs, data.feature_names), False))
    frame = pd.DataFrame(rows, columns=INSTANCE_COLUMNS)
    return frame.astype({"value": float, "derived": bool})


def _importance_matrix(explanations, feature_names) -> np.ndarray:
    unknown = {f for e in explanations for f in e.importance if f not in feature_names}
    if unknown:
        raise ValueError(f"Importance vectors name feature(s) {sorted(unknown)} that are not raw features "
                         f"({list(feature_names)}); explanations must speak in the original CSV columns.")
    return np.array([[float(e.importance.get(f, 0.0)) for f in feature_names] for e in explanations]).reshape(
        len(explanations), len(feature_names))


def _fidelity_rows(model, data, explanations, steps) -> list[tuple]:
    if not explanations:
        return []
    X = data.X_test.iloc[[e.instance_id for e in explanations]][list(data.feature_names)]
    importances = np.abs(_importance_matrix(explanations, data.feature_names))
    classes = np.array([e.predicted_class for e in explanations])
    deletion, insertion = deletion_insertion_auc(model, X, importances, classes, make_baseline(data), steps)
    rows = []
    for e, d, i in zip(explanations, deletion, insertion):
        rows += [(e.method, e.instance_id, "fidelity_deletion", float(d), e.importance_derived),
                 (e.method, e.instance_id, "fidelity_insertion", float(i), e.importance_derived)]
    return rows


def _counterfactual_rows(data, explanations, config) -> list[tuple]:
    if not explanations:
        return []
    dice = config.evaluation.explainers.dice
    space = CounterfactualSpace.from_data(data, immutable_features=dice.immutable_features,
                                          feature_ranges=dice.feature_ranges)
    rows = []
    for e in explanations:
        instance = data.X_test.iloc[e.instance_id]
        for name, value in counterfactual_metrics(instance, e.counterfactuals, space).items():
            rows.append((e.method, e.instance_id, name, value, False))
    return rows
