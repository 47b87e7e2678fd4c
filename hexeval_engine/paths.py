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


def configured_outputs_root(output_dir: str) -> Path:
    """The runs root a config's ``output.dir`` names.

    The default ``"outputs"`` means :func:`default_outputs_root` (so ``HEXEVAL_OUTPUTS`` and
    ``HEXEVAL_HOME`` apply); any other value is used as given.
    """
    return default_outputs_root() if output_dir == "outputs" else Path(output_dir)


def generic_personas_path() -> Path:
    """The domain-neutral persona set used for a model and CSV evaluated without a persona file."""
    return project_root() / "configs" / "generic" / "personas.yaml"
