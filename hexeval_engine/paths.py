"""Where the project's folders are. ``HEXEVAL_HOME`` overrides the project root (tests, deployments)."""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    return Path(os.environ.get("HEXEVAL_HOME") or Path(__file__).resolve().parents[1])


def usecases_root() -> Path:
    return project_root() / "usecases"


def default_outputs_root() -> Path:
    return Path(os.environ.get("HEXEVAL_OUTPUTS") or project_root() / "outputs")
