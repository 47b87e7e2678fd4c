"""Shared pytest fixtures."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from hexeval_engine import get_usecase, load_config, load_model
from hexeval_engine.models.prepare import prepare_usecase
from hexeval_engine.data.usecase_data import load_data_for_config


ROOT = Path(__file__).resolve().parents[1]

# One run-signing key for the whole session, in a temporary folder (never the developer's ~/.config/hexeval):
# set before any fixture runs, so session fixtures' subprocesses, in-process runs and servers sign alike.
# Removed when the process ends (each pytest-xdist worker has its own).
_KEY_FOLDER = Path(tempfile.mkdtemp(prefix="hexeval-test-key-"))
atexit.register(shutil.rmtree, _KEY_FOLDER, ignore_errors=True)
os.environ["HEXEVAL_SIGNING_KEY"] = str(_KEY_FOLDER / "run-signing.key")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """With pytest-xdist (``make test`` runs two workers): the tests go to a worker a module at a time, so a module's
    fixtures (worlds trained and run, some a minute of work) are made once, and every browser test
    (``tests/test_browser_*.py``) to the same worker, so the session's Chromium, real runs and dashboard server are
    made once and two browser tests never share the cores. (``--dist loadgroup`` would say the same with marks, but
    its groups never reach the scheduler with this pytest: its worker rewrites ``item._nodeid``, which pytest 9 no
    longer reads.)"""
    from xdist.scheduler import LoadFileScheduling  # only with pytest-xdist, which calls this hook

    class ModulesAndBrowser(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "browser tests" if Path(module).name.startswith("test_browser_") else module

    return ModulesAndBrowser(config, log)


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
def plugin_site(tmp_path_factory) -> Path:
    """tests/plugin_pkg pip-installed into a session folder (tests/plugin_install.py); not yet on sys.path."""
    from plugin_install import install

    return install(tmp_path_factory.mktemp("plugin-install"))


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


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for every browser test of the session (each test opens its own contexts)."""
    from browser_env import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, playwright_sync_api  # here: only browser tests need it

    sync_api = playwright_sync_api()
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def real_runs(tmp_path_factory) -> Path:
    """A runs root holding real runs made by the engine (simulated personas) for the browser tests that read
    them: heart at its use case's defaults with narratives, and a 5-case credit-risk run."""
    import subprocess
    import sys

    root = tmp_path_factory.mktemp("real-runs")
    for args in (["--usecase", "heart", "--narratives"], ["--usecase", "credit_risk", "--sample-size", "5"]):
        proc = subprocess.run([sys.executable, "-m", "hexeval_engine", "evaluate", *args, "--output", str(root),
                               "--quiet"], cwd=ROOT, capture_output=True, text=True,
                              env=os.environ | {"PYTHONPATH": str(ROOT)})
        assert proc.returncode == 0, proc.stderr[-2000:]
    return root


@pytest.fixture(scope="session")
def dashboard(tmp_path_factory, real_runs):
    """One dashboard server over :func:`real_runs` for the browser tests that share it: (url, log file)."""
    from local_server import streamlit_app

    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with streamlit_app(real_runs, log) as url:
        yield url, log
