"""Persona files: the bundled ones load; broken ones raise ConfigError naming persona and field."""

from __future__ import annotations

import pytest

from hexeval_engine.errors import ConfigError
from hexeval_engine.personas import DEFAULT_DIMENSION_WEIGHTS, load_personas
from hexeval_engine.usecases import get_usecase

VALID = """
personas:
  - name: Sam Lee
    role: Tester
    experience_years: 3
    risk_profile: careful
    decision_style: quick
    mental_model: simple
    priorities: [clarity]
    heuristics: [keep it short]
    explanation_preferences: plain words
    ai_comfort: medium
    technical_background: low
    need_to_justify: high
    need_to_act: medium
    time_pressure: low
    risk_aversion: very_high
"""


def write(tmp_path, text):
    path = tmp_path / "personas.yaml"
    path.write_text(text)
    return path


def test_bundled_persona_files_have_the_issue_roles():
    heart = [p.role for p in load_personas(get_usecase("heart").personas_path)]
    credit = [p.role for p in load_personas(get_usecase("credit_risk").personas_path)]
    assert heart == ["Lead Cardiologist", "Medical Researcher and Data Scientist", "Hospital Administrator", "Patient"]
    assert credit == ["Policy-focused Loan Officer", "Model Validation Analyst", "Compliance and Risk Officer",
                      "Customer Success Manager", "Strategic Planning Director", "Loan Applicant"]
    ends = [p.name for p in load_personas(get_usecase("credit_risk").personas_path) if p.is_end_user]
    assert ends == ["Jamie Ellison"]


def test_valid_file_and_include_filter(tmp_path):
    [p] = load_personas(write(tmp_path, VALID), include=["tester"])
    assert p.name == "Sam Lee" and p.level("risk_aversion") == 1.0 and p.level("technical_background") == 0.25


def test_missing_field_names_persona_and_field(tmp_path):
    with pytest.raises(ConfigError, match=r"persona 'Sam Lee' \(#1\)[\s\S]*field 'ai_comfort' is missing"):
        load_personas(write(tmp_path, VALID.replace("    ai_comfort: medium\n", "")))


def test_bad_level_lists_allowed_values(tmp_path):
    with pytest.raises(ConfigError, match=r"Sam Lee[\s\S]*'time_pressure' is 'huge'; use one of very_low, low"):
        load_personas(write(tmp_path, VALID.replace("time_pressure: low", "time_pressure: huge")))


def test_unknown_field_and_wrong_type(tmp_path):
    with pytest.raises(ConfigError, match="field 'favourite_colour' is unknown"):
        load_personas(write(tmp_path, VALID + "    favourite_colour: blue\n"))
    with pytest.raises(ConfigError, match="field 'experience_years'"):
        load_personas(write(tmp_path, VALID.replace("experience_years: 3", "experience_years: many")))


def test_file_level_problems(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_personas(tmp_path / "nope.yaml")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_personas(write(tmp_path, "personas: [\n  - name: x"))
    with pytest.raises(ConfigError, match="non-empty 'personas:' list"):
        load_personas(write(tmp_path, "- name: Sam Lee\n"))
    with pytest.raises(ConfigError, match="two personas are named 'Sam Lee'"):
        load_personas(write(tmp_path, VALID + VALID.split("personas:\n")[1]))
    with pytest.raises(ConfigError, match=r"include names \['nobody'\]"):
        load_personas(write(tmp_path, VALID), include=["nobody"])


def test_dimension_weights_defaults_per_audience_and_own_weights(tmp_path):
    [p] = load_personas(write(tmp_path, VALID))
    assert p.weights() == DEFAULT_DIMENSION_WEIGHTS["professional"]
    [end] = load_personas(write(tmp_path, VALID.replace("role: Tester", "role: Tester\n    audience: end_user")))
    assert end.weights()["actionability"] > p.weights()["actionability"]
    [own] = load_personas(write(tmp_path, VALID + "    dimension_weights: {actionability: 3, trust: 1}\n"))
    assert own.weights() == {"interpretability": 0, "completeness": 0, "actionability": 0.75, "trust": 0.25,
                             "satisfaction": 0, "decision_support": 0}


def test_bad_dimension_weights_name_the_problem(tmp_path):
    with pytest.raises(ConfigError, match=r"dimension_weights[\s\S]*0 or more[\s\S]*trust"):
        load_personas(write(tmp_path, VALID + "    dimension_weights: {trust: -1, actionability: 1}\n"))
    with pytest.raises(ConfigError, match=r"dimension_weights[\s\S]*'decision_support' \(got 'trustt'\)"):
        load_personas(write(tmp_path, VALID + "    dimension_weights: {trustt: 1}\n"))
    with pytest.raises(ConfigError, match="at least one dimension weight must be positive"):
        load_personas(write(tmp_path, VALID + "    dimension_weights: {trust: 0}\n"))


def test_every_bundled_persona_declares_its_weights():
    for name in ("heart", "credit_risk"):
        for p in load_personas(get_usecase(name).personas_path):
            assert p.dimension_weights is not None and sum(p.dimension_weights.values()) == pytest.approx(1), p.role
