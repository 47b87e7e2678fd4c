"""Explainers from the operator's own package (docs/plugins.md): one declared by an installed package's entry
point (Occlusion), one named in the config (Fixed order, which ignores the model), and broken ones.

The package is tests/plugin_pkg, pip-installed for this module only (tests/plugin_install.py). The oracles are
the plugins' own natures, not HEXEval's code: occlusion follows the model, so it must beat the Random baseline and
change when the model is randomised; Fixed order returns the same weights whatever the model, so the
randomisation check must flag it and it must not beat Random.
"""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from hexeval_engine import evaluate, get_usecase, load_config
from hexeval_engine.cli.main import main as cli
from hexeval_engine.config import deep_merge
from hexeval_engine.errors import ConfigError
from hexeval_engine.explainers.registry import enabled_methods, method_specs
from hexeval_engine.metrics.table import method_order
from hexeval_engine.runs.store import list_runs, load_run
from plugin_install import MODEL_BLIND, NO_SPEC, NOT_INSTALLED, RAISES, activate
from small_runs import QUICK

PLUGIN_METHODS = ("Fixed order", "Occlusion")


@pytest.fixture(scope="module", autouse=True)
def plugins_on(plugin_site):
    with activate(plugin_site):
        yield


def _overrides(*plugins: str, **settings) -> dict:
    return deep_merge(QUICK, {"evaluation": {"explainers": {"plugins": list(plugins),
                                                            "occlusion": {"max_instances": 6}, **settings}}})


def _config(**explainers):
    return load_config(overrides={"evaluation": {"explainers": explainers}})


def test_entry_point_and_config_plugins_join_the_methods_with_their_settings():
    names = [s.name for s in method_specs(_config(plugins=[MODEL_BLIND]))]
    assert names == ["SHAP", "LIME", "Anchor", "DiCE", "Examples", "Fixed order", "Occlusion", "Random"]
    assert [s.name for s in method_specs(_config())][-2:] == ["Occlusion", "Random"]  # installed: always there
    assert "Fixed order" not in [s.name for s in method_specs(_config())]  # only when the config names it
    chosen = enabled_methods(_config(plugins=[MODEL_BLIND], occlusion={"enabled": False}, fixed_order={}))
    assert "Occlusion" not in chosen and "Fixed order" in chosen and chosen[-1] == "Random"


def test_plugin_settings_are_validated_and_unknown_keys_refused():
    with pytest.raises(ConfigError) as bad:
        enabled_methods(_config(occlusion={"background_size": 0}))
    assert "evaluation.explainers.occlusion" in str(bad.value) and "background_size" in str(bad.value)
    with pytest.raises(ConfigError) as typo:
        enabled_methods(_config(occlusoin={"enabled": False}))
    assert "'occlusoin'" in str(typo.value) and "occlusion" in str(typo.value)
    with pytest.raises(ConfigError) as unloaded:  # settings of a plugin the config does not name
        enabled_methods(_config(fixed_order={"enabled": True}))
    assert "evaluation.explainers.plugins" in str(unloaded.value)


def test_display_order_keeps_methods_it_does_not_know():
    assert method_order(["Zeta", "Random", "SHAP", "Zeta", "Alpha"]) == ["SHAP", "Random", "Alpha", "Zeta"]


def test_personas_see_each_plugin_under_its_own_letter():
    from hexeval_engine.raters.prompt import method_label

    methods = ["SHAP", "LIME", "Fixed order", "Occlusion", "Random"]
    labels = [method_label(m, show_method_names=False, methods=methods) for m in methods]
    assert labels == ["Explanation A", "Explanation B", "Explanation H", "Explanation I", "Explanation E"]  # G: Examples


def test_api_run_measures_checks_recommends_and_reports_both_plugins(tmp_path):
    out = tmp_path / "runs"
    result = evaluate(usecase="heart", config_overrides=_overrides(MODEL_BLIND), output_dir=out, rater="simulated")
    saved = pd.read_csv(result.output_path / "technical_metrics.csv", keep_default_na=False).set_index("method")
    assert {"Fixed order", "Occlusion"} <= set(saved.index)
    assert (saved.loc[list(PLUGIN_METHODS), "family"] == "attribution").all()
    assert (saved.loc[list(PLUGIN_METHODS), "error"] == "").all()
    assert (saved.loc[list(PLUGIN_METHODS), "n_instances"] == saved.loc["SHAP", "n_instances"]).all()  # shared cases
    assert saved.loc["Occlusion", "stability"] != "" and saved.loc["Fixed order", "stability"] == ""  # its has_stability
    assert not [w for w in result.warnings if w.get("code") == "plugin_failed"]
    # Sanity checks on their merits: occlusion follows the model, the fixed weights do not.
    randomised = result.sanity["randomisation"]["methods"]
    assert randomised["Fixed order"]["ignores_model"] and randomised["Fixed order"]["similarity"] == pytest.approx(1.0)
    assert not randomised["Occlusion"]["ignores_model"]
    flagged = next(w for w in result.warnings if w.get("code") == "explainer_ignores_model")
    assert "Fixed order" in flagged["methods"] and "Occlusion" not in flagged["methods"]
    vs_random = {m: result.recommendations["technical"][m]["vs_baseline"] for m in PLUGIN_METHODS}
    assert vs_random["Occlusion"]["qualifies"] and vs_random["Occlusion"]["diff"] > 0
    assert not vs_random["Fixed order"]["qualifies"]
    # The recommendation cards weigh them like the built-in methods.
    assert set(PLUGIN_METHODS) <= set(result.recommendations["methods"])
    for card in result.recommendations["stakeholders"].values():
        compared = {card["recommended_method"], *(c["method"] for c in card.get("comparisons", []))}
        assert "Occlusion" in compared, card
    # Rated by the personas and in the report.
    assert set(PLUGIN_METHODS) <= set(result.persona_ratings["explanation_type"])
    assert cli(["report", str(result.output_path)]) == 0
    html = (result.output_path / "report.html").read_text()
    for method in PLUGIN_METHODS:
        assert f">{method}</span>" in html  # its badge in the tables and the personas' examples


