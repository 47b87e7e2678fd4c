"""The warm helper process (``evaluation.parallel.backend: auto``): same results as ``sequential``, robust to a
helper that dies, fails, answers for the wrong cases or cannot take the model, and no process left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import types
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helper_fixtures import (gone_within, helper_starts_first, needs_two_cores, no_helper_left, settled,  # noqa: F401
                             wait_pid, warm_helper)  # (fixtures)
from test_technical import _signature, fast

from hexeval_engine.config.loader import deep_merge
from hexeval_engine.runtime import helper_pool
from hexeval_engine.runtime.parallel import ExplainRunner
from hexeval_engine.explainers.base import instance_seed
from hexeval_engine.explainers.lime_explainer import LimeExplainer
from hexeval_engine.runtime.parallel import ExplainJob
from hexeval_engine.models.model_wrapper import HexevalModel
from hexeval_engine.technical.run import run_technical_evaluation

pytestmark = needs_two_cores

#: a small credit run the helper takes (helper_min_work 0): every method, stability copies and LIME re-runs
SMALL = {"evaluation": {"sample_size": 6, "stability": {"repeats": 2},
                        "explainers": {"lime": {"num_samples": 150, "stability_subset": 3, "seed_reruns": True},
                                       "anchor": {"max_instances": 3}, "dice": {"max_instances": 3}}}}


def _auto(config, extra=None):
    return fast(config, deep_merge(deep_merge(SMALL, {"evaluation": {"parallel": {"backend": "auto",
                                                                                  "helper_min_work": 0}}}),
                                   extra or {}))


def _sequential(config, extra=None):
    return fast(config, deep_merge(deep_merge(SMALL, {"evaluation": {"parallel": {"backend": "sequential"}}}),
                                   extra or {}))





@pytest.fixture
def runners(monkeypatch):
    """Every ExplainRunner the code under test opens, to read what its helper did."""
    seen = []
    enter = ExplainRunner.__enter__

    def recording(self):
        seen.append(self)
        return enter(self)

    monkeypatch.setattr(ExplainRunner, "__enter__", recording)
    return seen


def _stability(result):
    return result.per_instance[result.per_instance["metric"].str.contains("stability")]


def test_helper_gives_the_sequential_results_case_by_case(usecase_bundle, warm_helper, runners,
                                                          helper_starts_first):
    _, config, data, model = usecase_bundle("credit_risk")
    steps = {"sequential": [], "helper": []}
    sequential = run_technical_evaluation(model, data, _sequential(config),
                                          on_progress=lambda d, t, m: steps["sequential"].append((d, t, m)))
    runners.clear()
    on_helper = run_technical_evaluation(model, data, _auto(config),
                                         on_progress=lambda d, t, m: steps["helper"].append((d, t, m)))
    assert sum(r.jobs_in_helper for r in runners) > 0  # the helper really explained some jobs
    # progress advances per explained case wherever it was explained, and ends where the sequential run ends
    said = {k: Counter(m for _, _, m in v if not m.startswith("Explaining with")) for k, v in steps.items()}
    assert said["helper"] == said["sequential"]
    assert steps["helper"][-1][:2] == steps["sequential"][-1][:2]
    assert [d for d, _, _ in steps["helper"]] == sorted(d for d, _, _ in steps["helper"])
    assert sum(r.worker_rows for r in runners) > 0
    assert _signature(on_helper.explanations) == _signature(sequential.explanations)
    assert [e.text for e in on_helper.explanations] == [e.text for e in sequential.explanations]
    pd.testing.assert_frame_equal(on_helper.per_instance, sequential.per_instance)
    assert not _stability(on_helper).empty  # the noisy copies and re-runs went through the helper too
    assert on_helper.model_rows == sequential.model_rows  # the helper's model rows are counted
    assert on_helper.failures == sequential.failures == []


def _lime_job(model, data, config, n=8, render=True):
    ids = list(range(n))
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    proba = model.predict_proba(X)
    classes = (proba[:, 1] >= model.threshold).astype(int)
    seeds = [instance_seed(config.evaluation.random_state, i, "LIME") for i in ids]
    return ExplainJob("LIME", X, ids, classes, proba[np.arange(n), classes], seeds, render)


def _in_process(model, data, config, job):
    with ExplainRunner(model, data, _sequential(config)) as runner:
        return runner.explain(job.method, job.X_raw, job.ids, job.classes, job.probabilities, job.seeds,
                              render=job.render)


def _prefetched(runner, job):
    runner.prefetch([job])
    assert runner.uses_helper
    return runner.explain(job.method, job.X_raw, job.ids, job.classes, job.probabilities, job.seeds,
                          render=job.render)


def test_an_answer_for_other_cases_is_not_attached_to_these(usecase_bundle, warm_helper, monkeypatch):
    _, config, data, model = usecase_bundle("credit_risk")
    job = _lime_job(model, data, config)
    expected = _in_process(model, data, config, job)

    def swapped(self, method, X_raw, ids, classes, probabilities, seeds, render):
        # the right explanations, in reverse order: each attached to another case
        return settled(result=(list(reversed(_in_process(model, data, config, job))), 0, 0))

    monkeypatch.setattr(helper_pool.HelperRun, "submit", swapped)
    with ExplainRunner(model, data, _auto(config)) as runner:
        got = _prefetched(runner, job)
        assert runner.jobs_in_helper == 0 and runner.jobs_here == 1  # refused and redone here
    assert _signature(got) == _signature(expected)


def test_a_job_that_fails_in_the_helper_is_redone_here(usecase_bundle, warm_helper, monkeypatch):
    _, config, data, model = usecase_bundle("credit_risk")
    job = _lime_job(model, data, config)
    expected = _in_process(model, data, config, job)

    def failing(self, *args):
        return settled(error=MemoryError("the helper ran out of memory"))

    monkeypatch.setattr(helper_pool.HelperRun, "submit", failing)
    with ExplainRunner(model, data, _auto(config)) as runner:
        got = _prefetched(runner, job)
    assert _signature(got) == _signature(expected) and [e.text for e in got] == [e.text for e in expected]


def test_a_method_error_looks_as_in_sequential(usecase_bundle, warm_helper, monkeypatch):
    _, config, data, model = usecase_bundle("credit_risk")

    def failing_here(self, *args, **kwargs):  # LIME fails in this process: in sequential, and when redone here
        raise ValueError("LIME could not explain these cases")

    def failing_there(self, *args):  # and the helper's answer is a failure too
        return settled(error=ValueError("LIME could not explain these cases"))

    monkeypatch.setattr(LimeExplainer, "explain", failing_here)
    monkeypatch.setattr(helper_pool.HelperRun, "submit", failing_there)
    sequential = run_technical_evaluation(model, data, _sequential(config))
    on_helper = run_technical_evaluation(model, data, _auto(config))
    assert sequential.failures and on_helper.failures == sequential.failures
    assert list(on_helper.metrics["error"]) == list(sequential.metrics["error"])
    assert _signature(on_helper.explanations) == _signature(sequential.explanations)


def test_a_helper_that_dies_mid_run_leaves_the_results_unchanged(usecase_bundle, monkeypatch):
    _, config, data, model = usecase_bundle("credit_risk")
    helper_pool.start_helper(background=False)
    pid = wait_pid()
    job = _lime_job(model, data, config, n=40, render=False)
    expected = _in_process(model, data, config, job)
    try:
        with ExplainRunner(model, data, _auto(config)) as runner:
            runner.prefetch([job])
            os.kill(pid, 9)
            got = runner.explain(job.method, job.X_raw, job.ids, job.classes, job.probabilities, job.seeds,
                                 render=False)
        assert _signature(got) == _signature(expected)
        with ExplainRunner(model, data, _auto(config)) as runner:  # the next run starts a fresh helper
            runner.prefetch([job])
        assert wait_pid() != pid
    finally:
        helper_pool.stop_helper()


def test_a_model_that_cannot_be_sent_stays_in_process(usecase_bundle, warm_helper, caplog):
    _, config, data, model = usecase_bundle("credit_risk")
    fields = {k: getattr(model, k) for k in ("preprocessor", "feature_names", "threshold", "class_labels", "source",
                                             "kind", "sha256", "input_codes")}
    estimator = model.estimator
    odd = HexevalModel(estimator=types.SimpleNamespace(predict_proba=estimator.predict_proba,
                                                       handle=threading.Lock()), **fields)
    job = _lime_job(model, data, config)
    with caplog.at_level("INFO", logger="hexeval_engine.runtime.helper_pool"):
        with ExplainRunner(odd, data, _auto(config)) as runner:
            runner.prefetch([job])
            assert not runner.uses_helper
    assert "cannot be sent to the helper process" in caplog.text


def test_small_runs_stay_in_process(usecase_bundle, warm_helper):
    _, config, data, model = usecase_bundle("credit_risk")
    small = fast(config, deep_merge(SMALL, {"evaluation": {"parallel": {"backend": "auto"}}}))  # default threshold
    job = _lime_job(model, data, small)
    with ExplainRunner(model, data, small) as runner:
        runner.prefetch([job])
        assert not runner.uses_helper


def test_stopping_the_helper_ends_its_process():
    helper_pool.start_helper(background=False)
    pid = wait_pid()
    helper_pool.stop_helper()
    # the forkserver, its parent, reaps it
    assert gone_within(pid, 20), f"the helper process {pid} still runs after stop_helper()"


def test_the_helper_never_runs_the_main_script_again(tmp_path):
    """A forkserver's new process runs its parent's main script again unless told otherwise; the helper is told
    (a script without a main guard, and the dashboard's app.py run by Streamlit as ``__main__``)."""
    marker = tmp_path / "imports.txt"
    script = tmp_path / "unguarded.py"
    script.write_text("import os, time\n"
                      f"open({str(marker)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
                      "from hexeval_engine.runtime import helper_pool\n"
                      "if __name__ in ('__main__', '__mp_main__'):\n"
                      "    helper_pool.start_helper(background=False)\n"
                      "    while helper_pool.helper_pid() is None:\n"
                      "        time.sleep(0.05)\n"
                      "    helper_pool.stop_helper()\n")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(marker.read_text().split()) == 1  # only the main process ran it


#: A main process that starts the helper, prints its pid and waits (to be killed).
START_AND_WAIT = ("import sys, time\n"
                  "from hexeval_engine.runtime import helper_pool\n"
                  "if __name__ == '__main__':\n"
                  "    helper_pool.start_helper(background=False)\n"
                  "    while helper_pool.helper_pid() is None:\n"
                  "        time.sleep(0.05)\n"
                  "    print(helper_pool.helper_pid(), flush=True)\n"
                  "    time.sleep(600)\n")


def test_the_helper_ends_when_its_main_process_is_killed(tmp_path):
    script = tmp_path / "start_and_wait.py"
    script.write_text(START_AND_WAIT)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        pid = int(proc.stdout.readline())
        proc.kill()  # no atexit, no shutdown: only the helper's watchdog can notice
        proc.wait(timeout=10)
        if not gone_within(pid, 20):
            os.kill(pid, 9)
            raise AssertionError(f"the helper {pid} outlived its killed main process")
    finally:
        proc.kill()


def test_the_helper_ends_when_its_killed_main_process_is_not_reaped_yet(tmp_path):
    """The main process killed outright while its own parent has not reaped it yet (a zombie still exists as a
    process): the helper ends within seconds all the same, and closes the output pipe it inherited, so a parent
    reading that pipe to its end before reaping (``subprocess.run(capture_output=True)``) is not left waiting."""
    script = tmp_path / "start_and_wait.py"
    script.write_text(START_AND_WAIT)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    pid = None
    try:
        pid = int(proc.stdout.readline())
        os.kill(proc.pid, signal.SIGKILL)  # not reaped until the end of this test
        rest = []
        reader = threading.Thread(target=lambda: rest.append(proc.stdout.read()), daemon=True)
        reader.start()
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid), f"the helper {pid} outlived its killed main process by 10 s"
        reader.join(10)
        assert rest == [""], "the output pipe stayed open after the main process was killed"
        assert proc.poll() is None or proc.returncode == -signal.SIGKILL
    finally:
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait(timeout=10)


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                out.append(int(entry))
    return out


