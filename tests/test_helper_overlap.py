"""The randomisation check's re-explanations queued to the helper process while the technical stage measures:
the same check as ``sequential``, whichever process did each job, and nothing used that was planned for other
cases."""

from __future__ import annotations

from concurrent.futures import Future, wait

import pandas as pd
import pytest
from helper_fixtures import (helper_starts_first, needs_two_cores, no_helper_left, settled, wait_pid,  # noqa: F401
                             warm_helper)  # (fixtures)
from test_helper_process import _auto, _sequential, runners  # noqa: F401 (runners: a fixture)

from hexeval_engine.runtime import helper_pool
from hexeval_engine.runtime.parallel import ExplainRunner
from hexeval_engine.technical.run import run_technical_evaluation
from hexeval_engine.explainers.lime_explainer import LimeExplainer
from hexeval_engine.technical import measuring, overlap
from hexeval_engine.technical import run as run_module
from hexeval_engine.technical import sanity
from hexeval_engine.technical.sanity import run_sanity_checks

#: The methods whose re-explanations the check queues to the helper (every randomisable method but the baseline).
HELPER_RERUNS = ("SHAP", "LIME", "Anchor", "DiCE")

pytestmark = needs_two_cores




@pytest.fixture(scope="module")
def sequential_checks(usecase_bundle):
    _, config, data, model = usecase_bundle("credit_risk")
    technical = run_technical_evaluation(model, data, _sequential(config))
    assert not technical.randomised_reruns  # nothing is queued without the helper
    return run_sanity_checks(model, data, _sequential(config), technical)


def _technical_on_helper(usecase_bundle):
    """The technical stage with the helper, every re-explanation of the check queued to it: the main process does
    none while it waits for the helper's searches (that path: ``tests/test_spare_reruns.py``)."""
    _, config, data, model = usecase_bundle("credit_risk")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(overlap, "SpareReruns", lambda *args: None)
        technical = run_technical_evaluation(model, data, _auto(config))
    return model, data, _auto(config), technical


def test_the_checks_reexplanations_run_in_the_helper_with_the_sequential_results(usecase_bundle, warm_helper,
                                                                                   sequential_checks, monkeypatch):
    model, data, config, technical = _technical_on_helper(usecase_bundle)
    queued = dict(technical.randomised_reruns)
    assert sorted(set(k[0] for k in queued)) == sorted(HELPER_RERUNS)
    # a search (Anchor, DiCE) goes as one job per case, so each is kept as it returns and the last can be taken back
    assert sorted(len(k[2]) for k in queued if k[0] in ("Anchor", "DiCE")) == [1] * 2 * sanity.SEARCH_CASES
    here = []
    redone = sanity._redone
    monkeypatch.setattr(sanity, "_redone", lambda group, data, method, *a: here.append(method) or
                        redone(group, data, method, *a))
    checks, warnings = run_sanity_checks(model, data, config, technical)
    answered = [k[0] for k, f in queued.items() if f.done() and not f.cancelled()]
    assert answered, "the helper did none of the check's re-explanations"
    assert sorted(here + answered) == sorted(["Random", *(k[0] for k in queued)])  # each done once, somewhere
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
    queued[failed] = settled(error=MemoryError("the helper ran out of memory"))
    other = keys[1]  # planned for other cases (as if a method's metrics failed and the shared cases changed)
    wrong = settled(result=[])  # an answer that would empty the method's comparison if it were used
    queued[(other[0], other[1][1:], other[2], other[3])] = wrong
    queued.pop(other).cancel()
    checks, warnings = run_sanity_checks(model, data, config, technical)
    assert checks == sequential_checks[0] and warnings == sequential_checks[1]


def _measured(monkeypatch) -> list:
    """The methods the technical stage measures, in the order it measures them."""
    seen = []
    compute = measuring.compute_instance_metrics
    # measured after the explanations or while the helper explains, both through measuring.method_metrics
    monkeypatch.setattr(measuring, "compute_instance_metrics",
                        lambda model, data, explanations, *a, **k: seen.append(explanations[0].method) or
                        compute(model, data, explanations, *a, **k))
    return seen


def test_shap_and_random_are_measured_while_the_helper_explains(usecase_bundle, warm_helper, monkeypatch):
    _, config, data, model = usecase_bundle("credit_risk")
    seen = _measured(monkeypatch)
    sequential = run_technical_evaluation(model, data, _sequential(config))
    assert seen == ["SHAP", "LIME", "Anchor", "DiCE", "Random"]
    seen.clear()
    on_helper = run_technical_evaluation(model, data, _auto(config))
    # once each, the two the main process explains first; the others as their explanations become complete
    assert seen[:2] == ["SHAP", "Random"] and sorted(seen) == ["Anchor", "DiCE", "LIME", "Random", "SHAP"]
    pd.testing.assert_frame_equal(on_helper.per_instance, sequential.per_instance)
    pd.testing.assert_frame_equal(on_helper.per_instance_unshared, sequential.per_instance_unshared)