def test_cli_run_names_each_broken_plugin_and_its_fix_and_completes(tmp_path, capsys):
    uc = get_usecase("heart")
    raw = yaml.safe_load(uc.config_path.read_text())
    raw["personas"]["file"] = str(uc.personas_path)
    raw = deep_merge(raw, _overrides(MODEL_BLIND, NO_SPEC, NOT_INSTALLED, RAISES))
    path = tmp_path / "plugins.yaml"
    path.write_text(yaml.safe_dump(raw))
    out = tmp_path / "runs"
    code = cli(["evaluate", "--usecase", "heart", "--config", str(path), "--output", str(out), "--quiet"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    run = load_run(list_runs(out, "heart")[0].path)
    table = run.technical_metrics.set_index("method")
    assert {"Fixed order", "Occlusion", "Raises"} <= set(table.index) and "No spec" not in table.index
    assert table.loc["Raises", "error"] and not table.loc["Occlusion", "error"]
    warned = {w["plugin"]: w["message"] for w in run.manifest["warnings"] if w.get("code") == "plugin_failed"}
    assert set(warned) == {NO_SPEC, NOT_INSTALLED, RAISES}
    assert "no 'spec' attribute" in warned[NO_SPEC] and "docs/plugins.md" in warned[NO_SPEC]
    assert "could not be imported" in warned[NOT_INSTALLED] and "installed" in warned[NOT_INSTALLED]
    assert "failed while explaining" in warned[RAISES] and "evaluation.explainers.raises.enabled: false" in warned[RAISES]
    for message in warned.values():
        assert f"warning: {message}" in printed  # the CLI summary says it
        assert "/" not in message.replace("docs/plugins.md", "")  # names the plugin, never a server path
    assert "Raises" in {e["method"] for e in run.recommendations["excluded_methods"]}
    assert run.recommendations["stakeholders"]  # the rest of the run is whole


def test_charts_draw_a_plugin_in_the_look_its_spec_declares():
    from hexeval_engine.charts.colors import method_color, method_dash, method_symbol

    method_specs(_config())  # this package's Occlusion loaded (another test package may have had one)

    assert (method_color("Occlusion"), method_dash("Occlusion"), method_symbol("Occlusion")) == (
        "#117733", "dashdot", "triangle-up")  # tests/plugin_pkg/hexeval_example_plugins/occlusion.py
    method_specs(_config(plugins=[MODEL_BLIND]))  # Fixed order declares no look: a spare colour, the same each time
    assert method_color("Fixed order") == method_color("Fixed order") != "#999999"


def test_the_walk_through_is_the_tested_package():
    """docs/plugins.md's pyproject and class are those of tests/plugin_pkg (the code the tests run)."""
    import dataclasses
    import re
    import tomllib
    from pathlib import Path

    from hexeval_example_plugins.occlusion import OcclusionExplainer

    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "plugins.md").read_text(encoding="utf-8")
    toml_block = re.search(r"```toml\n(.*?)```", doc, re.S).group(1)
    entry = tomllib.loads(toml_block)["project"]["entry-points"]["hexeval.explainers"]
    package = tomllib.loads((root / "tests" / "plugin_pkg" / "pyproject.toml").read_text())
    assert entry["occlusion"].split(":")[1] == package["project"]["entry-points"]["hexeval.explainers"]["occlusion"].split(":")[1]
    namespace: dict = {}
    exec(compile(re.search(r"```python\n(.*?)```", doc, re.S).group(1), "docs/plugins.md", "exec"), namespace)
    documented = namespace["OcclusionExplainer"].spec
    same = ("settings_model", "factory", "plugin")
    assert ({f.name: getattr(documented, f.name) for f in dataclasses.fields(documented) if f.name not in same}
            == {f.name: getattr(OcclusionExplainer.spec, f.name) for f in dataclasses.fields(documented) if f.name not in same})
    assert namespace["OcclusionSettings"]().model_dump() == OcclusionExplainer.spec.settings_model().model_dump()
