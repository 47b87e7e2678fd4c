"""End to end: the CLI on both bundled use cases, crash safety, and API keys never saved."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hexeval_engine import evaluate, get_usecase, load_config
from hexeval_engine.cli.main import main as cli
from hexeval_engine.config import deep_merge
from hexeval_engine.runs.store import list_runs, load_run, scan_runs

SMALL = {"evaluation": {"sample_size": 6, "bootstrap_resamples": 200,
                        "explainers": {"shap": {"background_size": 30},
                                       "lime": {"num_samples": 200, "stability_subset": 2},
                                       "anchor": {"max_instances": 2}, "dice": {"max_instances": 2}},
                        "stability": {"repeats": 2}},
         "personas": {"sample_instances": 1}}


def small_config(tmp_path, usecase: str) -> Path:
    """The use case's own config with small settings (personas file made absolute)."""
    uc = get_usecase(usecase)
    raw = yaml.safe_load(uc.config_path.read_text())
    raw["personas"]["file"] = str(uc.personas_path)
    raw = deep_merge(raw, SMALL)
    path = tmp_path / f"{usecase}_small.yaml"
    path.write_text(yaml.safe_dump(raw))
    load_config(path)  # stays valid
    return path


@pytest.mark.parametrize("usecase", ["heart", "credit_risk"])
def test_cli_evaluate_bundled_usecase(tmp_path, usecase, capsys):
    out = tmp_path / "runs"
    code = cli(["evaluate", "--usecase", usecase, "--config", str(small_config(tmp_path, usecase)),
                "--output", str(out), "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    runs = list_runs(out, usecase)
    assert len(runs) == 1 and str(runs[0].path) in printed
    run = load_run(runs[0].path)
    assert run.technical_metrics["method"].tolist() == ["SHAP", "LIME", "Anchor", "DiCE", "Random"]
    assert (run.technical_metrics["error"] == "").all(), run.technical_metrics["error"].tolist()
    ratings = run.persona_ratings
    n_personas = ratings["persona_role"].nunique()
    # every persona rates the four methods, the narrative of SHAP's explanation and the Random baseline (the
    # raters' sanity reference)
    assert len(ratings) == n_personas * 6 and (ratings["status"] == "ok").all()
    assert set(ratings["explanation_type"]) == {"SHAP", "LIME", "Anchor", "DiCE", "Narrative", "Random"}
    assert set(ratings["rater"]) == {"simulated"} and "SIMULATED" in printed
    assert set(run.recommendations["stakeholders"]) == set(ratings["persona_role"])
    assert run.manifest["model"]["sha256"] and run.manifest["data"]["sha256"]
    assert run.manifest["library_versions"]["shap"] and run.manifest["timings"]["technical"] > 0
    assert any(e["shown_to_personas"] for e in run.explanations)
    assert cli(["report", str(run.path)]) == 0
    html = (run.path / "report.html").read_text()
    assert "simulated" in html.lower()
    assert not re.search(r"""<(script|link|img)[^>]+(src|href)=["']?https?://""", html, re.I)


def test_cli_usage_and_failure_exit_codes(tmp_path, capsys):
    assert cli(["evaluate"]) == 2
    heart, credit = get_usecase("heart"), get_usecase("credit_risk")
    assert cli(["evaluate", str(heart.model_path), str(credit.data_path), "--target", "loan_status",
                "--output", str(tmp_path), "--quiet"]) == 1
    assert "cannot be evaluated on this data" in capsys.readouterr().err
    assert list_runs(tmp_path) == []
    assert cli(["runs", "show", "nope", "--output", str(tmp_path)]) == 1


def test_killed_run_leaves_previous_runs_intact(tmp_path):
    """SIGKILL while the run is being saved (every table written, not yet renamed into place). A hook in
    save_run tells the test when the writer got there: no sleeping and hoping the kill lands (issue 14)."""
    from hexeval_engine.runs.folders import temp_folders

    out = tmp_path / "runs"
    config = small_config(tmp_path, "heart")
    assert cli(["evaluate", "--usecase", "heart", "--config", str(config), "--output", str(out), "--quiet"]) == 0
    (before,) = list_runs(out)
    snapshot = {p.name: p.read_bytes() for p in before.path.iterdir()}
    script = ("import sys, time\n"
              "import hexeval_engine.runs.store as runs\n"
              "from hexeval_engine.cli.main import main\n"
              "def hang(path):\n"
              "    print('saving', flush=True)\n"
              "    time.sleep(600)\n"
              "runs._fsync_path = hang\n"
              "main(sys.argv[1:])\n")
    proc = subprocess.Popen([sys.executable, "-c", script, "evaluate", "--usecase", "heart", "--config", str(config),
                             "--output", str(out), "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "saving", "the evaluation ended before it reached save_run"
        (writing,) = temp_folders(out)
        assert (writing.path / "run.json").exists() and writing.writer_alive  # the last file is written
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    runs, problems = scan_runs(out)
    assert [r.run_id for r in runs] == [before.run_id] and problems == []
    assert {p.name: p.read_bytes() for p in before.path.iterdir()} == snapshot
    assert [t.stale for t in temp_folders(out)] == [True]


def test_api_key_never_written(tmp_path, llm_server, monkeypatch):
    sentinel = "sk-SENTINEL-9f3c2a7e-never-save-me"
    monkeypatch.setenv("OPENAI_API_KEY", sentinel)
    # the operator's key goes only to endpoints the operator allow-listed (issue 14; tests/test_secrets.py)
    monkeypatch.setenv("HEXEVAL_LLM_BASE_URLS", llm_server.url)
    out = tmp_path / "runs"
    result = evaluate(usecase="heart", config_path=small_config(tmp_path, "heart"), output_dir=out,
                      config_overrides={"personas": {"rater": "openai", "base_url": llm_server.url,
                                                     "llm_model": "test-model"}})
    assert llm_server.completion_requests()
    assert all(r.headers.get("authorization") == f"Bearer {sentinel}" for r in llm_server.completion_requests())
    ratings = result.persona_ratings
    assert (ratings["status"] == "ok").all() and set(ratings["rater"]) == {"openai"}
    run = load_run(result.output_path)
    from hexeval_engine.report.html import write_report

    write_report(run, result.output_path / "report.html")
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "run.json" for p in files) and any(p.suffix == ".sqlite" for p in files)
    for path in files:
        assert sentinel.encode() not in path.read_bytes(), f"API key leaked into {path}"


def test_recommendations_and_full_explanations_can_be_switched_off(tmp_path, capsys):
    out = tmp_path / "runs"
    overrides = {"recommendations": {"enabled": False}, "output": {"save_explanations": False}}
    result = evaluate(usecase="heart", config_path=small_config(tmp_path, "heart"), output_dir=out,
                      config_overrides=overrides)
    run = load_run(result.output_path)
    assert run.recommendations["mode"] == "disabled" and run.recommendations["stakeholders"] == {}
    assert run.explanations and all(e["shown_to_personas"] for e in run.explanations)
    assert len(run.explanations) < len(result.technical.explanations)
    assert cli(["runs", "show", str(run.path)]) == 0
    assert "switched off" in capsys.readouterr().out


def test_unknown_rater_name_is_a_config_error_before_any_work(tmp_path):
    from hexeval_engine import ConfigError

    with pytest.raises(ConfigError, match="Unknown rater 'gpt'. Use one of simulated, openai"):
        evaluate(usecase="heart", rater="gpt", output_dir=tmp_path)
    assert list_runs(tmp_path) == []