def test_early_metrics_are_measured_again_when_the_stability_copies_went_missing(usecase_bundle, warm_helper,
                                                                                  monkeypatch):
    """LIME's stability run fails (here and in the helper): every method is left without noisy copies, so the
    metrics SHAP got while the helper explained (with its copies) are not the sequential ones and are redone."""
    _, config, data, model = usecase_bundle("credit_risk")
    extra = {"evaluation": {"sample_size": 8, "stability": {"repeats": 3}}}  # LIME's copies and re-runs: 9 rows
    explain, submit = LimeExplainer.explain, helper_pool.HelperRun.submit

    def failing_here(self, X_raw, ids, *args, **kwargs):
        if len(ids) == 9:
            raise ValueError("LIME could not explain the noisy copies")
        return explain(self, X_raw, ids, *args, **kwargs)

    def failing_there(self, method, X_raw, ids, *args):
        if method != "LIME" or len(ids) != 9:
            return submit(self, method, X_raw, ids, *args)
        return settled(error=ValueError("LIME could not explain the noisy copies"))

    monkeypatch.setattr(LimeExplainer, "explain", failing_here)
    monkeypatch.setattr(helper_pool.HelperRun, "submit", failing_there)
    sequential = run_technical_evaluation(model, data, _sequential(config, extra))
    seen = _measured(monkeypatch)
    on_helper = run_technical_evaluation(model, data, _auto(config, extra))
    assert seen[:2] == ["SHAP", "Random"] and sorted(seen).count("SHAP") == 2  # measured early, then again
    assert any("stability" in f["error"] for f in sequential.failures)
    assert on_helper.failures == sequential.failures
    pd.testing.assert_frame_equal(on_helper.per_instance, sequential.per_instance)


def test_claims_measured_while_the_helper_explains_are_measured_again_when_a_method_drops_out(usecase_bundle,
                                                                                                warm_helper,
                                                                                                monkeypatch):
    """The claim-scoped metrics are measured once every method's cases are explained, before the stability copies
    are; when a method is then left out (its metrics fail), the claims the sequential run gets (without it) are
    measured again, and the early ones are not used."""
    _, config, data, model = usecase_bundle("credit_risk")
    claimed_methods = []
    frame = measuring.claim_frame

    def recording(model, data, config, claimed, *a, **k):
        claimed_methods.append(sorted({e.method for e in claimed}))
        return frame(model, data, config, claimed, *a, **k)

    for module in (run_module, overlap):  # measured after the explanations, or while the helper explains
        monkeypatch.setattr(module, "claim_frame", recording)
    work_ahead = ExplainRunner.work_ahead

    def after_the_helper(self, **kwargs):  # every case is explained when the main process looks (not by chance)
        wait([p.future for a in self._ahead.values() for p in a.parts if p.future is not None])
        return work_ahead(self, **kwargs)

    monkeypatch.setattr(ExplainRunner, "work_ahead", after_the_helper)
    on_helper = run_technical_evaluation(model, data, _auto(config))
    assert claimed_methods == [["Anchor", "DiCE", "LIME", "Random", "SHAP"]]  # once, early, and used
    sequential = run_technical_evaluation(model, data, _sequential(config))
    pd.testing.assert_frame_equal(on_helper.per_instance, sequential.per_instance)

    compute = measuring.compute_instance_metrics

    def anchor_fails(model, data, explanations, *a, **k):
        if explanations[0].method == "Anchor":
            raise ValueError("Anchor's metrics could not be computed")
        return compute(model, data, explanations, *a, **k)

    monkeypatch.setattr(measuring, "compute_instance_metrics", anchor_fails)  # early or late, as above
    sequential = run_technical_evaluation(model, data, _sequential(config))
    claimed_methods.clear()
    on_helper = run_technical_evaluation(model, data, _auto(config))
    assert claimed_methods[-1] == ["DiCE", "LIME", "Random", "SHAP"] and len(claimed_methods) == 2
    assert any(f["method"] == "Anchor" and "metrics" in f["error"] for f in on_helper.failures)
    assert on_helper.failures == sequential.failures
    pd.testing.assert_frame_equal(on_helper.per_instance, sequential.per_instance)


