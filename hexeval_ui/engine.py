"""Cached access to the engine's configs, data, models, model cards and personas for the pages."""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st
import hexeval_engine
from hexeval_engine.personas.loader import load_personas
from hexeval_engine.paths import default_outputs_root
from hexeval_engine.data.usecase_data import load_data_for_config
from hexeval_engine.runtime.helper_pool import helper_cores, start_helper
from hexeval_engine.runs.warm_up import warm_engine


@st.cache_resource(show_spinner=False)
def warm_helper() -> bool:
    """Start the helper process of ``evaluation.parallel.backend: auto`` in the background, once per server.

    Its start (a forkserver importing the explainer libraries, ~2 s on the second core) overlaps the first
    page views, so the first click on *Run evaluation* finds it warm. It is stopped when the server exits. The
    engine's own first-use imports start here too, in another background thread
    (:func:`~hexeval_engine.runs.warm_up.warm_engine`).
    Returns whether this machine lets it help (2 usable cores); runs with little work never use it.
    """
    warm_engine(background=True)  # what the first run would load and read (0.16-0.17 s here, once per server)
    if helper_cores() < 2:
        return False
    start_helper(background=True)
    return True


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
def _personas(path: str, mtime: float, include: tuple[str, ...] | None) -> list[dict]:
    return [p.model_dump(mode="json") for p in load_personas(path, list(include) if include else None)]


def persona_entries(path, include: list[str] | None = None) -> list[dict]:
    """The validated personas of a persona YAML file, as plain dicts (a broken file raises ConfigError)."""
    return _personas(str(path), _mtime(path), tuple(include) if include else None)
