"""A run that finds its helper process still starting (a Python script's first ``evaluate()``, a dashboard clicked
at once) explains in-process meanwhile and hands the helper every job not started once it is up: the same results
as ``sequential``, and no job lost or done twice."""

from __future__ import annotations

import logging
import threading

import pandas as pd
from helper_fixtures import gone_within, needs_two_cores, no_helper_left  # noqa: F401 (fixtures)
from test_helper_process import _auto, _sequential, runners  # noqa: F401 (fixture)
from test_technical import _signature

from hexeval_engine.runtime import helper_pool
from hexeval_engine.runtime.forkserver_start import ensure_forkserver
from hexeval_engine.technical.run import run_technical_evaluation

pytestmark = needs_two_cores


def _no_helper() -> None:
    pid = helper_pool.helper_pid()
    helper_pool.stop_helper()
    if pid is not None:
        assert gone_within(pid, 30)


def test_jobs_announced_while_the_helper_starts_go_to_it_once_it_is_up(usecase_bundle, runners, monkeypatch,
                                                                       caplog):
    _, config, data, model = usecase_bundle("credit_risk")
    sequential = run_technical_evaluation(model, data, _sequential(config))
    _no_helper()
    ensure_forkserver()  # its imports done beforehand: the helper is up moments after the gate opens
    gate = threading.Event()
    launch = helper_pool._launch

    def gated(helper):
        gate.wait(60)
        launch(helper)

    monkeypatch.setattr(helper_pool, "_launch", gated)
    # the line is logged once per process: another test in this worker may have had a run find the helper starting
    monkeypatch.setattr(helper_pool, "_LOGGED", set())
    helper_pool.start_helper(background=True)
    assert helper_pool.starting()

    def progress(done, total, message):
        if "instance explained" in message and not gate.is_set():  # the run is explaining in-process by now
            gate.set()
            assert helper_pool._STATE["helper"].launched.wait(60)

    runners.clear()
    with caplog.at_level(logging.INFO, logger="hexeval_engine.runtime"):
        late = run_technical_evaluation(model, data, _auto(config), on_progress=progress)
    assert gate.is_set(), "the run never explained a case before asking for the helper"
    assert "came up during a run" in caplog.text
    (runner,) = [r for r in runners if r.uses_helper]
    assert runner.jobs_in_helper + runner.jobs_here > 0  # jobs were queued to it (done there, or taken back)
    assert _signature(late.explanations) == _signature(sequential.explanations)
    assert [e.text for e in late.explanations] == [e.text for e in sequential.explanations]
    pd.testing.assert_frame_equal(late.per_instance, sequential.per_instance)
    assert late.model_rows == sequential.model_rows
    assert late.failures == sequential.failures == []


def test_a_helper_that_fails_to_start_leaves_the_run_in_process(usecase_bundle, runners, monkeypatch):
    _, config, data, model = usecase_bundle("credit_risk")
    sequential = run_technical_evaluation(model, data, _sequential(config))
    _no_helper()
    gate = threading.Event()

    def failing(helper):
        gate.wait(60)
        helper.error = "OSError: no processes left"
        helper.launched.set()

    monkeypatch.setattr(helper_pool, "_launch", failing)
    helper_pool.start_helper(background=True)

    def progress(done, total, message):
        if "instance explained" in message:
            gate.set()

    runners.clear()
    alone = run_technical_evaluation(model, data, _auto(config), on_progress=progress)
    assert gate.is_set() and not any(r.uses_helper or r.awaits_helper for r in runners)
    assert _signature(alone.explanations) == _signature(sequential.explanations)
    pd.testing.assert_frame_equal(alone.per_instance, sequential.per_instance)
    assert alone.failures == []
    helper_pool.stop_helper()
