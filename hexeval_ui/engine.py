"""What parts of the engine this build offers, and cached access to them.

The dashboard is built alongside the engine: pages ask here whether evaluation and saved runs
are available and show an explanation instead of a button that would fail.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from pathlib import Path

import streamlit as st
import yaml

import hexeval_engine
from hexeval_engine.errors import ConfigError
from hexeval_engine.paths import default_outputs_root
from hexeval_engine.usecase_data import load_data_for_config


def can_evaluate() -> bool:
    return hasattr(hexeval_engine, "evaluate") and hasattr(hexeval_engine, "make_rater")


def runs_module():
    """``hexeval_engine.runs`` when this build has it, else None."""
    if importlib.util.find_spec("hexeval_engine.runs") is None:
        return None
    return importlib.import_module("hexeval_engine.runs")


def outputs_root() -> Path:
    return default_outputs_root()


def _mtime(path) -> float:
    p = Path(path)
    return p.stat().st_mtime if p.exists() else 0.0


@st.cache_data(show_spinner=False)
def _config(path: str, mtime: float):
    return hexeval_engine.load_config(path)


def config_for(path) -> "hexeval_engine.HexevalConfig":
    """The validated config at ``path`` (re-read when the file changes)."""
    return _config(str(path), _mtime(path))


@st.cache_resource(show_spinner="Loading the model…")
def _model(path: str, mtime: float):
    return hexeval_engine.load_model(path)


def model_for(path):
    """A bundled model (safe formats only), shared across sessions."""
    return _model(str(path), _mtime(path))


@st.cache_data(show_spinner="Loading and checking the data…")
def _dataset(data_path: str, config_path: str, data_mtime: float, config_mtime: float):
    return load_data_for_config(data_path, _config(config_path, config_mtime))


def dataset_for(usecase):
    return _dataset(str(usecase.data_path), str(usecase.config_path), _mtime(usecase.data_path), _mtime(usecase.config_path))


@st.cache_data(show_spinner=False)
def _json(path: str, mtime: float) -> dict | None:
    return json.loads(Path(path).read_text(encoding="utf-8")) if mtime else None


def model_card_for(usecase) -> dict | None:
    """The model card written by the use case's training script, or None if it has not been trained."""
    return _json(str(usecase.model_card_path), _mtime(usecase.model_card_path))


@st.cache_data(show_spinner=False)
def _yaml(path: str, mtime: float):
    if not mtime:
        return None
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise ConfigError(f"{Path(path).name} is not valid YAML: {err}. Fix the indentation or quoting at that line.") from err


def persona_entries(path) -> list[dict]:
    """The personas defined in a persona YAML file, as plain dicts (empty when none are defined).

    Accepts a top-level list or a mapping with a ``personas`` list. Rendering only: the engine
    validates persona files when it evaluates.
    """
    raw = _yaml(str(path), _mtime(path))
    if isinstance(raw, dict):
        raw = raw.get("personas", [])
    return [p for p in raw or [] if isinstance(p, dict)]
