"""`hexeval evaluate MODEL DATA` with a user's own files: without a persona file the generic personas
rate; persona and rater problems fail before the technical evaluation (seconds, not minutes), and
``--personas FILE`` supplies the persona file."""

from __future__ import annotations

import io

import pytest
import yaml

from hexeval_engine import ConfigError, LLMError, evaluate, get_usecase
from hexeval_engine.cli.main import main as cli
from hexeval_engine.paths import generic_personas_path
from hexeval_engine.raters.run import uses_generic_personas
from hexeval_engine.personas import load_personas
from hexeval_engine.runs.store import list_runs, load_run

from test_evaluate_e2e import SMALL


@pytest.fixture
def own_files():
    """The bundled heart model and CSV, passed as a user's own files (no use-case config)."""
    heart = get_usecase("heart")
    return heart.model_path, heart.data_path, heart.target, heart.personas_path


def _stages(model, data, target, tmp_path, overrides, error) -> tuple[list[str], str]:
    """The progress messages reported before ``evaluate`` raised ``error``, and its message."""
    seen: list[str] = []
    with pytest.raises(error) as err:
        evaluate(model, data, target, output_dir=tmp_path, config_overrides=overrides,
                 on_progress=lambda done, total, message: seen.append(message))
    return seen, str(err.value)


GENERIC_NAMES = {"Emery Nakamura", "Dr. Kim Adeyemi", "Devon Reyes", "Rowan Lindgren", "Quinn Okonkwo"}


def test_generic_personas_file_is_domain_neutral_and_complete():
    personas = load_personas(generic_personas_path())
    assert {p.name for p in personas} == GENERIC_NAMES
    assert [p.audience for p in personas].count("end_user") == 1
    text = generic_personas_path().read_text(encoding="utf-8").lower()
    for word in ("loan", "patient", "cardio", "credit", "applicant", "hospital", " he ", " she "):
        assert word not in text, word


def test_no_persona_file_uses_generic_personas(tmp_path, own_files):
    model, data, target, _ = own_files
    result = evaluate(model, data, target, output_dir=tmp_path, config_overrides=SMALL)
    assert uses_generic_personas(result.config)
    assert set(result.persona_ratings["persona_name"]) == GENERIC_NAMES
    assert (result.persona_ratings["status"] == "ok").all()


def test_missing_persona_file_fails_before_technical_stage(tmp_path, own_files):
    model, data, target, _ = own_files
    overrides = SMALL | {"personas": SMALL["personas"] | {"file": str(tmp_path / "nope.yaml")}}
    seen, message = _stages(model, data, target, tmp_path, overrides, ConfigError)
    assert "nope.yaml does not exist" in message
    assert not any(m.startswith("Technical") for m in seen), seen
    assert list_runs(tmp_path) == []


def test_openai_rater_without_key_fails_before_technical_stage(tmp_path, own_files):
    # conftest removes OPENAI_API_KEY from the environment
    model, data, target, personas = own_files
    overrides = SMALL | {"personas": SMALL["personas"] | {"file": str(personas), "rater": "openai"}}
    seen, message = _stages(model, data, target, tmp_path, overrides, LLMError)
    assert "API key" in message
    assert not any(m.startswith("Technical") for m in seen), seen


def test_cli_personas_option(tmp_path, own_files, capsys):
    model, data, target, personas = own_files
    config = tmp_path / "small.yaml"
    config.write_text("evaluation:\n  sample_size: 6\n  bootstrap_resamples: 200\n  stability: {repeats: 2}\n"
                      "  explainers:\n    lime: {num_samples: 200, stability_subset: 2}\n"
                      "    anchor: {max_instances: 2}\n    dice: {max_instances: 2}\n"
                      "personas:\n  sample_instances: 1\n")
    base = ["evaluate", str(model), str(data), "--target", target, "--config", str(config),
            "--output", str(tmp_path), "--quiet"]
    assert cli(base + ["--personas", str(tmp_path / "nope.yaml")]) == 1
    assert "nope.yaml does not exist" in capsys.readouterr().err
    assert cli(base + ["--personas", str(personas)]) == 0
    assert "generic" not in capsys.readouterr().out
    runs = list_runs(tmp_path)
    assert len(runs) == 1
    ratings = load_run(runs[0].path).persona_ratings
    assert len(ratings) and (ratings["status"] == "ok").all()
    assert set(ratings["persona_name"]).isdisjoint(GENERIC_NAMES)


def test_cli_without_personas_option_says_generic_personas_rate(tmp_path, own_files, capsys):
    model, data, target, _ = own_files
    config = tmp_path / "small.yaml"
    config.write_text(yaml.safe_dump(SMALL))
    assert cli(["evaluate", str(model), str(data), "--target", target, "--config", str(config),
                "--output", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Personas: the generic, domain-neutral set" in out and "--personas FILE" in out
    assert "Prediction left as top features go" in out and "cases every method explained" in out and "fidelity_deletion" not in out
    ratings = load_run(list_runs(tmp_path)[0].path).persona_ratings
    assert set(ratings["persona_name"]) == GENERIC_NAMES


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_only_draws_on_a_terminal(monkeypatch):
    from hexeval_engine.cli.evaluation_commands import _ProgressBar

    log = io.StringIO()  # stderr redirected to a file or captured by CI
    monkeypatch.setattr("sys.stderr", log)
    bar = _ProgressBar(disabled=False)
    bar(50, 100, "Technical: SHAP")
    bar.close()
    assert log.getvalue() == ""
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    bar = _ProgressBar(disabled=False)
    bar(50, 100, "Technical: SHAP")
    bar.close()
    assert "Technical: SHAP" in terminal.getvalue()
