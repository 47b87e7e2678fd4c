"""Explainer plugins in the dashboard (AppTest): the installed package's Occlusion method in the settings form, a
run from the page that measures, shows and weighs it, and a run's plugin failures in its run summary.

The plugin package is tests/plugin_pkg, pip-installed for this module only (tests/plugin_install.py).
"""

from __future__ import annotations

import pytest

from app_helpers import app, button, frame_with, open_page, texts
from hexeval_engine import evaluate
from plugin_install import NO_SPEC, RAISES, activate
from small_runs import QUICK
from hexeval_engine.config import deep_merge

RESULTS, RECS = "app_pages/results.py", "app_pages/recommendations.py"


@pytest.fixture(scope="module", autouse=True)
def plugins_on(plugin_site):
    with activate(plugin_site):
        yield


def test_installed_plugin_is_in_the_settings_runs_from_the_page_and_is_shown():
    at = app(usecase="heart")
    toggle = at.toggle(key="heart:Occlusion:enabled")
    assert toggle.label == "Occlusion" and toggle.value
    assert "replaced by the values other people have" in toggle.help
    at.slider(key="heart:sample_size").set_value(5)
    at.number_input(key="heart:lime:samples").set_value(200)
    at.number_input(key="heart:anchor:max").set_value(2)
    at.number_input(key="heart:dice:max").set_value(2)
    at.number_input(key="heart:personas:instances").set_value(1)
    at.run()
    button(at, "Run evaluation").click().run()
    assert not at.exception and not at.error, [e.value for e in [*at.exception, *at.error]]
    open_page(at, RESULTS)
    overview = frame_with(at, "Algorithm").set_index("Method")
    assert overview.loc["Occlusion", "Status"] == "ok"
    assert overview.loc["Occlusion", "Gives"] == overview.loc["SHAP", "Gives"]  # its family, read from the run
    assert "Occlusion" in texts(at)  # cases explained per method, in the run summary
    assert "replaced by the values other people have" in texts(at)  # the case explorer says what it gives
    open_page(at, RECS)
    assert "Occlusion" in texts(at) + "".join(str(d.value) for d in [*at.dataframe, *at.table])


def test_run_summary_names_the_broken_plugins_and_their_fix(tmp_path):
    overrides = deep_merge(QUICK, {"evaluation": {"explainers": {"plugins": [NO_SPEC, RAISES],
                                                                 "occlusion": {"enabled": False}}},
                                   "personas": {"enabled": False}})
    run = evaluate(usecase="heart", config_overrides=overrides, output_dir=tmp_path / "outputs", rater="simulated")
    at = open_page(app(viewed_run=str(run.output_path)), RESULTS)
    shown = [w.value for w in at.warning]
    assert any(NO_SPEC in w and "no 'spec' attribute" in w and "docs/plugins.md" in w for w in shown), shown
    assert any(RAISES in w and "failed while explaining" in w and "enabled: false" in w for w in shown), shown


def test_an_uploaded_config_cannot_name_a_plugin():
    from hexeval_ui.upload import UploadedFile, _server_setting_problems

    upload = UploadedFile("config.yaml", b"evaluation:\n  explainers:\n    plugins: ['os:system']\n")
    problems = _server_setting_problems(upload)
    assert len(problems) == 1 and "evaluation.explainers.plugins" in problems[0] and "operator" in problems[0]
    settings_only = UploadedFile("config.yaml", b"evaluation:\n  explainers:\n    occlusion: {enabled: false}\n")
    assert _server_setting_problems(settings_only) == []  # an installed plugin's settings are the user's to choose