def test_wide_data_sends_the_searches_in_parts_with_the_sequential_results(usecase_bundle, warm_helper,
                                                                           sequential_checks, monkeypatch):
    from test_technical import _signature

    from hexeval_engine.runtime import parallel

    monkeypatch.setattr(parallel, "WIDE_COLUMNS", 5)  # credit risk's 11 feature columns count as wide here
    submitted = []
    submit = ExplainRunner._submit
    monkeypatch.setattr(ExplainRunner, "_submit", lambda self, part: submitted.append(
        (part.job.method, len(part.job.ids))) or submit(self, part))
    _, config, data, model = usecase_bundle("credit_risk")
    sequential = run_technical_evaluation(model, data, _sequential(config))
    technical = run_technical_evaluation(model, data, _auto(config))
    for method in ("Anchor", "DiCE"):  # 3 cases each: parts of 2 and 1
        assert sorted(n for m, n in submitted if m == method) == [1, 2], method
    anchor_reruns = [key for key in technical.randomised_reruns if key[0] == "Anchor"]
    assert len(anchor_reruns) == 3 and all(len(rows) == 1 for _, _, rows, _ in anchor_reruns)  # a job per case
    assert _signature(technical.explanations) == _signature(sequential.explanations)
    pd.testing.assert_frame_equal(technical.per_instance, sequential.per_instance)
    checks, warnings = run_sanity_checks(model, data, _auto(config), technical)
    assert checks == sequential_checks[0] and warnings == sequential_checks[1]


def test_wide_data_uses_the_helper_below_helper_min_work_and_both_processes_search(usecase_bundle, warm_helper,
                                                                                  runners, helper_starts_first,
                                                                                  monkeypatch):
    """On wide data (here credit risk's 11 columns count as wide) a run whose rows x num_samples stay below
    ``helper_min_work`` still sends its searches to the helper; the main process takes searches back, and the
    explanations and metrics are the sequential backend's."""
    from test_technical import _signature

    from hexeval_engine.runtime import parallel

    _, config, data, model = usecase_bundle("credit_risk")
    minimum = {"evaluation": {"parallel": {"helper_min_work": 10**9}}}  # far above this run's rows x num_samples
    sequential = run_technical_evaluation(model, data, _sequential(config))
    runners.clear()
    technical = run_technical_evaluation(model, data, _auto(config, minimum))
    assert not any(r.uses_helper for r in runners)  # narrow: judged by helper_min_work, as before
    monkeypatch.setattr(parallel, "WIDE_COLUMNS", 5)
    here = []
    do_here = ExplainRunner._do_here
    monkeypatch.setattr(ExplainRunner, "_do_here", lambda self, part, *a: here.append(
        (part.job.method, tuple(part.job.ids))) or do_here(self, part, *a))
    submitted = []
    submit = ExplainRunner._submit
    monkeypatch.setattr(ExplainRunner, "_submit", lambda self, part: submitted.append(part) or submit(self, part))
    runners.clear()
    technical = run_technical_evaluation(model, data, _auto(config, minimum))
    assert any(r.uses_helper for r in runners) and sum(r.jobs_in_helper for r in runners) > 0
    assert all(r._helper.one_at_a_time for r in runners if r.uses_helper)  # wide: one job at a time
    searches = [p for p in submitted if p.job.method in ("Anchor", "DiCE")]
    in_helper = [p for p in searches if p.result is not None and (p.job.method, tuple(p.job.ids)) not in here]
    taken_back = [p for p in searches if (p.job.method, tuple(p.job.ids)) in here]
    assert in_helper and taken_back  # both processes searched
    assert _signature(technical.explanations) == _signature(sequential.explanations)
    pd.testing.assert_frame_equal(technical.per_instance, sequential.per_instance)


def test_helper_worth_on_wide_data_counts_the_searches(usecase_bundle, monkeypatch):
    from test_technical import fast

    from hexeval_engine.runtime import parallel

    monkeypatch.setattr(helper_pool, "helper_cores", lambda: 2)
    _, config, _, _ = usecase_bundle("credit_risk")
    small = fast(config, {"evaluation": {"sample_size": 10, "parallel": {"backend": "auto"}}})
    assert not parallel.helper_worth(small, columns=11)  # narrow: rows x num_samples below helper_min_work
    assert parallel.helper_worth(small, columns=parallel.WIDE_COLUMNS)
    assert not parallel.helper_worth(small, 40, columns=parallel.WIDE_COLUMNS, searches=0)  # LIME only
    sequential = fast(config, {"evaluation": {"parallel": {"backend": "sequential"}}})
    assert not parallel.helper_worth(sequential, columns=parallel.WIDE_COLUMNS)


