"""Models the helper process cannot take: the run stays in-process, with one log line, and gives the sequential
results (a model whose pickling raises anything, a model class from the user's main script)."""

from __future__ import annotations

import logging
import sys

import pytest
from helper_fixtures import needs_two_cores, no_helper_left, wait_pid, warm_helper  # noqa: F401 (fixtures)
from test_helper_process import _auto, _lime_job, _sequential
from test_technical import _signature

from hexeval_engine.runtime import helper_pool
from hexeval_engine.runtime.parallel import ExplainRunner
from hexeval_engine.models.model_wrapper import HexevalModel
from hexeval_engine.technical.run import run_technical_evaluation

pytestmark = needs_two_cores




def _fields(model) -> dict:
    return {k: getattr(model, k) for k in ("preprocessor", "feature_names", "threshold", "class_labels", "source",
                                           "kind", "sha256", "input_codes")}


class _Wrapping:
    """A user's estimator that wraps the bundled one and takes the raw columns as a DataFrame."""

    def __init__(self, estimator):
        self.estimator = estimator
        self.feature_names_in_ = estimator.feature_names_in_

    def predict_proba(self, X):
        return self.estimator.predict_proba(X)


class _Refusing(_Wrapping):
    """A user's estimator whose ``__reduce__`` raises something other than a pickling error."""

    def __reduce__(self):
        raise RuntimeError("this estimator holds a licence handle and refuses to be copied")


def test_any_error_while_pickling_the_model_keeps_the_run_in_process(usecase_bundle, warm_helper, caplog):
    _, config, data, model = usecase_bundle("credit_risk")
    odd = HexevalModel(estimator=_Refusing(model.estimator), **_fields(model))
    job = _lime_job(model, data, config)
    with ExplainRunner(odd, data, _sequential(config)) as runner:
        expected = runner.explain(job.method, job.X_raw, job.ids, job.classes, job.probabilities, job.seeds)
    with caplog.at_level("INFO", logger="hexeval_engine.runtime.helper_pool"):
        with ExplainRunner(odd, data, _auto(config)) as runner:
            runner.prefetch([job])
            assert not runner.uses_helper
            got = runner.explain(job.method, job.X_raw, job.ids, job.classes, job.probabilities, job.seeds)
    refusals = [r for r in caplog.records if "cannot be sent to the helper process" in r.getMessage()]
    assert len(refusals) == 1 and "RuntimeError" in refusals[0].getMessage()
    assert all(e.ok for e in expected)
    assert _signature(got) == _signature(expected) and [e.text for e in got] == [e.text for e in expected]


class ScriptedEstimatorForTheHelperTest(_Wrapping):
    """Stands for a class defined in the user's main script (``__main__``): pickled here, unknown in the helper."""


def test_a_model_class_from_the_main_script_keeps_the_run_in_process_after_one_log(usecase_bundle, warm_helper,
                                                                                    monkeypatch, caplog):
    _, config, data, model = usecase_bundle("credit_risk")
    monkeypatch.setattr(ScriptedEstimatorForTheHelperTest, "__module__", "__main__")
    monkeypatch.setattr(sys.modules["__main__"], "ScriptedEstimatorForTheHelperTest",
                        ScriptedEstimatorForTheHelperTest, raising=False)
    scripted = HexevalModel(estimator=ScriptedEstimatorForTheHelperTest(model.estimator), **_fields(model))
    # several LIME chunks and stability jobs queued to the helper; SHAP has no explainer for this wrapper
    more = {"evaluation": {"sample_size": 8, "explainers": {"shap": {"enabled": False}}}}
    sequential = run_technical_evaluation(scripted, data, _sequential(config, more))
    runners = []
    enter = ExplainRunner.__enter__
    monkeypatch.setattr(ExplainRunner, "__enter__", lambda self: runners.append(self) or enter(self))
    with caplog.at_level("INFO", logger="hexeval_engine"):
        on_auto = run_technical_evaluation(scripted, data, _auto(config, more))
    prefetched = [r for r in runners if r._helper is not None]
    assert prefetched, "the run never tried the helper"
    assert all(r.helper_lost and "ScriptedEstimatorForTheHelperTest" in r.helper_lost for r in prefetched)
    assert sum(r.jobs_in_helper for r in runners) == 0
    said = [r.getMessage() for r in caplog.records]
    assert sum("could not load the model" in m for m in said) == 1, said
    assert not [m for m in said if "failed in the helper process" in m or "in the helper process failed" in m]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], said
    assert _signature(on_auto.explanations) == _signature(sequential.explanations)
    assert [e.text for e in on_auto.explanations] == [e.text for e in sequential.explanations]
    assert on_auto.per_instance.equals(sequential.per_instance)
    assert on_auto.failures == sequential.failures == []

