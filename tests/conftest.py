"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from hexeval_engine import get_usecase, load_config, load_model
from hexeval_engine.models.prepare import prepare_usecase
from hexeval_engine.data.usecase_data import load_data_for_config


ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """Every test: saved runs go to an empty temp folder (never the developer's outputs/), no API key or
    pickle-upload switch leaks in from the environment, and the working directory is the project root."""
    monkeypatch.setenv("HEXEVAL_OUTPUTS", str(tmp_path / "outputs"))
    monkeypatch.delenv("HEXEVAL_ALLOW_PICKLE_UPLOADS", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("HEXEVAL_LLM_BASE_URLS", raising=False)
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="session")
def usecase_bundle():
    """Factory: (usecase, config, data, model) for a bundled use case, trained if needed."""
    cache = {}

    def get(name: str):
        if name not in cache:
            uc = get_usecase(name)
            prepare_usecase(uc)
            config = load_config(uc.config_path)
            cache[name] = (uc, config, load_data_for_config(uc.data_path, config), load_model(uc.model_path))
        return cache[name]

    return get


@pytest.fixture
def llm_server():
    """A real OpenAI-compatible chat server on 127.0.0.1 (tests/llm_server.py), stopped afterwards."""
    from llm_server import FakeLLMServer

    server = FakeLLMServer().start()
    yield server
    server.stop()
