"""Questions with a right answer: "If *feature* were *value* (everything else unchanged), what would the
model predict?" — decided by the run's real model, drawn so that about half change the prediction.

Forward simulation as an objective measure of what an explanation lets a reader anticipate follows
Hase & Bansal (2020, "Evaluating explainable AI: which algorithmic explanations help users predict
model behavior?") and Ribeiro et al. (2018, "Anchors").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..vocabulary import Vocabulary


def candidate_values(X_train: pd.DataFrame, feature: str, current, *, categorical: bool) -> list:
    """Values a what-if may set ``feature`` to: other observed categories, or the 10th/50th/90th
    /25th/50th/75th/90th percentiles of a numeric column (rounded like the column), never the current value."""
    col = X_train[feature].dropna()
    if categorical or not pd.api.types.is_numeric_dtype(col):
        values = list(pd.unique(col))
    else:
        values = list(np.unique(np.quantile(col.to_numpy(dtype=float), [0.1, 0.25, 0.5, 0.75, 0.9])))
        if pd.api.types.is_integer_dtype(col):
            values = sorted({int(round(v)) for v in values})
    return [v for v in values if not _same(v, current)]


def _same(a, b) -> bool:
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def draw_what_ifs(model, data, instance_ids: list[int], *, vocabulary: Vocabulary, seed: int) -> dict[int, dict]:
    """One what-if per case, half of them (rounded up) chosen to change the prediction.

    Every candidate (feature, value) of every case is re-predicted by ``model`` in one batch; the
    cases that should change are drawn from those where some single change flips the prediction
    (when fewer than half can, fewer change: ``changes`` records it per case).

    Returns
    -------
    dict
        ``{instance_id: {"feature", "value", "value_label", "feature_label", "current_label",
        "answer" (0/1, the class the model predicts after the change), "original" (0/1), "changes"}}``.
    """
    rng = np.random.default_rng(seed)
    rows, keys = [], []
    categorical = set(data.categorical_features)
    for iid in instance_ids:
        base = data.X_test.iloc[int(iid)]
        for f in data.feature_names:
            for value in candidate_values(data.X_train, f, base[f], categorical=f in categorical):
                row = base.copy()
                row[f] = value
                rows.append(row)
                keys.append((iid, f, value))
    originals = model.predict(data.X_test.iloc[[int(i) for i in instance_ids]])
    original = {iid: int(p) for iid, p in zip(instance_ids, originals)}
    predicted = model.predict(pd.DataFrame(rows, columns=data.feature_names)) if rows else np.array([])
    can_change = [iid for iid in instance_ids
                  if any(i == iid and int(p) != original[iid] for (i, _, _), p in zip(keys, predicted))]
    rng.shuffle(can_change)
    changing = set(can_change[:(len(instance_ids) + 1) // 2])
    want_change = {iid: iid in changing for iid in instance_ids}
    result = {}
    for iid in instance_ids:
        options = [(f, v, int(p)) for (i, f, v), p in zip(keys, predicted) if i == iid]
        wanted = [o for o in options if (o[2] != original[iid]) == want_change[iid]]
        pool = wanted or options
        if not pool:
            continue
        f, value, answer = pool[int(rng.integers(len(pool)))]
        base = data.X_test.iloc[int(iid)]
        result[int(iid)] = {"feature": f, "value": _plain(value), "feature_label": vocabulary.name(f),
                            "value_label": vocabulary.label(f, value), "current_label": vocabulary.label(f, base[f]),
                            "answer": answer, "original": original[iid], "changes": answer != original[iid]}
    return result


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def question_text(what_if: dict) -> str:
    """The question as a person reads it."""
    return (f"If {what_if['feature_label']} were {what_if['value_label']} instead of {what_if['current_label']} "
            "(everything else unchanged), what would the model predict?")
