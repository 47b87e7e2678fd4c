"""Workloads for ``benchmarks/technical.py``: a model, its data and the explicit benchmark config.

``load_workload(name, sample_size)`` -> ``(model, data, config, description)`` for

* ``heart``        bundled heart use case as shipped (random forest, duplicates dropped: the
                   test set has 61 rows, so at most 61 cases, not the original's 100)
* ``heart_full``   the bundled random forest on all 1,025 rows of heart.csv, duplicates kept like the
                   original HEXEval (205 test rows, so the sample is 100 cases)
* ``credit_risk``  bundled credit-risk use case (XGBoost behind imputation + one-hot)
* ``heart_lr``     what the original HEXEval ran: all 1,025 rows, duplicates kept, and a pipeline like
                   its own model (one-hot + standard scaler + LogisticRegression), trained here
* ``synthetic:P``  2,000 synthetic rows with ``P`` features (a quarter categorical), an XGBoost
                   pipeline like credit risk's (100 trees, depth 4), trained here
* ``heart_lr_upload``, ``heart_full_upload``  the same models and rows as ``heart_lr`` and ``heart_full``
                   through the upload path: a skops file and the CSV passed to ``evaluate(model, csv, ...)``
                   with the same evaluation settings and no use-case config (so no categorical features
                   declared, no value labels, no DiCE constraints: what a user who uploads gets);
                   ``upload_files(name, folder)`` writes the files

``NAME~original-work`` is the same workload measuring only what the original's config names (see
``ORIGINAL_WORK``); ``NAME~lean`` (after it, if both) explains only the cases every method explains
(HEXEval's default, ``LEAN``). Every evaluation knob is set in ``original_defaults`` (nothing inherited from a use-case config
except the data settings, the wording and DiCE's use-case constraints: immutable features and
feature ranges).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd


def load_average() -> str:
    """The machine's 1/5/15-minute load averages, printed beside every figure."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def rss_mb() -> float:
    """This process's resident memory in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def original_defaults(sample_size: int = 100) -> dict:
    """The original HEXEval's documented defaults, in full, as config overrides.

    ``explain_unshared`` is on: the original explains and measures every sampled case with SHAP and
    LIME, so at equal settings HEXEval does at least that work (``~lean`` workloads switch it off).
    """
    return {
        "personas": {"enabled": False},
        "recommendations": {"enabled": False},
        "evaluation": {
            "sample_size": sample_size, "explain_unshared": True, "random_state": 42, "bootstrap_resamples": 1000, "confidence_level": 0.95,
            "fidelity": {"steps": 20},
            "stability": {"noise_std": 0.05, "repeats": 5, "methods": ["SHAP", "LIME", "Random"]},
            # the backend is the project's default (auto: the helper process when it pays), not pinned
            "explainers": {
                "shap": {"enabled": True, "background_size": 100},
                "lime": {"enabled": True, "num_samples": 500, "num_features": 5, "stability_test": True,
                         "stability_subset": 30, "seed_reruns": True},
                "anchor": {"enabled": True, "max_instances": 10, "precision_threshold": 0.9},
                "dice": {"enabled": True, "max_instances": 5, "num_counterfactuals": 3, "method": "random"},
            }}}


#: Suffix of a workload name that measures only what the original's config names: stability under
#: ``lime`` (LIME re-explains the noisy copies); no SHAP or Random stability, no LIME seed re-runs.
ORIGINAL_WORK = "~original-work"


def original_work_only(overrides: dict) -> dict:
    """``overrides`` with HEXEval's extra stability measurements switched off."""
    overrides["evaluation"]["stability"]["methods"] = ["LIME"]
    overrides["evaluation"]["explainers"]["lime"]["seed_reruns"] = False
    return overrides


#: Suffix of a workload that goes through the upload path (``evaluate`` on a skops file and a CSV).
UPLOAD = "_upload"


#: Suffix of a workload name that explains only the cases every method explains (``explain_unshared`` off,
#: HEXEval's default): what a user who sets the original's caps gets, with the time the other cases took saved.
LEAN = "~lean"


def _overrides_for(name: str, sample_size: int) -> tuple[str, dict]:
    """The workload's base name and its config overrides (``~original-work`` and ``~lean`` applied)."""
    overrides = original_defaults(sample_size)
    if name.endswith(LEAN):
        name = name[:-len(LEAN)]
        overrides["evaluation"]["explain_unshared"] = False
    if name.endswith(ORIGINAL_WORK):
        name, overrides = name[:-len(ORIGINAL_WORK)], original_work_only(overrides)
    return name, overrides


