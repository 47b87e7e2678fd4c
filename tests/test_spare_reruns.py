"""The randomisation check's re-explanations the main process does while it waits for the helper's searches
(``technical.spare_reruns``): the check's results are the sequential ones, nothing is done twice, an interrupted run
keeps them, and a wrong guess of the check's cases costs time, never a result."""

from __future__ import annotations

import copy
import dataclasses
import math
import threading
import time
from concurrent.futures import CancelledError, Future
from types import SimpleNamespace

import pytest
from helper_fixtures import needs_two_cores, settled, warm_helper  # noqa: F401 (warm_helper: a fixture)
from test_helper_process import _auto, _sequential

from hexeval_engine.runtime import helper_pool, parallel
from hexeval_engine.technical import sanity, spare_reruns
from hexeval_engine.technical.check_pieces import CheckPieces
from hexeval_engine.technical.run import run_technical_evaluation
from hexeval_engine.technical.sample_plan import plan_sample
from hexeval_engine.technical.sanity import _fit_permuted, randomisation_check, run_sanity_checks
from hexeval_engine.technical.work import Work

SMALL_CHECK = {"evaluation": {"sanity": {"randomisation_cases": 4}}}


def _same(a, b) -> bool:
    """Equal, NaN equal to NaN (a method compared on no case has a NaN similarity)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _spy_redone(monkeypatch) -> list:
    """Every re-explanation done in this process, as (method, rows), wherever it was asked for."""
    done = []
    redone = sanity._redone
    monkeypatch.setattr(sanity, "_redone", lambda group, data, method, rows, caps, config: done.append(
        (method, tuple(rows))) or redone(group, data, method, rows, caps, config))
    return done


# --- the runner's wait: spare work between checks of the helper's answers ----------------------------------------

def test_the_wait_does_spare_work_one_piece_at_a_time_and_measures_each_answer_as_it_comes():
    first, second = Future(), Future()
    for f in (first, second):
        f.set_running_or_notify_cancel()
    events = []

    def idle():  # three pieces of work; the helper answers the first job during the second piece
        done = sum(e == "idle" for e in events)
        if done == 3:
            events.append("no work")
            second.set_result(None)  # answered while the main process waits
            return False
        events.append("idle")
        if done == 1:
            first.set_result(None)
        return True

    parallel._until_answered([first, second], lambda: events.append("measure"), idle)
    assert events == ["idle", "idle", "measure", "idle", "no work", "measure"]


def test_without_spare_work_the_wait_measures_each_answer_as_it_comes():
    answers = [settled(result=None), Future(), Future()]
    for f in answers[1:]:
        f.set_running_or_notify_cancel()
    events = []
    threading.Timer(0.05, answers[1].set_result, (None,)).start()  # the helper answers while the main process waits

    def meanwhile():
        events.append(sum(f.done() for f in answers))
        if not answers[2].done():
            threading.Timer(0.05, answers[2].set_result, (None,)).start()

    parallel._until_answered(answers, meanwhile)
    assert events == [2, 3]  # once per answer, the one answered before the wait not waited for


# --- SpareReruns on its own, against the check's own re-explanations ---------------------------------------------

@pytest.fixture(scope="module")
def heart_stage(usecase_bundle):
    """A sequential heart technical stage (no helper: nothing queued, nothing done while waiting) and its re-fit."""
    _, config, data, model = usecase_bundle("heart")
    config = _sequential(config, SMALL_CHECK)
    technical = run_technical_evaluation(model, data, config)
    return model, data, config, technical, _fit_permuted(model, data, config)


class _Runner:
    """What SpareReruns reads of a runner: the run's inputs and which methods' real explanations are back."""

    def __init__(self, model, data, config, technical, back: set):
        self.model, self.data, self.config = model, data, config
        self.technical, self.back = technical, back

    def ready(self, job):
        if job.method not in self.back:
            return None
        return [e for e in self.technical.explanations if e.method == job.method]


def _spare(heart_stage, back: set, *, fit=None):
    model, data, config, technical, fitted = heart_stage
    work = Work(progress=None, checks=CheckPieces(None, config))
    work.randomised_fit = settled(result=fitted) if fit is None else fit
    sample = plan_sample(data, config)
    jobs = [SimpleNamespace(method=m) for m in sample.methods]
    runner = _Runner(model, data, config, technical, back)
    return spare_reruns.SpareReruns(runner, sample, jobs, work), work, runner


def _until_idle(spare) -> int:
    n = 0
    while spare():
        n += 1
    return n


def _check_with(heart_stage, technical, checks) -> dict:
    model, data, config, _, fitted = heart_stage
    mine = dataclasses.replace(technical, randomised_fit=settled(result=fitted), randomised_reruns={},
                               check_pieces=checks)
    return randomisation_check(model, data, config, mine)


def test_each_reexplanation_is_done_once_its_inputs_are_back_and_the_check_redoes_none(heart_stage, monkeypatch):
    model, data, config, technical, fitted = heart_stage
    oracle = _check_with(heart_stage, technical, CheckPieces(None, config))  # the check alone, every job its own
    done = _spy_redone(monkeypatch)
    spare, work, runner = _spare(heart_stage, back={"SHAP", "LIME", "Random"})
    assert _until_idle(spare) > 0
    search = sanity.SEARCH_CASES
    # Anchor's caps come from its real searches: not before they are back; DiCE's cases are searched meanwhile
    assert sorted(m for m, _ in done) == sorted(["SHAP", "LIME", "Random"] + ["DiCE"] * search)
    runner.back |= {"Anchor", "DiCE"}
    assert _until_idle(spare) == search and [m for m, _ in done[-search:]] == ["Anchor"] * search
    assert not spare()  # nothing twice
    done.clear()
    result = _check_with(heart_stage, technical, work.checks)
    assert done == []  # the check asked for exactly what was done while waiting
    assert _same(result, oracle) and result["status"] == "done"


def test_a_wrong_guess_of_the_checks_cases_costs_time_never_a_result(heart_stage, monkeypatch):
    """DiCE's real search failed on the first case: that case is not shared, so the check compares other cases than
    the ones searched while waiting. It re-explains them itself and gets what the check alone gets."""
    model, data, config, technical, fitted = heart_stage
    first = technical.shared_instance_ids[0]
    failed = copy.copy(technical)
    failed.explanations = [dataclasses.replace(e, error="no counterfactual found")
                           if (e.method, e.instance_id) == ("DiCE", first) else e for e in technical.explanations]
    failed.shared_instance_ids = [i for i in technical.shared_instance_ids if i != first]
    oracle = _check_with(heart_stage, failed, CheckPieces(None, config))
    spare, work, runner = _spare(heart_stage, back={"SHAP", "LIME", "Random"})
    _until_idle(spare)  # as if every case would be shared
    done = _spy_redone(monkeypatch)
    result = _check_with(heart_stage, failed, work.checks)
    assert done, "the check used re-explanations planned for other cases"
    assert _same(result, oracle)


def test_nothing_is_done_before_the_refit_is_back_nor_once_the_rest_is_queued_nor_on_wide_data(heart_stage,
                                                                                              monkeypatch):
    done = _spy_redone(monkeypatch)
    pending = Future()
    spare, work, _ = _spare(heart_stage, back={"SHAP", "LIME", "Random"}, fit=pending)
    assert not spare() and done == []
    pending.set_running_or_notify_cancel()
    pending.set_result(heart_stage[4])
    work.randomised_reruns = {("SHAP",): Future()}  # the check's jobs were queued to the helper: it shares them out
    assert not spare() and done == []
    work.randomised_reruns = {}
    assert spare() and len(done) == 1
    wide = SimpleNamespace(feature_names=[f"x{k}" for k in range(sanity.WIDE_RERUN_COLUMNS)])
    spare_wide, _, runner = _spare(heart_stage, back={"SHAP", "LIME", "Random"})
    runner.data = wide  # one search re-run there can outlast the helper's last job
    assert not spare_wide() and len(done) == 1


def test_a_refit_that_failed_leaves_the_check_to_say_why(heart_stage, monkeypatch):
    done = _spy_redone(monkeypatch)
    spare, _, _ = _spare(heart_stage, back={"SHAP"}, fit=settled(result=(None, "the model cannot be re-fitted")))
    assert not spare() and done == []
    spare, _, _ = _spare(heart_stage, back={"SHAP"}, fit=settled(error=MemoryError("the helper ran out of memory")))
    assert not spare() and done == []


# --- a whole stage with the helper ---------------------------------------------------------------------------------


def _searches_answer_late(monkeypatch, seconds: float = 1.0) -> None:
    """The helper's Anchor and DiCE answers reach the main process ``seconds`` late, and each counts as started at
    once (not taken back): the main process then surely waits for them, whatever the machine's load (this small run's
    searches can otherwise end before the main process's own share does)."""
    submit = helper_pool.HelperRun.submit

    def late(self, method, *args):
        answer = submit(self, method, *args)
        if method not in ("Anchor", "DiCE"):
            return answer
        relayed = Future()
        relayed.set_running_or_notify_cancel()

        def relay(done):
            time.sleep(seconds)
            if done.cancelled() or done.exception() is not None:
                relayed.set_exception(done.exception() if not done.cancelled() else CancelledError())
            else:
                relayed.set_result(done.result())

        answer.add_done_callback(lambda done: threading.Thread(target=relay, args=(done,), daemon=True).start())
        return relayed

    monkeypatch.setattr(helper_pool.HelperRun, "submit", late)