def test_the_helpers_worker_gets_one_job_at_a_time_so_every_job_it_has_not_started_can_be_taken_back(warm_helper):
    import os
    import time

    helper = helper_pool._STATE["helper"]
    running = helper.submit(time.sleep, 1.0)
    deadline = time.monotonic() + 10
    while not running.running() and time.monotonic() < deadline:
        time.sleep(0.01)
    behind = [helper.submit(time.sleep, 1.0), helper.submit(time.sleep, 1.0)]
    last = helper.submit(os.getpid)
    assert not running.cancel()  # handed to the worker
    assert all(f.cancel() for f in behind)  # neither was handed over: both taken back (the executor's spare slot
    assert last.result(timeout=30) == warm_helper  # would have held the first); the queue goes on after them
    assert running.done() and not any(f.running() for f in behind)


def test_a_narrow_run_hands_its_jobs_to_the_executor_as_it_queues_them(usecase_bundle, warm_helper, runners):
    """On narrow data a run's jobs go to the executor at once (its spare slot may start one behind the running
    job), as before the one-at-a-time hand-over of wide data: what an interruption leaves of a narrow run stays as
    it was (heart killed at 80 % of the technical stage kept ~230 pieces so, 178 one at a time)."""
    runners.clear()
    _technical_on_helper(usecase_bundle)
    used = [r for r in runners if r.uses_helper]
    assert used and not any(r._helper.one_at_a_time for r in used)


def test_a_resumed_run_whose_explanations_are_stored_hands_the_checks_reexplanations_to_the_helper(
        tmp_path, warm_helper, helper_starts_first, monkeypatch):
    """A run interrupted after its explanations but before the check's re-explanations were kept: resumed, it has
    nothing left to explain, yet the check's re-explanations go to the helper as the run starts (they overlap the
    main process's measuring instead of all being redone here after it), and the run is the first one."""
    from test_resume_and_reuse import _comparable, _stage_entry

    from hexeval_engine.evaluate import evaluate
    from hexeval_engine.technical.check_pieces import CheckPieces

    settings = {"evaluation": {"sample_size": 20, "bootstrap_resamples": 100, "sanity": {"randomisation_cases": 3}},
                "personas": {"sample_instances": 2}}
    first = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=settings)
    _stage_entry(tmp_path).unlink()  # as after an interruption: the stage's result and the re-explanations gone
    monkeypatch.setattr(CheckPieces, "reruns", lambda self, plan, counted=True: None)
    queued = []
    real = overlap.queue_reruns
    monkeypatch.setattr(overlap, "queue_reruns", lambda *a, **k: queued.append(real(*a, **k)) or queued[-1])
    second = evaluate(usecase="heart", output_dir=tmp_path, config_overrides=settings)
    assert second.manifest["reuse"]["explanations_computed"] == 0
    assert len(queued) == 1 and sorted(set(k[0] for k in queued[0])) == sorted(HELPER_RERUNS)
    answered = [k[0] for k, f in queued[0].items() if f.done() and not f.cancelled() and f.exception() is None]
    assert answered, "the helper did none of the check's re-explanations"
    assert second.sanity == first.sanity
    assert _comparable(second.output_path) == _comparable(first.output_path)


def test_the_check_queues_its_searches_first_and_no_reexplanation_an_interrupted_run_stored(usecase_bundle):
    """The helper gets the searches (Anchor, DiCE) first, so the main process, taking back from the end, is left
    waiting at most for a short job; a re-explanation the interrupted run stored is not queued at all."""
    _, config, data, model = usecase_bundle("credit_risk")
    technical = run_technical_evaluation(model, data, _sequential(config))
    asked = []

    class Runner:
        def __init__(self):
            self.data = data

        def helper_call(self, fn, *, one_at_a_time=None):
            asked.append((fn.keywords["method"], one_at_a_time))
            return Future()

    class Kept:
        def reruns(self, plan, *, counted=True):
            assert not counted  # only asked whether it is stored
            return ["stored"] if plan[0] == "Anchor" else None

    everything = sanity.queue_reruns(Runner(), config, technical.explanation, technical.shared_instance_ids)
    searches = ["Anchor"] * sanity.SEARCH_CASES + ["DiCE"] * sanity.SEARCH_CASES  # one job per searched case
    assert [k[0] for k in everything] == [*searches, "SHAP", "LIME"]
    assert [k[2] for k in everything][:len(searches)] == [(k,) for k in range(sanity.SEARCH_CASES)] * 2
    asked.clear()
    queued = sanity.queue_reruns(Runner(), config, technical.explanation, technical.shared_instance_ids, Kept())
    assert [k[0] for k in queued] == ["DiCE"] * sanity.SEARCH_CASES + ["SHAP", "LIME"]
    # each can be taken back until it starts
    assert asked == [("DiCE", True)] * sanity.SEARCH_CASES + [("SHAP", True), ("LIME", True)]
