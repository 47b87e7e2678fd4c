"""Worlds with a known answer for the question skills (issue 32), built with other thresholds, base rates, sizes
and display settings than ``tests/fair_world_fixtures.py``.

``world(kind, *, seed, features, base_rate, top_k, cases=40)`` draws U(0, 1) features, fits a model whose
structure is known, explains ``cases`` shared test cases with the real SHAP, LIME, Anchor, DiCE and Random
explainers (``explainers.registry.build_explainer``, small settings) and returns a :class:`World`.

* ``rule``        y = 1 iff x_a > 1 - r and x_b < r with r = sqrt(base rate), a depth-2 tree (the model *is* a
                  two-condition rule; ``a``, ``b`` drawn per seed);
* ``dense``       a logistic regression on a logit where every feature has the same weight (random signs),
                  the intercept set so the positive share is the base rate;
* ``actionable``  three fixed features with large weights and two actionable ones that can flip the answer
                  on their own (a logistic regression); the rest are actionable and do nothing, so a random
                  action is not a sure thing. ``actionability`` declares the fixed ones;
* ``shuffled``    the dense data with the labels shuffled, fitted by a depth-4 tree (a model with no signal).
"""

from __future__ import annotations

import logging
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from metrics_synthetic import _dataset
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from hexeval_engine.config.loader import validate_config
from hexeval_engine.explainers.base import explained_classes, instance_seed
from hexeval_engine.explainers.registry import build_explainer
from hexeval_engine.models.model_wrapper import HexevalModel

KINDS = ("rule", "dense", "actionable", "shuffled")
METHODS = ("SHAP", "LIME", "Anchor", "DiCE", "Random")


@dataclass
class World:
    kind: str
    model: HexevalModel
    data: object
    config: object
    explanations: list
    actionability: dict
    informative: list  # features the model's answer depends on


def _intercept(score: np.ndarray, base_rate: float) -> float:
    low, high = -50.0, 50.0
    for _ in range(60):
        mid = (low + high) / 2
        if np.mean(1 / (1 + np.exp(-(score + mid)))) > base_rate:
            high = mid
        else:
            low = mid
    return (low + high) / 2


def _labels(kind, X, rng, base_rate):
    n, width = X.shape
    names = list(X.columns)
    if kind == "rule":
        a, b = rng.choice(width, size=2, replace=False)
        r = float(np.sqrt(base_rate))
        y = (X.iloc[:, a] > 1 - r) & (X.iloc[:, b] < r)
        return y.to_numpy(), DecisionTreeClassifier(max_depth=2, random_state=0), [names[a], names[b]], {}
    if kind in ("dense", "shuffled"):
        w = rng.choice([-1.0, 1.0], size=width) * 6.0 / np.sqrt(width)
        score = (X.to_numpy() - 0.5) @ w
        p = 1 / (1 + np.exp(-(score + _intercept(score, base_rate))))
        y = rng.random(n) < p
        if kind == "shuffled":
            return rng.permutation(y), DecisionTreeClassifier(max_depth=4, random_state=0), [], {}
        return y, LogisticRegression(max_iter=5000), names, {}
    fixed, acting = names[:3], names[3:5]
    score = (X[fixed].to_numpy() - 0.5) @ np.array([5.0, -4.0, 4.0]) + (X[acting].to_numpy() - 0.5) @ np.array([3.0, 3.0])
    y = score + _intercept(score, base_rate) > 0
    kinds = {f: "immutable" for f in fixed}
    return y, LogisticRegression(C=100.0, max_iter=5000), fixed + acting, kinds


def world(kind: str, *, seed: int, features: int, base_rate: float, top_k: int, cases: int = 40,
          rows: int = 900) -> World:
    """One world drawn with ``seed`` (see the module docstring), its ``cases`` explained by every method."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((rows, features)), columns=[f"x{j}" for j in range(features)])
    y, estimator, informative, kinds = _labels(kind, X, rng, base_rate)
    data = _dataset(X, pd.Series(np.asarray(y, dtype=int), name="y"), [], n_train=2 * rows // 3)
    model = HexevalModel.from_artefact(estimator.fit(data.X_train, data.y_train))
    config = validate_config({
        "personas": {"top_k_features": top_k}, "actionability": {"features": kinds},
        "evaluation": {"sample_size": cases, "random_state": seed,
                       "explainers": {"shap": {"background_size": 30},
                                      "lime": {"num_samples": 400, "stability_test": False},
                                      "anchor": {"max_instances": cases}, "dice": {"max_instances": cases}}}})
    ids = list(range(cases))
    X_cases = data.X_test.iloc[ids]
    classes, probabilities = explained_classes(model, X_cases)
    explanations = []
    level = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for method in METHODS:
                explainer = build_explainer(method, model, data, config, seed=seed)
                explanations += explainer.explain(X_cases, ids, classes, probabilities,
                                                  [instance_seed(seed, i, method) for i in ids])
    finally:
        logging.disable(level)
    actionability = {f: kinds.get(f, "actionable") for f in data.feature_names}
    return World(kind, model, data, config, explanations, actionability, informative)


def per_case(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """``metric`` per case (rows) and method (columns)."""
    return frame[frame["metric"] == metric].pivot(index="instance_id", columns="method", values="value")
