"""benchmarks/model_floor.py: every model call recorded once, with its origin, and replayed as the floor.

No timing assertion on HEXEval: the only timed object is a fake estimator that sleeps a known time per row.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from hexeval_engine.config.loader import deep_merge, validate_config
from hexeval_engine.models.class_view import class_view
from hexeval_engine.models.model_wrapper import HexevalModel
from hexeval_engine.technical.run import run_technical_evaluation
from hexeval_engine.technical.sanity import run_sanity_checks

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # the helper is a benchmark's
from model_floor import METHODS, CallRecorder, label, method_of, real_rows  # noqa: E402

SMALL = {"evaluation": {"sample_size": 4, "bootstrap_resamples": 100, "explain_unshared": True,
                        "stability": {"repeats": 2},
                        "sanity": {"randomisation_cases": 2},
                        "explainers": {"shap": {"background_size": 20},
                                       "lime": {"num_samples": 100, "stability_subset": 2},
                                       "anchor": {"max_instances": 2}, "dice": {"max_instances": 2}}}}


class SleepyEstimator:
    """A binary estimator that takes ``per_row`` seconds per row (and nothing else measurable)."""

    classes_ = np.array([0, 1])

    def __init__(self, per_row: float):
        self.per_row = per_row

    def predict_proba(self, X):
        time.sleep(self.per_row * len(X))
        p = np.full(len(X), 0.3)
        return np.column_stack([1 - p, p])


def test_recorded_rows_equal_the_models_own_count_on_a_small_run(usecase_bundle):
    _, config, data, model = usecase_bundle("heart")
    config = validate_config(deep_merge(config.model_dump(mode="json", exclude={"source"}), SMALL))
    recorder = CallRecorder()
    model.reset_counters()
    with recorder.recording():
        technical = run_technical_evaluation(model, data, config)
        own_rows, own_calls = model.rows, model.calls
        run_sanity_checks(model, data, config, technical)
    real = [c for c in recorder.calls if recorder.models[c.model] is model]
    refit = [c for c in recorder.calls if recorder.models[c.model].source == "randomised copy"]
    # the sanity checks' calls of the real model come after the technical stage's
    assert sum(c.rows for c in real[:own_calls]) == own_rows == technical.model_rows
    assert sum(c.rows for c in real) == model.rows and len(real) == model.calls
    assert refit, "the randomisation check's re-fitted model made calls, recorded under its own model"
    assert len(real) + len(refit) == len(recorder.calls)
    # every method's explanations reached the model, and were labelled with the stage that asked
    origins = {method_of(c.path) for c in recorder.calls}
    assert {"SHAP", "LIME", "Anchor", "DiCE"} <= origins
    assert all(c.path.startswith("randomisation check") or c.path.startswith("signal check") for c in refit)
    # the wrapping is undone afterwards: nothing more is recorded
    before = len(recorder.calls)
    model.predict_proba(data.X_test[list(data.feature_names)].iloc[:3])
    assert len(recorder.calls) == before


def test_floor_of_a_model_that_sleeps_a_known_time_per_row():
    per_row = 0.0004
    model = HexevalModel(SleepyEstimator(per_row), feature_names=["a", "b"])
    rows = pd.DataFrame({"a": np.arange(50.0), "b": np.arange(50.0) * 2})
    sizes = [10, 40, 120, 5, 25]  # 120 > the 50 real rows: they are cycled
    recorder = CallRecorder()
    with recorder.recording(), label("SHAP"):
        for n in sizes:
            model.predict_proba(rows.iloc[np.arange(n) % len(rows)])
    floor = recorder.floor(rows)
    expected = per_row * sum(sizes)
    assert floor["calls"] == len(sizes) and floor["rows"] == sum(sizes) == model.rows
    # time.sleep never returns early; scheduling adds a little (a loaded 2-core machine: up to ~20 ms per call)
    assert expected <= floor["floor"] <= expected + 0.02 * len(sizes)
    assert list(floor["by_method"]) == ["SHAP"] and floor["by_method"]["SHAP"]["rows"] == sum(sizes)


def test_a_views_call_is_counted_once_as_the_underlying_models_call():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=90), "b": rng.normal(size=90)})
    y = np.repeat([0, 1, 2], 30)
    base = HexevalModel.from_artefact(LogisticRegression().fit(X, y))
    base.align_to((0, 1, 2))
    view = class_view(base, 2)
    recorder = CallRecorder()
    with recorder.recording():
        view.predict_proba(X.iloc[:7])
        base.class_probabilities(X.iloc[:4])
    assert [(recorder.models[c.model] is base, c.rows) for c in recorder.calls] == [(True, 7), (True, 4)]
    assert view.rows == 7 and base.rows == 11  # the view counts its own call too; the recorder does not
    floor = recorder.floor(real_rows_of(X))
    assert floor["calls"] == 2 and floor["rows"] == 11 and floor["models"] == 1


def real_rows_of(X: pd.DataFrame) -> pd.DataFrame:
    class Data:
        feature_names = list(X.columns)
        X_train, X_test = X.iloc[:60], X.iloc[60:]
    rows = real_rows(Data)
    assert len(rows) == len(X) and list(rows.columns) == list(X.columns)
    return rows


@pytest.mark.parametrize("path, expected", [("technical / LIME / metrics", "LIME"),
                                            ("sanity_checks / randomisation check / Anchor", "Anchor"),
                                            ("technical / claim/reader metrics", "claim/reader metrics"),
                                            ("", "unlabelled")])
def test_method_of_a_label_path(path, expected):
    assert method_of(path) == expected
    assert set(METHODS) >= {"SHAP", "LIME", "Anchor", "DiCE", "Random"}