@needs_two_cores
def test_with_the_helper_the_main_process_reexplains_while_it_waits_with_the_sequential_results(
        usecase_bundle, warm_helper, monkeypatch):
    """Credit risk: the helper searches Anchor's and DiCE's cases for seconds after the main process has explained
    and measured its own share; the check's re-explanations are done meanwhile, none of them twice."""
    _, config, data, model = usecase_bundle("credit_risk")
    sequential = run_sanity_checks(model, data, _sequential(config), run_technical_evaluation(
        model, data, _sequential(config)))
    waited = []
    redo = spare_reruns.SpareReruns._redo
    monkeypatch.setattr(spare_reruns.SpareReruns, "_redo",
                        lambda self, group, key: waited.append(key) or redo(self, group, key))
    _searches_answer_late(monkeypatch)
    technical = run_technical_evaluation(model, data, _auto(config))
    assert waited, "the main process re-explained nothing while it waited for the helper"
    assert not set(waited) & set(technical.randomised_reruns)  # none of them queued to the helper as well
    asked = []
    take_back = sanity._take_back
    monkeypatch.setattr(sanity, "_take_back", lambda queued, plans, redo, kept=None: asked.extend(
        k for _, k in plans) or take_back(queued, plans, redo, kept))
    here = _spy_redone(monkeypatch)
    checks, warnings = run_sanity_checks(model, data, _auto(config), technical)
    assert set(waited) <= set(asked)  # the check's own jobs, none wasted
    assert not {(k[0], k[2]) for k in waited} & set(here)  # and it redid none of them
    assert _same(checks, sequential[0]) and warnings == sequential[1]
