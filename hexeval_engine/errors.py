"""One family of exceptions for every error a user can cause.

Each message names the problem, the offending value and the fix, so the CLI, the API and the
dashboard can show it as it is (never as a traceback).
"""

from __future__ import annotations


class HexevalError(Exception):
    """Base class: an error the user can fix (bad input, bad config, unreachable LLM...)."""


class DataError(HexevalError):
    """The CSV or the target column cannot be used."""


class ModelError(HexevalError):
    """The model file cannot be loaded safely, or the model cannot predict."""


class ConfigError(HexevalError):
    """A config or persona file is malformed or has out-of-range values."""


class LLMError(HexevalError):
    """The configured LLM endpoint cannot be used (no key, unreachable, bad answers)."""


class RunError(HexevalError):
    """A saved run is missing, damaged, or cannot be compared/deleted."""
