"""Never compute the same thing twice with the dask backend (issue 34): a worker that dies mid-run, in the middle of
an explanation chunk, costs only its chunk (dask gives it to another worker), the pieces finished before are kept,
and a run stopped afterwards resumes from them to the tables an uninterrupted run gives.

The cluster's workers are real processes (their nanny restarts the one that dies); the worker kills itself with
SIGKILL as it starts its first chunk (:mod:`dask_worker_death`)."""

from __future__ import annotations

import importlib
import json

import pytest
from small_runs import QUICK
from test_resume_and_reuse import _comparable, _only_run

from hexeval_engine.config.loader import deep_merge
from hexeval_engine.evaluate import evaluate
from hexeval_engine.runs.resumable import resumable_runs

pytestmark = pytest.mark.slow


def test_a_dask_worker_dying_mid_run_leaves_the_finished_pieces_usable(tmp_path):
    distributed = importlib.import_module("distributed")  # the test extra installs it: missing must fail, not skip
    from dask_worker_death import DieOnFirstChunk, killed_pid

    sequential = deep_merge(QUICK, {"evaluation": {"parallel": {"backend": "sequential"}}})
    evaluate(usecase="heart", output_dir=tmp_path / "whole", config_overrides=sequential)

    marker = tmp_path / "killed-worker"
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            client.register_plugin(DieOnFirstChunk(str(marker)))
            on_dask = deep_merge(QUICK, {"evaluation": {"parallel": {
                "backend": "dask", "n_jobs": 2, "scheduler_address": cluster.scheduler_address}}})
            stopped = tmp_path / "stopped"

            def stop_at_dice(done, total, message):  # after SHAP, LIME and Anchor (Ctrl-C, a closed laptop...)
                if message.startswith("Technical") and "DiCE" in message:
                    raise KeyboardInterrupt

            with pytest.raises(KeyboardInterrupt):
                evaluate(usecase="heart", output_dir=stopped, config_overrides=on_dask, on_progress=stop_at_dice)
            assert killed_pid(marker) is not None  # a worker died in its first chunk (LIME's), and the run went on
            [info] = resumable_runs(stopped)
            assert info.stage == "technical" and info.pieces > 0

            resumed = evaluate(output_dir=stopped, resume=info.run_id)
    reuse = resumed.manifest["reuse"]
    assert reuse["explanations_reused"] > 0 and reuse["explanations_computed"] > 0  # SHAP, LIME, Anchor kept
    folder = _only_run(stopped)
    assert json.loads((folder / "run.json").read_text())["reuse"] == reuse
    assert _comparable(folder) == _comparable(_only_run(tmp_path / "whole"))
