"""Crafted YAML cannot exhaust memory or flood a message (issue 14, defect 2), in every loader."""

from __future__ import annotations

import pytest

from hexeval_engine import load_config
from hexeval_engine.errors import ConfigError
from hexeval_engine.personas import load_personas
from hexeval_engine.safe_yaml import MAX_YAML_BYTES, short_repr
from hexeval_engine.usecases import list_usecases


def alias_bomb(levels: int = 6) -> str:
    """The kind of file from the issue: each level repeats the previous one nine times (six levels: 4.8 million
    strings once expanded, so the old loaders failed these tests with multi-megabyte messages rather than
    running out of memory)."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_config_is_refused_with_a_short_message(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(alias_bomb() + "evaluation:\n  sample_size: *a6\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "anchors and aliases" in message and "config.yaml" in message
    assert len(message) < 1500


def test_alias_bomb_persona_file_is_refused(tmp_path):
    path = tmp_path / "personas.yaml"
    path.write_text(alias_bomb() + "personas:\n  - name: *a6\n")
    with pytest.raises(ConfigError, match="anchors and aliases") as caught:
        load_personas(path)
    assert len(str(caught.value)) < 1500


def test_alias_bomb_usecase_definition_is_refused(tmp_path):
    folder = tmp_path / "bomb"
    folder.mkdir()
    (folder / "usecase.yaml").write_text(alias_bomb() + "name: *a6\ntitle: t\ntarget: y\n")
    with pytest.raises(ConfigError, match="anchors and aliases"):
        list_usecases(tmp_path)


def test_oversized_yaml_is_refused_unread(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("# padding\n" * (MAX_YAML_BYTES // 10 + 1))
    with pytest.raises(ConfigError, match="at most 1,000,000 bytes"):
        load_config(path)


def test_deeply_nested_yaml_is_an_error_not_a_crash(tmp_path):
    path = tmp_path / "personas.yaml"
    path.write_text("personas: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="too deeply"):
        load_personas(path)


def test_rejected_values_are_quoted_briefly_in_every_loader(tmp_path):
    huge = "[" + ", ".join(['"' + "x" * 50 + '"'] * 5000) + "]"
    config = tmp_path / "config.yaml"
    config.write_text(f"evaluation:\n  sample_size: {huge}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert "sample_size" in str(caught.value) and len(str(caught.value)) < 600
    personas = tmp_path / "personas.yaml"
    personas.write_text(f"personas:\n  - {huge}\n")
    with pytest.raises(ConfigError) as caught:
        load_personas(personas)
    assert "must be a mapping" in str(caught.value) and len(str(caught.value)) < 600
    personas.write_text(f"personas:\n  - name: Ann\n    role: {huge}\n")
    with pytest.raises(ConfigError) as caught:
        load_personas(personas)
    assert "role" in str(caught.value) and len(str(caught.value)) < 1500


def test_short_repr_never_walks_a_shared_structure_in_full():
    level = ["lol"] * 9
    for _ in range(12):  # 9**13 leaves if expanded
        level = [level] * 9
    assert len(short_repr(level)) <= 80


def test_libyaml_reads_hexevals_files_as_the_pure_python_loader_does():
    """The faster libyaml loader is used only where it gives what the pure-Python one gives: every YAML file HEXEval
    ships reads the same either way, and text it must refuse (aliases, deep nesting, broken YAML) goes to the
    pure-Python loader and its messages."""
    from pathlib import Path

    import yaml

    from hexeval_engine import safe_yaml

    root = Path(__file__).resolve().parents[1]
    files = [p for p in [*root.glob("configs/**/*.yaml"), *root.glob("usecases/*/*.yaml")]]
    assert len(files) >= 8
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert safe_yaml._plain(text), path
        assert safe_yaml.parse_yaml(text, what="x") == yaml.load(text, Loader=safe_yaml._NoAliasLoader), path
    assert not safe_yaml._plain(alias_bomb())
    assert not safe_yaml._plain("a: " + "[" * (safe_yaml.MAX_C_DEPTH + 1) + "]" * (safe_yaml.MAX_C_DEPTH + 1))
    assert not safe_yaml._plain("a: [1, 2\nb: }")
    with pytest.raises(ConfigError, match="not valid YAML"):
        safe_yaml.parse_yaml("a: [1, 2\nb: }", what="x")
