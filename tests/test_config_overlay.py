"""A partial config given with a bundled use case overlays the use case's config (issue 36, item 13).

Before: ``hexeval evaluate --usecase heart --config settings.yaml`` with a file that only set
``evaluation.parallel`` replaced heart's config by the built-in defaults plus that one setting: the run lost
heart's actionability declarations, wording and personas, and the Patient's recommendation changed.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from hexeval_engine import evaluate, get_usecase
from hexeval_engine.cli.main import main

SMALL = {"evaluation": {"sample_size": 3, "bootstrap_resamples": 100, "stability": {"repeats": 1},
                        "explainers": {"lime": {"enabled": False}, "anchor": {"enabled": False},
                                       "dice": {"enabled": False}}},
         "personas": {"enabled": False}, "narratives": {"enabled": False}}


def _partial(tmp_path) -> Path:
    path = tmp_path / "settings.yaml"
    path.write_text("evaluation:\n  parallel:\n    backend: sequential\n", encoding="utf-8")
    return path


def test_a_config_that_sets_only_parallel_keeps_every_other_setting_of_the_use_case(tmp_path):
    heart = yaml.safe_load(get_usecase("heart").config_path.read_text(encoding="utf-8"))
    result = evaluate(usecase="heart", config_path=_partial(tmp_path), config_overrides=SMALL, save=False)
    config = result.config
    assert config.evaluation.parallel.backend == "sequential"  # the file's one setting
    assert config.evaluation.sample_size == 3  # the overrides still win
    # everything else is heart's, read from heart's YAML (not the built-in defaults)
    assert dict(config.actionability.features) == heart["actionability"]["features"]
    assert config.actionability.default == "not_actionable"
    assert dict(config.domain.feature_descriptions) == heart["domain"]["feature_descriptions"]
    assert config.domain.positive_outcome == heart["domain"]["positive_outcome"]
    assert config.data.categorical_features == heart["data"]["categorical_features"]
    assert config.evaluation.stability.noise_std == heart["evaluation"]["stability"]["noise_std"]
    assert Path(config.personas.file).resolve() == (get_usecase("heart").config_path.parent / "personas.yaml").resolve()


def test_validate_overlays_too(tmp_path, capsys):
    path = tmp_path / "settings.yaml"
    path.write_text("data:\n  test_size: 0.25\n", encoding="utf-8")  # heart's duplicates are still dropped
    assert main(["validate", "--usecase", "heart", "--config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "dropped 723" in out  # heart's config drops its duplicate rows before splitting
    assert "categorical: sex, cp, fbs, restecg, exang, slope, thal" in out  # heart's categorical columns
    assert "train 226 / test 76" in out  # the file's test_size on heart's 302 distinct rows
