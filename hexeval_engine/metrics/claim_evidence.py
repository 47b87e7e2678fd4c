"""Claim-scoped faithfulness, equal-k comparisons and the reader's test for every method, on shared cases.

Public interface (stable)
-------------------------
``claim_rows(model, data, explanations, config, *, neighbours=200, replace_share=0.3, shared=None) -> list[tuple]``
``CLAIM_METRICS``  the per-instance metric names this module writes
``technical_claim_score(sufficiency, accuracy) -> ndarray``

For every explanation that makes a claim (:func:`hexeval_engine.metrics.claims.named_features`):

* ``claim_comprehensiveness`` / ``claim_sufficiency`` at the explanation's own size;
* equal-k comparisons on the same case: every explanation with a ranking (SHAP, LIME, Random) is also
  scored on its own top-k cut to the size of the case's rule (``..._at_rule_k``) and of its
  counterfactuals (``..._at_counterfactual_k``); the rule and the counterfactuals carry their own
  value under the matching name, so the comparison is one paired column;
* ``reader_precision``, ``reader_coverage`` and ``reader_accuracy`` (:mod:`.readers`), every method's
  reader on the same neighbours of the case;
* ``technical_claim_score``: the cross-family technical score, the mean of claim sufficiency (clipped
  to [0, 1]) and reader accuracy. Claim comprehensiveness is reported and compared at equal k but is not
  part of the score: on a case with two reasons, each enough on its own, an exact minimal rule naming
  one of them has comprehensiveness 0, so the score would fault a rule for not claiming more than it
  claims (see ``docs/metrics.md``).

Removal uses the baseline of ``evaluation.fidelity.baseline``. Model calls: one on ``X_train`` when the
baseline is per class, one for all masked rows, one for all neighbours of all cases.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .claim_comprehensiveness import claim_comprehensiveness
from .claim_sufficiency import claim_sufficiency
from .claims import named_features, ranked_features
from .masking import MaskedRows
from .readers import ChangedMemo, make_reader, reader_accuracy, reader_neighbourhoods, reader_scores
from .shared_inputs import SharedInputs

CLAIM_METRICS = ("claim_comprehensiveness", "claim_sufficiency",
                 "claim_comprehensiveness_at_rule_k", "claim_sufficiency_at_rule_k",
                 "claim_comprehensiveness_at_counterfactual_k", "claim_sufficiency_at_counterfactual_k",
                 "reader_precision", "reader_coverage", "reader_accuracy", "technical_claim_score")


def technical_claim_score(sufficiency, accuracy) -> np.ndarray:
    """Mean of clipped claim sufficiency and reader accuracy (NaN-aware: the mean of the parts that are
    defined; NaN when none is)."""
    parts = np.vstack([np.clip(np.asarray(sufficiency, dtype=float), 0, 1),
                       np.asarray(accuracy, dtype=float)])
    defined = np.isfinite(parts)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined.any(axis=0), np.nansum(parts, axis=0) / defined.sum(axis=0), np.nan)


def _claims(explanations, features, top_k):
    """(explanation, named features) of every explanation that makes a claim, and each case's rule / CF size."""
    claims = []
    sizes: dict[tuple[int, str], int] = {}
    for e in explanations:
        named = named_features(e, feature_names=features, top_k=top_k) if e.error is None else None
        if named is None:
            continue
        claims.append((e, named))
        kind = "rule" if e.rule is not None else "counterfactual" if e.counterfactuals is not None else None
        if kind is not None:
            sizes[(int(e.instance_id), kind)] = len(named)
    return claims, sizes


def claim_pass(model, data, explanations, config, *, shared, **_) -> list:
    """The paired pass (``metrics.registry.PASSES``): :func:`claim_rows` with the default neighbourhood."""
    return claim_rows(model, data, explanations, config, shared=shared)


