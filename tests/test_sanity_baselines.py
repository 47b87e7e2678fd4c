"""Could a random explainer, a model with no signal, or a relabelled method get the same answer?

End-to-end checks of issue 9's acceptance: on synthetic data with a known answer SHAP and LIME find
the relevant features and beat the random baseline on paired evidence; a label-permuted model gets
the ``model_has_no_signal`` warning and no recommendation; the randomisation check sees that the
Random baseline ignores the model; every method's per-case rows cover the same cases.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from hexeval_engine import evaluate

FEATURES = [f"x{i}" for i in range(8)]
FAST = {"personas": {"enabled": False},
        "evaluation": {"sample_size": 14, "bootstrap_resamples": 200,
                       "explainers": {"anchor": {"enabled": False}, "dice": {"enabled": False},
                                      "lime": {"num_samples": 1000, "num_features": 8, "stability_test": False}},
                       "sanity": {"randomisation_cases": 6}}}


def _synthetic(tmp_path, n: int = 1500, seed: int = 0, permute: bool = False, signal: float = 1.0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 8)), columns=FEATURES)
    logit = signal * (2.5 * X["x0"] - 2.0 * X["x1"])
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    frame = X.assign(y=y)
    csv = tmp_path / "synthetic.csv"
    frame.to_csv(csv, index=False)
    return frame, csv, (rng.permutation(y) if permute else y)


def _save(model, frame, y, tmp_path, name):
    model.fit(frame[FEATURES], y)
    path = tmp_path / f"{name}.skops"
    sio.dump(model, path)
    return path


def _models():
    lr = Pipeline([("prep", ColumnTransformer([("num", StandardScaler(), FEATURES)])),
                   ("clf", LogisticRegression())])
    gb = GradientBoostingClassifier(n_estimators=60, max_depth=2, random_state=0)
    return {"logistic regression": lr, "gradient boosting": gb}


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["logistic regression", "gradient boosting"])
def test_known_relevance_is_found_and_beats_random(tmp_path, kind):
    frame, csv, y = _synthetic(tmp_path)
    model_path = _save(_models()[kind], frame, y, tmp_path, kind.replace(" ", "_"))
    result = evaluate(model_path, csv, "y", config_overrides=FAST, save=False)
    assert not [w for w in result.warnings if w["code"] == "model_has_no_signal"]
    for method in ("SHAP", "LIME"):
        tops = []
        for e in result.technical.explanations:
            if e.method == method and e.ok:
                ranked = sorted(e.attributions, key=lambda f: -abs(e.attributions[f]))
                tops.append(set(ranked[:2]) == {"x0", "x1"})
        assert np.mean(tops) >= 0.8, (method, np.mean(tops))
        versus = result.recommendations["technical"][method]["vs_baseline"]
        assert versus["qualifies"] and versus["ci_low"] > 0, (method, versus)
        assert versus["n"] == len(result.technical.shared_instance_ids) == 14
    assert result.recommendations["stakeholders"]
    (entry,) = result.recommendations["stakeholders"].values()
    assert entry["recommended_method"] in ("SHAP", "LIME")
    random_check = result.sanity["randomisation"]["methods"]["Random"]
    assert random_check["similarity"] == pytest.approx(1.0) and random_check["ignores_model"]
    assert result.sanity["randomisation"]["methods"]["SHAP"]["similarity"] < 0.7


@pytest.mark.slow
def test_a_model_without_signal_gets_a_warning_and_no_recommendation(tmp_path):
    # Labels unrelated to the features, and a model trained on a permutation of them.
    frame, csv, y_permuted = _synthetic(tmp_path, permute=True, signal=0.0)
    model_path = _save(LogisticRegression(), frame, y_permuted, tmp_path, "no_signal")
    result = evaluate(model_path, csv, "y", config_overrides=FAST, save=False)
    codes = [w["code"] for w in result.warnings]
    assert "model_has_no_signal" in codes
    message = next(w["message"] for w in result.warnings if w["code"] == "model_has_no_signal")
    assert "0.5" in message and "np." not in message
    for entry in result.recommendations["stakeholders"].values():
        assert entry["recommended_method"] is None
        assert entry["reason"].startswith("The model shows no usable signal")


@pytest.mark.slow
def test_every_method_is_measured_on_the_same_cases(usecase_bundle, tmp_path):
    overrides = {"personas": {"enabled": False},
                 "evaluation": {"sample_size": 12, "bootstrap_resamples": 200, "explain_unshared": True,
                                "explainers": {"anchor": {"max_instances": 6}, "dice": {"max_instances": 6}},
                                "sanity": {"randomisation_check": False}}}
    result = evaluate(usecase="heart", config_overrides=overrides, output_dir=tmp_path)
    per = result.technical.per_instance
    ids = {m: set(per[per["method"] == m]["instance_id"]) for m in per["method"].unique()}
    assert set(ids) == {"SHAP", "LIME", "Anchor", "DiCE", "Random"}
    shared = set(result.technical.shared_instance_ids)
    assert all(v == shared for v in ids.values()) and len(shared) <= 6
    saved = pd.read_csv(result.output_path / "instance_metrics.csv")
    assert saved.groupby("method")["instance_id"].apply(frozenset).nunique() == 1
    metrics = result.technical_metrics.set_index("method")
    assert (metrics["n_instances"] == len(shared)).all()
    assert metrics.loc["SHAP", "n_explained"] == 12
    assert (result.output_path / "instance_metrics_unshared.csv").exists()
