"""The randomisation check's re-explanations queued to the helper process while the technical stage measures:
the same check as ``sequential``, whichever process did each job, and nothing used that was planned for other
cases."""

from __future__ import annotations

import time
from concurrent.futures import Future

import pytest
from test_helper_process import _auto, _sequential

from hexeval_engine.explainers import helper_pool
from hexeval_engine.technical.run import run_technical_evaluation
from hexeval_engine.technical import sanity
from hexeval_engine.technical.sanity import HELPER_RERUNS, run_sanity_checks

pytestmark = pytest.mark.skipif(helper_pool.helper_cores() < 2, reason="the helper needs 2 usable cores")


@pytest.fixture(scope="module", autouse=True)
def _no_helper_left():
    yield
    helper_pool.stop_helper()


@pytest.fixture
def warm_helper():
    helper_pool.start_helper(background=False)
    deadline = time.monotonic() + 60
    while helper_pool.helper_pid() is None:
        assert time.monotonic() < deadline, "the helper did not start"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def sequential_checks(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    technical = run_technical_evaluation(model, data, _sequential(config))
    assert not technical.randomised_reruns  # nothing is queued without the helper
    return run_sanity_checks(model, data, _sequential(config), technical)


def _technical_on_helper(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    technical = run_technical_evaluation(model, data, _auto(config))
    return model, data, _auto(config), technical


def test_the_checks_reexplanations_run_in_the_helper_with_the_sequential_results(usecase_bundle, warm_helper,
                                                                                   sequential_checks, monkeypatch):
    model, data, config, technical = _technical_on_helper(usecase_bundle)
    queued = dict(technical.randomised_reruns)
    assert sorted(k[0] for k in queued) == sorted(HELPER_RERUNS)
    here = []
    redone = sanity._redone
    monkeypatch.setattr(sanity, "_redone", lambda group, data, method, *a: here.append(method) or
                        redone(group, data, method, *a))
    checks, warnings = run_sanity_checks(model, data, config, technical)
    answered = [k[0] for k, f in queued.items() if f.done() and not f.cancelled()]
    assert answered, "the helper did none of the check's re-explanations"
    assert sorted(here + answered) == sorted(["SHAP", "Random", *HELPER_RERUNS])  # each done once, somewhere
    assert all(f.done() for f in queued.values())  # nothing is left queued behind the check
    assert checks == sequential_checks[0] and warnings == sequential_checks[1]
    assert checks["randomisation"]["status"] == "done"
    assert all(checks["randomisation"]["methods"][m]["n"] > 0 for m in HELPER_RERUNS)


def test_jobs_the_helper_has_not_started_are_taken_back(usecase_bundle, warm_helper, sequential_checks):
    model, data, config, technical = _technical_on_helper(usecase_bundle)
    queued = technical.randomised_reruns
    for key in list(queued):  # as if the helper had not reached them yet
        queued[key].cancel()
        queued[key] = Future()
    pending = list(queued.values())
    checks, warnings = run_sanity_checks(model, data, config, technical)
    assert all(f.cancelled() for f in pending)  # taken back, not waited for
    assert checks == sequential_checks[0] and warnings == sequential_checks[1]


def test_a_failed_or_mismatched_job_is_redone_here(usecase_bundle, warm_helper, sequential_checks):
    model, data, config, technical = _technical_on_helper(usecase_bundle)
    queued = technical.randomised_reruns
    keys = sorted(queued)
    failed = keys[0]
    queued[failed].cancel()
    queued[failed] = Future()
    queued[failed].set_running_or_notify_cancel()
    queued[failed].set_exception(MemoryError("the helper ran out of memory"))
    other = keys[1]  # planned for other cases (as if a method's metrics failed and the shared cases changed)
    wrong = Future()
    wrong.set_running_or_notify_cancel()
    wrong.set_result([])  # an answer that would empty the method's comparison if it were used
    queued[(other[0], other[1][1:], other[2], other[3])] = wrong
    queued.pop(other).cancel()
    checks, warnings = run_sanity_checks(model, data, config, technical)
    assert checks == sequential_checks[0] and warnings == sequential_checks[1]
