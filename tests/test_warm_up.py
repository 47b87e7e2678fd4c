"""The dashboard's start-up warm-up (runs.warm_up): after it, a run loads none of the engine's explainer modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys
from hexeval_engine.runs.warm_up import warm_engine
from hexeval_engine.evaluate import evaluate  # imported before the run, as the Configure & Run page and the CLI do
if sys.argv[1] == "warm":
    warm_engine()
from hexeval_engine.runs.checkpoints import code_digest
digested = code_digest.cache_info().currsize
import narwhals.plugins
listed = narwhals.plugins._discover_entrypoints.cache_info().currsize  # narwhals' plugins, read once per process
before = set(sys.modules)
evaluate(usecase="heart", save=False, config_overrides={
    "evaluation": {"sample_size": 3, "parallel": {"backend": "sequential"}},
    "personas": {"enabled": False}, "narratives": {"enabled": False}})
print(json.dumps({"modules": sorted(set(sys.modules) - before), "digested": digested, "listed": listed,
                  "listed_after": narwhals.plugins._discover_entrypoints.cache_info().currsize}))
"""


def _loaded_by_a_run(mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, mode], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_after_the_warm_up_a_run_imports_no_explainer_module_and_without_it_one_does():
    cold, warm = _loaded_by_a_run("cold"), _loaded_by_a_run("warm")
    assert "hexeval_engine.explainers.shap_explainer" in cold["modules"]  # what the warm-up exists for
    assert [m for m in warm["modules"] if m.startswith("hexeval_engine.explainers.")] == []
    # scikit-learn's DataFrame-interchange modules, loaded on its first look at a DataFrame
    assert any(m.startswith("narwhals.") for m in cold["modules"])
    assert not any(m.startswith("narwhals.") for m in warm["modules"])
    assert (cold["digested"], warm["digested"]) == (0, 1)  # the source hash every stored piece is keyed with
    # narwhals' installed plugins (package metadata), listed on scikit-learn's first look at an array: a run needs it
    assert (cold["listed"], cold["listed_after"]) == (0, 1)
    assert warm["listed"] == 1
