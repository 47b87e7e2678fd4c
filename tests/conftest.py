"""Shared pytest fixtures."""

from __future__ import annotations

import pytest

from hexeval_engine import get_usecase, load_config, load_model
from hexeval_engine.prepare import prepare_usecase
from hexeval_engine.usecase_data import load_data_for_config


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