def claim_rows(model, data, explanations, config, *, neighbours: int = 200, replace_share: float = 0.3,
               shared: SharedInputs | None = None) -> list:
    """Per-instance rows ``(method, instance_id, metric, value, derived=False)`` for the metrics above.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    explanations : list of Explanation
        Every method's explanations of the cases to compare (failed ones are skipped).
    config : HexevalConfig
        Uses ``evaluation.random_state``, ``evaluation.fidelity`` (``baseline``, ``min_gap``) and
        ``personas.top_k_features`` (what an attribution explanation shows).
    neighbours, replace_share : int, float
        The reader's test: neighbours per case and the share of features each one redraws.
    shared : SharedInputs, optional
        The baseline (and the training rows' classes it needs), shared with the other metric passes
        (computed here when omitted or when it belongs to another model or data set).
    """
    ev = config.evaluation
    features = list(data.feature_names)
    top_k = config.personas.top_k_features
    claims, sizes = _claims(explanations, features, top_k)
    if not claims:
        return []
    if shared is None or not shared.belongs_to(model, data):
        shared = SharedInputs(model, data)
    base = shared.baseline(ev.fidelity.baseline)
    masked = MaskedRows(data.X_test[features], base)
    jobs = []  # (explanation, metric suffix, named set, removed slice, kept slice, baseline slice)
    for e, named in claims:
        variants = [("", named)]
        ranked = ranked_features(e, feature_names=features)
        for kind in ("rule", "counterfactual"):
            k = sizes.get((int(e.instance_id), kind))
            if k is None:
                continue
            own = e.rule is not None if kind == "rule" else e.counterfactuals is not None
            if own or ranked is not None:
                variants.append((f"_at_{kind}_k", named if own else ranked[:k]))
        for suffix, chosen in variants:
            in_set = np.isin(features, chosen)
            cls = int(e.predicted_class)
            which = [cls if ev.fidelity.baseline == "other_class_average" else 0]
            rows = masked.add([e.instance_id] * 3, np.vstack([in_set, ~in_set, np.ones(len(features), bool)]),
                              [cls] * 3, baseline_of=which * 3)
            jobs.append((e, suffix, rows.start))
    proba = masked.predict(model)
    out = []
    own_values = {}
    for e, suffix, start in jobs:
        f_removed, f_kept, f_base = proba[start], proba[start + 1], proba[start + 2]
        comp = float(claim_comprehensiveness([e.probability], [f_removed], [f_base], min_gap=ev.fidelity.min_gap)[0])
        suff = float(claim_sufficiency([f_kept], [f_base], [e.probability], min_gap=ev.fidelity.min_gap)[0])
        out += [(e.method, e.instance_id, f"claim_comprehensiveness{suffix}", comp, False),
                (e.method, e.instance_id, f"claim_sufficiency{suffix}", suff, False)]
        if not suffix:
            own_values[(e.method, e.instance_id)] = suff
    out += _reader_rows(model, data, [e for e, _ in claims], top_k, own_values, ev.random_state,
                        neighbours, replace_share)
    return out


def _reader_rows(model, data, explanations, top_k, own_values, random_state, n, replace_share) -> list:
    iids = sorted({int(e.instance_id) for e in explanations})
    hoods = reader_neighbourhoods(data, iids, n=n, replace_share=replace_share, random_state=random_state)
    stacked = pd.concat([hoods[i] for i in iids], ignore_index=True)
    predicted = np.asarray(model.predict(stacked), dtype=int).reshape(len(iids), n)
    actual = {i: predicted[k] for k, i in enumerate(iids)}
    out = []
    memos, cases = {i: ChangedMemo(hoods[i]) for i in iids}, {i: data.X_test.iloc[i] for i in iids}
    for e in explanations:
        iid = int(e.instance_id)
        expected = make_reader(e, data=data, top_k=top_k, case=cases[iid]).predict(hoods[iid], changed=memos[iid])
        precision, coverage = reader_scores(expected, actual[iid])
        accuracy = reader_accuracy(precision, coverage)
        suff = own_values.get((e.method, e.instance_id), np.nan)
        score = float(technical_claim_score([suff], [accuracy])[0])
        out += [(e.method, e.instance_id, "reader_precision", precision, False),
                (e.method, e.instance_id, "reader_coverage", coverage, False),
                (e.method, e.instance_id, "reader_accuracy", accuracy, False),
                (e.method, e.instance_id, "technical_claim_score", score, False)]
    return out
