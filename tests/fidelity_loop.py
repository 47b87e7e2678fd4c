"""Deletion/insertion areas with one model call per masked row: a check of the batched masking.

Not an oracle for the curves themselves (the feature orders and the area come from the same
``FidelityCurves`` plan as the code it checks; ``test_fidelity_hand_computed.py`` is the independent
oracle). It checks that batching, chunking and masking many rows at once give the values of masking
one row at a time. Used by ``test_metrics_fidelity.py`` and ``benchmarks/technical.py``; not part of
HEXEval's API.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hexeval_engine.metrics.fidelity import FidelityCurves, _check_one_per_row
from hexeval_engine.metrics.masking import MaskedRows


def deletion_insertion_auc_loop(model, X_raw: pd.DataFrame, scores, explained_class, baseline_row: pd.DataFrame,
                                steps: int, *, tie_draws: int = 1, random_state: int = 0,
                                instance_ids=None, baseline_of=None) -> tuple[np.ndarray, np.ndarray]:
    """Deletion and insertion areas of :func:`deletion_insertion_auc`, one model call per masked row.
    """
    _check_one_per_row(X_raw, scores)
    rows = MaskedRows(X_raw, baseline_row)
    plan = FidelityCurves(rows, scores, explained_class, steps, tie_draws=tie_draws, random_state=random_state,
                          instance_ids=instance_ids, baseline_of=baseline_of)
    curves = np.empty((len(plan.units), 2, len(plan.ks)))
    for u, i in enumerate(plan.units):
        instance = rows.X.iloc[[i]].reset_index(drop=True)
        base = rows.base.iloc[[plan.baseline_of[i]]].reset_index(drop=True)
        for s, k in enumerate(plan.ks):
            front = plan.orders[u, :k]
            for curve, (masked_from, rest_from) in enumerate(((base, instance), (instance, base))):
                row = rest_from.copy()
                for j in front:
                    col = plan.columns[j]
                    row[col] = masked_from[col].to_numpy()
                curves[u, curve, s] = model.predict_proba(row)[0, plan.cls[i]]
    values = plan.from_curves(curves)
    return values["fidelity_deletion"], values["fidelity_insertion"]