def upload_files(name: str, sample_size: int, folder: Path) -> tuple[Path, Path, dict, str]:
    """``(model_path, csv_path, config_overrides, description)`` of an upload workload, files written in ``folder``.

    The model is the one the bundled-path twin (``name`` without ``_upload``) uses; the CSV is the
    use case's own file, all 1,025 rows (duplicates kept, like the original HEXEval and the twin).
    """
    import skops.io as sio

    name, overrides = _overrides_for(name, sample_size)
    twin = name.removesuffix(UPLOAD)
    if twin not in ("heart_lr", "heart_full"):
        raise ValueError(f"no upload workload {name!r}; use heart_lr_upload or heart_full_upload")
    overrides["data"] = {"drop_duplicates": False}
    overrides["narratives"] = {"enabled": False}
    model, data, _, description = load_workload(twin, sample_size)
    model_path = Path(folder) / "model.skops"
    sio.dump(model.estimator, model_path)
    from hexeval_engine import get_usecase

    return model_path, get_usecase("heart").data_path, overrides, f"{description}, uploaded (skops + CSV)"


def load_workload(name: str, sample_size: int):
    from hexeval_engine import get_usecase, load_config, load_model
    from hexeval_engine.models.model_wrapper import HexevalModel
    from hexeval_engine.models.prepare import prepare_usecase
    from hexeval_engine.data.usecase_data import load_data_for_config

    name, overrides = _overrides_for(name, sample_size)
    if name.startswith("synthetic:"):
        return _synthetic(int(name.split(":", 1)[1]), overrides)
    usecase = get_usecase("heart" if name in ("heart_lr", "heart_full") else name)
    prepare_usecase(usecase)
    if name in ("heart_lr", "heart_full"):
        overrides["data"] = {"drop_duplicates": False}  # the original's data: 1,025 rows, 205 test rows
    config = load_config(usecase.config_path, overrides)
    data = load_data_for_config(usecase.data_path, config)
    if name == "heart_lr":
        return HexevalModel.from_artefact(_lr_pipeline(data)), data, config, "one-hot + scaler + LogisticRegression"
    model = load_model(usecase.model_path)
    return model, data, config, model.type_name


def _lr_pipeline(data):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    pre = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), data.categorical_features),
                             ("num", StandardScaler(), data.numeric_features)])
    return Pipeline([("pre", pre), ("lr", LogisticRegression(max_iter=1000))]).fit(data.X_train, data.y_train)


def synthetic_frame(p: int, n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """``n`` rows, ``p`` features (every 4th categorical with 3-5 levels), binary target ``y``."""
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(p):
        if j % 4 == 3:
            levels = 3 + j % 3
            cols[f"c{j}"] = rng.choice([f"L{k}" for k in range(levels)], n)
        else:
            cols[f"x{j}"] = rng.normal(j % 7, 1 + j % 3, n).round(3)
    X = pd.DataFrame(cols)
    numeric = [c for c in X.columns if c.startswith("x")]
    logit = X[numeric[:6]].to_numpy() @ np.array([1.0, -0.8, 0.6, 0.5, -0.4, 0.3])[:len(numeric[:6])]
    if "c3" in X:
        logit = logit + 0.8 * (X["c3"] == "L0").to_numpy()
    logit = logit - logit.mean()
    X["y"] = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X


def _synthetic(p: int, overrides: dict):
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder
    from xgboost import XGBClassifier

    from hexeval_engine import load_config, load_data
    from hexeval_engine.models.model_wrapper import HexevalModel

    frame = synthetic_frame(p)
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "synthetic.csv"
        frame.to_csv(csv, index=False)
        data = load_data(csv, "y", random_state=42)
    config = load_config(overrides=overrides)
    pre = ColumnTransformer([("categorical", OneHotEncoder(handle_unknown="ignore"), data.categorical_features),
                             ("numeric", SimpleImputer(strategy="median"), data.numeric_features)])
    pipe = Pipeline([("preprocess", pre), ("model", XGBClassifier(n_estimators=100, max_depth=4, random_state=42,
                                                                   n_jobs=1, eval_metric="logloss"))])
    pipe.fit(data.X_train, data.y_train)
    return HexevalModel.from_artefact(pipe), data, config, f"XGBoost pipeline, {p} features"
