"""Where the project's folders are. ``HEXEVAL_HOME`` overrides the project root (tests, deployments)."""

from __future__ import annotations

import os
import re
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


NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
"""What a use-case name or a run id may look like: letters, digits, ``_`` and ``-``, at most 128
characters, not starting with ``_`` or ``-`` (so never a path, a hidden folder or an option)."""


def is_valid_name(value) -> bool:
    """Whether ``value`` is a string matching :data:`NAME_PATTERN` (a use-case name or a run id)."""
    return isinstance(value, str) and NAME_PATTERN.fullmatch(value) is not None


def shown(value, limit: int = 60) -> str:
    """``value`` fit to quote in a message: control characters (newlines…) escaped, at most ``limit`` characters."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(value)[:limit * 2])
    return text if len(text) <= limit else text[:limit - 1] + "…"
