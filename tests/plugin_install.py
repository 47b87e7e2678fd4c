"""The test plugin package (tests/plugin_pkg) installed the way an operator installs theirs: ``pip install``.

pip builds and installs it (its own pyproject.toml, entry point included) into a folder of the session's
temporary directory, once per session; a test module that wants the plugins puts that folder on ``sys.path``
for its own duration (:func:`activate`), so no other test module ever sees the plugin methods and the
project's .venv is left as ``make install`` made it (a developer's dashboard never lists the test plugins).
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent / "plugin_pkg"
#: The plugins named in configs (the entry-point plugin, Occlusion, is found by its installed metadata).
MODEL_BLIND = "hexeval_example_plugins.model_blind:FixedOrderExplainer"
NO_SPEC = "hexeval_example_plugins.broken:NoSpec"
RAISES = "hexeval_example_plugins.broken:RaisesMidRun"
NOT_INSTALLED = "hexeval_missing_plugin.module:Explainer"


def install(root: Path) -> Path:
    """``pip install --no-deps --target`` of a copy of tests/plugin_pkg (pip builds in the source folder)."""
    source, target = root / "source", root / "site"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--disable-pip-version-check",
                           "--target", str(target), str(source)], capture_output=True, text=True)
    assert done.returncode == 0, f"pip could not install tests/plugin_pkg:\n{done.stdout}\n{done.stderr}"
    return target


@contextlib.contextmanager
def activate(site: Path):
    """The installed test plugins visible to this process (imports and entry points) inside the block."""
    from hexeval_engine.explainers import plugins

    sys.path.insert(0, str(site))
    _forget(plugins)
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m.split(".")[0] == "hexeval_example_plugins"]:
            del sys.modules[name]
        _forget(plugins)


def _forget(plugins) -> None:
    """Forget every plugin this process loaded (the loader's cache and the specs it has seen), so a module's tests see
    what this block makes visible, whichever test modules ran before in the same process (pytest-xdist workers run
    the modules in another order than one process does)."""
    plugins._load.cache_clear()
    plugins._SEEN.clear()
