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
before = {m for m in sys.modules if m.startswith("hexeval_engine.")}
evaluate(usecase="heart", save=False, config_overrides={
    "evaluation": {"sample_size": 3, "parallel": {"backend": "sequential"}},
    "personas": {"enabled": False}, "narratives": {"enabled": False}})
after = {m for m in sys.modules if m.startswith("hexeval_engine.")}
print(json.dumps(sorted(after - before)))
"""


def _loaded_by_a_run(mode: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", CHILD, mode], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_after_the_warm_up_a_run_imports_no_explainer_module_and_without_it_one_does():
    cold = [m for m in _loaded_by_a_run("cold") if m.startswith("hexeval_engine.explainers.")]
    warm = [m for m in _loaded_by_a_run("warm") if m.startswith("hexeval_engine.explainers.")]
    assert "hexeval_engine.explainers.shap_explainer" in cold  # what the warm-up exists for
    assert warm == []
