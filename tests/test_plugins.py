"""Explainers from an operator's own package (issue 33): one through the entry-point group ``hexeval.explainers``,
one named in the config, run end to end (API, CLI, dashboard), measured on the shared cases like the built-in ones,
checked by the same sanity checks, recommendable; broken plugins are named with the fix and the run goes on.

The package is ``tests/plugin_site`` (an installed layout: the module and its ``.dist-info`` with the entry point),
put on the import path of the tests that use it only, so no other test sees the plugins.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from app_helpers import app, open_page, texts
from hexeval_engine import evaluate
from hexeval_engine.explainers.registry import enabled_methods, method_specs, plugin_failures
from hexeval_engine.config import load_config
from hexeval_engine.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "tests" / "plugin_site"
CONFIGURED = "hexeval_test_plugins.constant:ConstantExplainer"
BROKEN = ["hexeval_test_plugins.broken:NoSpec", "hexeval_test_missing.module:Nothing",
          "hexeval_test_plugins.broken:Raising"]
SMALL = {"evaluation": {"sample_size": 12, "parallel": {"backend": "sequential"},
                        "explainers": {"plugins": [CONFIGURED, *BROKEN], "occlusion": {"draws": 8}}},
         "personas": {"sample_instances": 2}}


@pytest.fixture
def site(monkeypatch):
    monkeypatch.syspath_prepend(str(SITE))
    return SITE


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    sys.path.insert(0, str(SITE))
    try:
        out = tmp_path_factory.mktemp("plugin_runs")
        return evaluate(usecase="heart", config_overrides=SMALL, output_dir=out)
    finally:
        sys.path.remove(str(SITE))


def test_plugins_are_found_by_entry_point_and_by_config_string(site):
    config = load_config(ROOT / "configs" / "heart" / "eval_config.yaml",
                         {"evaluation": {"explainers": {"plugins": [CONFIGURED]}}})
    specs = {s.name: s for s in method_specs(config)}
    assert specs["Occlusion"].plugin == "entry point 'occlusion' (hexeval_test_plugins.occlusion:OcclusionExplainer)"
    assert specs["Constant"].plugin == CONFIGURED
    assert enabled_methods(config)[-3:] == ["Constant", "Occlusion", "Random"]
    # a plugin's settings are validated by its own model, and a key no plugin claims is refused by name
    with pytest.raises(Exception, match="draws"):
        specs["Occlusion"].settings(load_config(None, {"evaluation": {"explainers": {"occlusion": {"draws": 0}}}}))
    with pytest.raises(ConfigError, match="'occlusio'"):
        enabled_methods(load_config(None, {"evaluation": {"explainers": {"occlusio": {"draws": 3}}}}))


def test_without_the_package_nothing_is_loaded():
    assert not [s for s in method_specs(None) if s.plugin]
    assert plugin_failures(load_config(None)) == []


def test_both_plugins_run_end_to_end_and_are_measured_like_the_built_in_methods(run):
    metrics = run.technical_metrics.set_index("method")
    for method in ("Occlusion", "Constant"):
        assert metrics.at[method, "family"] == "attribution" and metrics.at[method, "error"] == ""
        assert metrics.at[method, "n_instances"] == metrics.at["SHAP", "n_instances"]  # the same shared cases
        assert pd.notna(metrics.at[method, "skill_why_common"])
    saved = pd.read_csv(run.output_path / "technical_metrics.csv")
    assert {"Occlusion", "Constant"} <= set(saved["method"])
    assert {"Occlusion", "Constant"} <= set(run.recommendations["methods"])
    card = next(iter(run.recommendations["stakeholders"].values()))
    assert {"Occlusion", "Constant"} <= {a["method"] for a in card["alternatives"]}


def test_the_sanity_checks_judge_each_plugin_on_its_merits(run):
    randomisation = run.sanity["randomisation"]["methods"]
    assert randomisation["Constant"]["ignores_model"] is True  # the same weights whatever the model
    assert randomisation["Occlusion"]["ignores_model"] is False
    assert run.recommendations["technical"]["Constant"]["vs_baseline"]["qualifies"] is False
    assert run.recommendations["technical"]["Occlusion"]["vs_baseline"]["qualifies"] is True


def test_broken_plugins_are_named_with_the_fix_and_the_run_completes(run):
    messages = [w["message"] for w in run.warnings if w.get("code") == "plugin_failed"]
    assert any("hexeval_test_plugins.broken:NoSpec has no 'spec' attribute" in m and "docs/plugins.md" in m
               for m in messages), messages
    assert any("hexeval_test_missing.module:Nothing could not be imported" in m and "installed" in m
               for m in messages), messages
    raising = run.technical_metrics.set_index("method").at["Raising", "error"]
    assert "the plugin's own bug" in raising and "hexeval_test_plugins.broken:Raising" in raising
    assert "remove it from evaluation.explainers.plugins" in raising
    assert "Raising" not in run.recommendations["methods"]
    manifest = json.loads((run.output_path / "run.json").read_text())
    assert any(w.get("code") == "plugin_failed" for w in manifest.get("warnings", []))


def test_the_report_shows_the_plugins(run):
    from hexeval_engine.report.html import render_report
    from hexeval_engine.runs import load_run
    html = render_report(load_run(run.output_path))
    assert "Occlusion" in html and "Constant" in html


def test_the_command_line_runs_them_and_prints_the_broken_ones(tmp_path):
    config = tmp_path / "plugins.yaml"
    config.write_text(json.dumps(SMALL))  # JSON is YAML
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SITE), str(ROOT)])}
    done = subprocess.run([sys.executable, "-m", "hexeval_engine", "evaluate", "--usecase", "heart", "--config",
                           str(config), "--output", str(tmp_path / "out"), "--no-personas"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Occlusion" in done.stdout and "Constant" in done.stdout
    assert "hexeval_test_plugins.broken:NoSpec has no 'spec' attribute" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_the_dashboard_offers_and_shows_them(site, run):
    at = app()
    assert "Occlusion" in [t.label for t in at.toggle]  # the settings form reads the specs, plugins included
    here = Path(os.environ["HEXEVAL_OUTPUTS"]) / "heart" / run.output_path.name  # where this test's dashboard looks
    shutil.copytree(run.output_path, here)
    at = open_page(app(viewed_run=str(here)), "app_pages/results.py")
    assert not at.exception
    tables = [f.value for f in at.dataframe]
    assert any("Occlusion" in set(t.get("Method", t.get("method", pd.Series(dtype=str)))) for t in tables)
    assert "plugin" in texts(at).lower()  # the broken plugins' warnings are shown where results are read
