"""Synthetic worlds with a known answer for the cross-family technical score (issue 19).

Each world: eight independent U(0, 1) features, a model whose structure is known, the technical
evaluation run through :func:`hexeval_engine.technical.run.run_technical_evaluation`, and the
recommender's per-case technical term (:func:`hexeval_engine.recommend.evidence.case_fidelity`).

* ``rule``    y = 1 iff x0 > 0.5 and x1 > 0.3, fitted by a depth-2 tree (the model *is* a rule);
* ``linear``  a logistic regression on a dense logit where six of eight features matter;
* ``single``  y = 1 iff x3 > 0.5, a depth-1 tree (one feature decides everything).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from metrics_synthetic import _dataset
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from hexeval_engine.config.loader import validate_config
from hexeval_engine.models.model_wrapper import HexevalModel
from hexeval_engine.recommend.evidence import case_fidelity
from hexeval_engine.technical.run import run_technical_evaluation

WORLDS = ("rule", "linear", "single")
LINEAR_WEIGHTS = np.array([3.0, -2.5, 2.0, -1.5, 1.2, 1.0, 0.0, 0.0])


def world(name: str, seed: int, *, n: int = 900):
    """``(model, data)`` of one world drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, 8)), columns=[f"x{j}" for j in range(8)])
    if name == "rule":
        y, est = (X["x0"] > 0.5) & (X["x1"] > 0.3), DecisionTreeClassifier(max_depth=2, random_state=0)
    elif name == "single":
        y, est = X["x3"] > 0.5, DecisionTreeClassifier(max_depth=1, random_state=0)
    elif name == "linear":
        logit = 3.0 * (X.to_numpy() - 0.5) @ LINEAR_WEIGHTS
        y, est = rng.random(n) < 1 / (1 + np.exp(-logit)), LogisticRegression(max_iter=2000)
    else:
        raise ValueError(f"world must be one of {WORLDS}; got {name!r}")
    y = pd.Series(np.asarray(y, dtype=int), name="y")
    data = _dataset(X, y, [], n_train=2 * n // 3)
    return HexevalModel.from_artefact(est.fit(data.X_train, data.y_train)), data


def world_config(seed: int, *, cases: int):
    return validate_config({"evaluation": {
        "sample_size": cases, "bootstrap_resamples": 100, "random_state": seed,
        "explainers": {"shap": {"background_size": 30}, "lime": {"num_samples": 300, "stability_test": False},
                       "anchor": {"max_instances": cases}, "dice": {"max_instances": cases}}}})


def technical_scores(name: str, seed: int, *, cases: int) -> pd.DataFrame:
    """Per case (rows, tagged with the seed), the recommender's technical term of every method (columns)."""
    model, data = world(name, seed)
    result = run_technical_evaluation(model, data, world_config(seed, cases=cases))
    table, source = case_fidelity(result.per_instance)
    if source != "claim":
        raise AssertionError(f"the technical term came from {source!r}, not the claim-scoped score")
    return table.assign(seed=seed).reset_index()
