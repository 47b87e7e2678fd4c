"""Stability of attribution explanations: under small input noise, and across LIME seeds.

Public interface (stable)
-------------------------
``attribution_similarity(a, b) -> float``                      cosine similarity of two vectors
``explanation_vector(explanation, feature_names) -> ndarray``   signed attributions (or importance)
``instance_stability(original, perturbed, feature_names) -> float``
``seed_agreement(runs, feature_names) -> float``
``noisy_copies(data, X_raw, instance_ids, *, noise_std, repeat, random_state) -> DataFrame``  the inputs
the stability stage explains (in ``technical.stability``) and ``compute`` rebuilds for the local Lipschitz estimate

The explainer code generates the perturbed / re-seeded explanations and passes them here (or
to ``compute_instance_metrics(..., perturbed=..., seed_runs=...)``). Failed explanations
(``error`` set) are ignored; with nothing left to compare the result is ``NaN``.

Similarity choice
-----------------
Cosine similarity of the *signed* attribution vectors: bounded in ``[-1, 1]``, 1 when the two
explanations point the same way (any positive rescaling), 0 when unrelated, negative when
they disagree on directions. Unlike a rank correlation it is defined for vectors with ties or
many zeros (LIME keeps only ``num_features`` features) and it weights the features that carry
the explanation, not the order of negligible ones. Two all-zero vectors count as identical (1);
an all-zero vector against a non-zero one as unrelated (0). Stability of explanations under
small perturbations: Alvarez-Melis & Jaakkola (2018), *On the robustness of interpretability
methods*; run-to-run agreement of LIME: Visani et al. (2022), *Statistical stability indices
for LIME*.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from ..explainers.base import instance_seed


def attribution_similarity(a, b) -> float:
    """Cosine similarity of two attribution vectors (same feature order), in ``[-1, 1]``.

    Returns ``NaN`` when either vector has a non-finite value.
    """
    a = np.asarray(a, dtype=float).reshape(-1)
    b = np.asarray(b, dtype=float).reshape(-1)
    if a.shape != b.shape:
        raise ValueError(f"Attribution vectors must have the same length; got {a.size} and {b.size}.")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return float("nan")
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 and nb == 0:
        return 1.0
    if na == 0 or nb == 0:
        return 0.0
    return float(np.clip(a @ b / (na * nb), -1.0, 1.0))


def explanation_vector(explanation, feature_names) -> np.ndarray:
    """The explanation's signed attributions in ``feature_names`` order (missing features = 0).

    Falls back to the importance vector when the explanation has no attributions.
    """
    weights = explanation.attributions if explanation.attributions is not None else explanation.importance
    if weights is None:
        raise ValueError(f"The {explanation.method} explanation of instance {explanation.instance_id} has neither "
                         "attributions nor an importance vector; stability needs one of them.")
    return np.array([float(weights.get(f, 0.0)) for f in feature_names])


def instance_stability(original, perturbed, feature_names) -> float:
    """Mean similarity between an explanation and those of noisy copies of its instance.

    Parameters
    ----------
    original : Explanation
        The explanation of the instance itself.
    perturbed : list of Explanation
        Explanations (same method) of the instance with small noise added to its inputs.
    feature_names : list of str
        Feature order.

    Returns
    -------
    float
        Mean of :func:`attribution_similarity` over the successful perturbed explanations;
        ``NaN`` if the original failed or none succeeded.
    """
    if original.error is not None:
        return float("nan")
    ref = explanation_vector(original, feature_names)
    sims = [attribution_similarity(ref, explanation_vector(e, feature_names)) for e in perturbed if e.error is None]
    return float(np.mean(sims)) if sims else float("nan")


def seed_agreement(runs, feature_names) -> float:
    """Mean pairwise similarity between explanations of one instance made with different seeds.

    Returns ``NaN`` with fewer than two successful runs.
    """
    vectors = [explanation_vector(e, feature_names) for e in runs if e.error is None]
    if len(vectors) < 2:
        return float("nan")
    return float(np.mean([attribution_similarity(a, b) for a, b in combinations(vectors, 2)]))


def noisy_copies(data, X_raw: pd.DataFrame, instance_ids, *, noise_std: float, repeat: int,
                 random_state: int) -> pd.DataFrame:
    """One noisy copy of each row (copy number ``repeat``), numeric features only.

    Row ``r``'s noise comes from its own generator (seeded by ``instance_ids[r]`` and ``repeat``), so a
    copy is the same whichever rows it is made with.
    """
    out = X_raw.reset_index(drop=True).copy()
    numeric = list(data.numeric_features)
    if not numeric or out.empty:
        return out
    stds = data.X_train[numeric].std(skipna=True).fillna(0.0).to_numpy(dtype=float)
    noise = np.array([np.random.default_rng(instance_seed(random_state, iid, f"noise:{repeat}"))
                      .normal(0.0, 1.0, len(numeric)) for iid in instance_ids]).reshape(len(out), len(numeric))
    values = out[numeric].to_numpy(dtype=float, na_value=np.nan)
    out[numeric] = values + noise * noise_std * stds  # missing values stay missing (NaN + noise is NaN)
    return out
