"""Config validation names key paths; the use-case registry is driven by files; the CLI exit codes."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from hexeval_engine import ConfigError, get_usecase, list_usecases, load_config
from hexeval_engine.cli.main import main as cli


def write(tmp_path, text, name="c.yaml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults_and_original_key_paths():
    c = load_config()
    assert c.evaluation.explainers.lime.num_samples == 500
    assert c.recommendations.weights.model_dump() == {"technical": None, "stakeholder": None,
                                                      "technical_fidelity": 0.3, "technical_parsimony": 0.2,
                                                      "persona_trust": 0.3, "persona_satisfaction": 0.2}
    # unset shares fall back on the older keys (0.3 and 0.3 + 0.2)
    w = c.recommendations.weights
    assert (w.technical_share(), w.stakeholder_share(), w.deprecated_keys()) == (0.3, 0.5, [])


@pytest.mark.parametrize("text, fragment", [
    ("evaluation:\n  sample_size: 0\n", "evaluation.sample_size"),
    ("evaluation:\n  sample_sise: 10\n", "evaluation.sample_sise: unknown key"),
    ("recommendations:\n  weights:\n    persona_trust: -1\n", "recommendations.weights.persona_trust"),
    ("evaluation:\n  explainers:\n    lime:\n      num_samples: many\n", "evaluation.explainers.lime.num_samples"),
    ("evaluation:\n  parallel:\n    backend: dask\n", "scheduler_address"),
    ("- a\n- b\n", "must contain a mapping"),
    ("evaluation: [unclosed\n", "not valid YAML"),
])
def test_bad_configs_name_the_key_path(tmp_path, text, fragment):
    with pytest.raises(ConfigError, match=fragment.replace("[", r"\[")):
        load_config(write(tmp_path, text))


def test_overrides_merge_deeply(tmp_path):
    path = write(tmp_path, "evaluation:\n  sample_size: 30\n  explainers:\n    lime:\n      num_samples: 800\n")
    c = load_config(path, overrides={"evaluation": {"sample_size": 50}})
    assert c.evaluation.sample_size == 50 and c.evaluation.explainers.lime.num_samples == 800
    with pytest.raises(ConfigError, match="evaluation.sample_size"):
        load_config(path, overrides={"evaluation": {"sample_size": -3}})


def test_registry_lists_bundled_usecases():
    names = [u.name for u in list_usecases()]
    assert names == ["credit_risk", "diabetes", "heart", "wine"]
    heart = get_usecase("heart")
    assert heart.target == "target" and heart.data_path.exists() and heart.config_path.exists()
    assert load_config(heart.config_path).personas.file == str(heart.personas_path)
    with pytest.raises(ConfigError, match="Unknown use case 'hart'. Available: credit_risk, diabetes, heart"):
        get_usecase("hart")


def test_adding_a_usecase_means_adding_files(tmp_path):
    root = tmp_path / "usecases"
    shutil.copytree(get_usecase("heart").folder, root / "heart2", ignore=shutil.ignore_patterns("model*"))
    text = (root / "heart2" / "usecase.yaml").read_text().replace("name: heart", "name: heart2")
    text = text.replace("../../configs/heart/", str(get_usecase("heart").config_path.parent) + "/")
    (root / "heart2" / "usecase.yaml").write_text(text)
    assert [u.name for u in list_usecases(root)] == ["heart2"]


def test_cli_validate_exit_codes(usecase_bundle, tmp_path, capsys):
    usecase_bundle("heart")
    assert cli(["validate", "--usecase", "heart"]) == 0
    assert "Validation: VALID" in capsys.readouterr().out
    assert cli(["validate"]) == 2
    assert cli(["validate", "--usecase", "nope"]) == 1
    heart = get_usecase("heart")
    credit = get_usecase("credit_risk")
    assert cli(["validate", str(heart.model_path), str(credit.data_path), "--target", "loan_status"]) == 1
    assert "needs features the CSV lacks" in capsys.readouterr().out
    assert cli(["validate", str(heart.model_path), str(heart.data_path), "--target", "nope"]) == 1
    assert "'nope' is not in the CSV" in capsys.readouterr().err


def test_python_dash_m_is_the_same_cli():
    proc = subprocess.run([sys.executable, "-m", "hexeval_engine", "validate", "--usecase", "heart"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "Validation: VALID" in proc.stdout
