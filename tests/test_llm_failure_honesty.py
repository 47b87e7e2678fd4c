"""A run whose LLM stages failed says how many and why, from the CLI and from ``evaluate()`` as the dashboard calls it.

Driven against the local fake server answering every request with an HTML page (a wrong base URL),
so the persona ratings and the LLM narratives all fail: the CLI exits non-zero unless
``--allow-failed-ratings`` is given, and the run's warnings name the count and the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys

import yaml
from llm_server import Behaviour, FakeLLMServer

from hexeval_engine import evaluate
from hexeval_engine.usecases import get_usecase

KEY = "sk-test-HONESTY-3f9b1c77"


def _config(tmp_path):
    uc = get_usecase("heart")
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({
        "evaluation": {"sample_size": 3, "bootstrap_resamples": 100, "stability": {"repeats": 1},
                       "explainers": {"shap": {"background_size": 20}, "lime": {"enabled": False},
                                      "anchor": {"enabled": False}, "dice": {"enabled": False}}},
        "personas": {"file": str(uc.personas_path), "sample_instances": 1, "runs_per_method": 1, "concurrency": 2,
                     "timeout_seconds": 5, "max_retries": 0},
        "narratives": {"enabled": True, "narrator": "openai", "sample_instances": 1, "manipulation_check": False}}))
    return path


def _cli(tmp_path, server, *extra):
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "OPENAI_API_KEY": ""}
    return subprocess.run([sys.executable, "-m", "hexeval_engine", "evaluate", "--usecase", "heart", "--config",
                           str(_config(tmp_path)), "--output", str(tmp_path / "runs"), "--quiet", "--rater", "openai",
                           "--llm-model", "test-model", "--llm-base-url", server.url, *extra],
                          capture_output=True, text=True, env=env, timeout=600)


def test_cli_exits_non_zero_when_every_rating_failed_and_says_why(tmp_path):
    with FakeLLMServer() as server:
        server.add(Behaviour("html"))
        failed = _cli(tmp_path, server)
        kept = _cli(tmp_path, server, "--allow-failed-ratings")
    assert failed.returncode == 1, failed.stderr[-2000:]
    assert "The persona stage produced nothing: all" in failed.stderr and "HTML page" in failed.stderr
    assert "The narrative stage produced nothing" in failed.stderr
    assert "--allow-failed-ratings" in failed.stderr and "Traceback" not in failed.stderr
    assert kept.returncode == 0, kept.stderr[-2000:]
    assert "The persona stage produced nothing" in kept.stderr


def test_evaluate_as_the_dashboard_calls_it_records_failures_and_scopes_the_operator_key(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("HEXEVAL_LLM_BASE_URLS", raising=False)
    with FakeLLMServer() as server:
        server.add(Behaviour("reset_mid_body"))
        overrides = {"personas": {"rater": "openai", "llm_model": "test-model", "base_url": server.url}}
        result = evaluate(usecase="heart", config_path=_config(tmp_path), output_dir=tmp_path / "runs",
                          config_overrides=overrides, api_key=KEY, operator_key=True, save=False)
        sent = {r.headers.get("authorization") for r in server.completion_requests()}
    codes = {w["code"]: w for w in result.warnings}
    assert codes["persona_ratings_failed"]["severity"] == "error"
    assert "connection broke while the reply was read" in codes["persona_ratings_failed"]["message"]
    assert codes["narratives_failed"]["failed"] >= 1
    assert sent == {"Bearer not-needed"}  # the operator's key never went to the configured server