def _cpu_seconds(pid: int) -> float:
    try:
        stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"


def test_ctrl_c_while_the_helper_explains_exits_at_once_and_leaves_no_process(tmp_path):
    """A process with a warm helper (the dashboard's case; a cold CLI's first run is explained in-process while
    the helper starts): Ctrl-C while the helper explains stops the run at once, and the helper ends too."""
    script = tmp_path / "run_and_wait.py"
    script.write_text(
        "import sys\n"
        "from hexeval_engine import evaluate\n"
        "from hexeval_engine.runtime import helper_pool\n"
        "if __name__ == '__main__':\n"
        "    helper_pool.start_helper(background=False)\n"
        "    while helper_pool.helper_pid() is None:\n"
        "        pass\n"
        "    print(helper_pool.helper_pid(), flush=True)\n"
        "    try:\n"
        "        evaluate(usecase='heart', save=False, config_overrides={'evaluation': {'sample_size': 100, "
        "'parallel': {'backend': 'auto', 'helper_min_work': 0}}, 'personas': {'enabled': False}, "
        "'narratives': {'enabled': False}})\n"
        "    except KeyboardInterrupt:\n"
        "        sys.exit(130)\n")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        worker = int(proc.stdout.readline())
        idle = _cpu_seconds(worker)
        deadline = time.monotonic() + 60
        while _cpu_seconds(worker) < idle + 0.3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)  # until the helper is explaining
        assert proc.poll() is None, "the run ended before the helper explained anything"
        interrupted = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        exit_seconds = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err.decode()[-2000:]
    assert exit_seconds < 10, f"exit took {exit_seconds:.1f} s after Ctrl-C"
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker), "the helper outlived the run"


def test_the_dashboard_starts_the_helper_when_it_starts():
    from streamlit.testing.v1 import AppTest  # the dashboard's test driver, for this test only

    from hexeval_ui.engine import warm_helper  # the dashboard's code, for this test only

    helper_pool.stop_helper()
    warm_helper.clear()  # once per server process: a dashboard test before this one may have started it
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    pid = wait_pid()
    assert _alive(pid)
