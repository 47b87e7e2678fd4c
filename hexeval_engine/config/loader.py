"""Read YAML configs safely, merge overrides deeply, validate into :class:`HexevalConfig`."""

from __future__ import annotations

import copy
from pathlib import Path

from pydantic import ValidationError

from ..errors import ConfigError
from ..plain_values import kind_of
from ..safe_yaml import read_yaml as _read_yaml_file
from ..safe_yaml import short_repr
from .schema import HexevalConfig


def load_config(path=None, overrides: dict | None = None, *, base=None) -> HexevalConfig:
    """Load and validate a config.

    Parameters
    ----------
    path : str or Path, optional
        YAML file. ``None`` gives the built-in defaults (or ``base``).
    overrides : dict, optional
        Nested values merged over the file, e.g. ``{"evaluation": {"sample_size": 50}}``.
    base : str or Path, optional
        A config that ``path`` overlays (a bundled use case's, when ``--config`` names a file with only
        a few settings): every key ``path`` leaves out keeps ``base``'s value, never the built-in default.
        Persona files are found beside the file that names them.
    """
    raw = _resolve_persona_path(read_yaml(base), Path(base)) if base is not None else {}
    if path is not None:
        raw = deep_merge(raw, read_yaml(path))
    if overrides:
        if not isinstance(overrides, dict):
            raise ConfigError(f"config_overrides must be a nested dict such as {{'evaluation': {{'sample_size': 50}}}}; "
                              f"got {kind_of(overrides)}.")
        raw = deep_merge(raw, overrides)
    if path is not None:
        raw = _resolve_persona_path(raw, Path(path))
        raw["source"] = str(path) if base is None else f"{path} over {base}"
    elif base is not None:
        raw["source"] = str(base)
    where = str(path or base) if (path or base) else "config"
    return validate_config(raw, where=where)


def read_yaml(path) -> dict:
    """The mapping in the config file ``path`` (``{}`` for an empty file), read with :mod:`hexeval_engine.safe_yaml`."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"The config file {path} does not exist. Check the path or omit it to use the defaults.")
    data = _read_yaml_file(path, what=f"The config file {path.name}")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path.name} must contain a mapping of sections (domain, evaluation, personas, ...); "
                          f"it contains {kind_of(data)}.")
    return data


def validate_config(raw: dict, *, where: str = "config") -> HexevalConfig:
    try:
        return HexevalConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(format_validation_error(err, where)) from err


def format_validation_error(err: ValidationError, where: str) -> str:
    lines = []
    for e in err.errors():
        key = (".".join(str(p) for p in e["loc"]) or "(top level)")[:120]
        if e["type"] == "extra_forbidden":
            lines.append(f"{key}: unknown key (check the spelling against the configuration reference)")
        else:
            lines.append(f"{key}: {e['msg']} (got {short_repr(e.get('input'))})")
    return f"Invalid {where}:\n  - " + "\n  - ".join(lines)


def deep_merge(base: dict, override: dict) -> dict:
    """Return ``base`` with ``override`` merged in recursively (neither input is modified)."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _resolve_persona_path(raw: dict, config_path: Path) -> dict:
    personas = raw.get("personas")
    if isinstance(personas, dict) and isinstance(personas.get("file"), str):
        candidate = Path(personas["file"])
        if not candidate.is_absolute():
            beside = config_path.parent / candidate
            if beside.exists():
                personas = dict(personas, file=str(beside))
                raw = dict(raw, personas=personas)
    return raw
