"""Synthetic data and models with known attributions for the metric tests.

``linear_case`` is a logistic regression on numeric features with no preprocessing: for a
linear logit, the exact interventional SHAP value of feature ``j`` (w.r.t. the training
mean as baseline) is ``w_j * (x_j - mean_j)`` on the logit scale, so the true attributions
are known in closed form. ``mixed_case`` adds an integer and a string column behind a
one-hot pipeline, to check that masked rows keep each column's dtype.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from hexeval_engine.data.coding import FeatureCoder
from hexeval_engine.data.data_quality import DataQualityReport
from hexeval_engine.data.dataset import Dataset
from hexeval_engine.models.model_wrapper import HexevalModel

WEIGHTS = np.array([2.5, -2.0, 1.2, 0.6, 0.0, -0.3])


@dataclass
class Case:
    data: Dataset
    model: HexevalModel
    lr: LogisticRegression | None = None


def _dataset(X: pd.DataFrame, y: pd.Series, categorical: list[str], n_train: int) -> Dataset:
    X_train, X_test = X.iloc[:n_train].reset_index(drop=True), X.iloc[n_train:].reset_index(drop=True)
    y_train, y_test = y.iloc[:n_train].reset_index(drop=True), y.iloc[n_train:].reset_index(drop=True)
    features = list(X.columns)
    return Dataset(X_train, X_test, y_train, y_test, "y", features, categorical,
                   [f for f in features if f not in categorical], (0, 1), DataQualityReport(len(X), X.shape[1] + 1),
                   FeatureCoder.fit(X, categorical))


def linear_case(n: int = 800, seed: int = 0) -> Case:
    rng = np.random.default_rng(seed)
    p = len(WEIGHTS)
    X = pd.DataFrame(rng.normal(size=(n, p)) * np.linspace(1.0, 2.0, p) + np.arange(p),
                     columns=[f"x{j}" for j in range(p)])
    logit = (X.to_numpy() - np.arange(p)) @ WEIGHTS
    y = pd.Series((rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int), name="y")
    data = _dataset(X, y, [], n_train=n // 2)
    lr = LogisticRegression(C=1e4, max_iter=2000).fit(data.X_train, data.y_train)
    return Case(data, HexevalModel.from_artefact(lr), lr)


def true_attributions(case: Case, rows: pd.DataFrame) -> np.ndarray:
    """Closed-form interventional SHAP of the class-1 logit w.r.t. the training mean."""
    w = case.lr.coef_[0]
    return w * (rows.to_numpy() - case.data.X_train.mean().to_numpy())


def mixed_case(n: int = 400, seed: int = 1) -> Case:
    rng = np.random.default_rng(seed)
    grade = rng.choice(["A", "B", "C", "D"], size=n)
    X = pd.DataFrame({
        "income": rng.normal(50, 10, n),
        "age": rng.integers(18, 80, n).astype("int64"),
        "grade": pd.Series(grade, dtype="str"),
        "rate": rng.normal(10, 3, n),
    })
    logit = 0.08 * (X["income"] - 50) - 0.03 * (X["age"] - 50) + pd.Series(grade).map(
        {"A": -1.5, "B": -0.5, "C": 0.5, "D": 1.5}) + 0.2 * (X["rate"] - 10)
    y = pd.Series((rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int), name="y")
    data = _dataset(X, y, ["grade"], n_train=n // 2)
    pre = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), ["grade"])], remainder="passthrough")
    pipe = Pipeline([("pre", pre), ("clf", LogisticRegression(max_iter=2000))]).fit(data.X_train, data.y_train)
    return Case(data, HexevalModel.from_artefact(pipe))


def relevance_case(kind: str = "lr", n: int = 1200, seed: int = 2) -> Case:
    """Eight independent standard-normal features; the label depends on ``x0`` and ``x1`` only.

    ``kind`` is ``"lr"`` (logistic regression) or ``"gb"`` (gradient boosting). The relevant
    features are known, so an explanation ranking ``x0``/``x1`` first must beat a random ranking.
    """
    from sklearn.ensemble import GradientBoostingClassifier

    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"x{j}" for j in range(8)])
    logit = 2.5 * X["x0"] - 2.0 * X["x1"]
    y = pd.Series((rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int), name="y")
    data = _dataset(X, y, [], n_train=n // 2)
    if kind == "lr":
        est = LogisticRegression(max_iter=2000)
    elif kind == "gb":
        est = GradientBoostingClassifier(n_estimators=60, max_depth=2, random_state=0)
    else:
        raise ValueError(f"kind must be 'lr' or 'gb'; got {kind!r}")
    return Case(data, HexevalModel.from_artefact(est.fit(data.X_train, data.y_train)))


def skewed_case(n: int = 1600, seed: int = 3) -> Case:
    """Like :func:`relevance_case` (LR) but most labels are 0: the all-average row predicts class 0 at about 0.85."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 8)), columns=[f"x{j}" for j in range(8)])
    logit = 2.5 * X["x0"] - 2.0 * X["x1"] - 1.8
    y = pd.Series((rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int), name="y")
    data = _dataset(X, y, [], n_train=n // 2)
    return Case(data, HexevalModel.from_artefact(LogisticRegression(max_iter=2000).fit(data.X_train, data.y_train)))
