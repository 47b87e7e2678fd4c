"""Read and validate persona YAML files; every problem is a :class:`ConfigError` naming persona and field."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from ..errors import ConfigError
from ..plain_values import kind_of
from ..safe_yaml import read_yaml, short_repr
from .schema import LEVEL_VALUES, Persona


def load_personas(path, include: list[str] | None = None) -> list[Persona]:
    """Load the personas of a YAML file.

    Parameters
    ----------
    path : str or Path
        A YAML file with a top-level ``personas:`` list (see :mod:`hexeval_engine.personas.schema`).
    include : list of str, optional
        Keep only these personas (matched by ``name`` or ``role``, case-insensitive), in file order.

    Returns
    -------
    list of Persona

    Raises
    ------
    ConfigError
        The file is missing or not YAML, a persona lacks a field or has a wrong value (the message
        names the persona and the field), two personas share a name, or ``include`` names a persona
        the file does not have.
    """
    path = Path(path)
    raw = _read(path)
    personas = [_validate(entry, i, path) for i, entry in enumerate(raw)]
    _check_unique(personas, path)
    return _select(personas, include, path) if include else personas


def _read(path: Path) -> list:
    if not path.is_file():
        raise ConfigError(f"The persona file {path} does not exist. Set personas.file to a YAML file with a "
                          "'personas:' list (see configs/heart/personas.yaml).")
    data = read_yaml(path, what=f"The persona file {path.name}")
    if not isinstance(data, dict) or not isinstance(data.get("personas"), list) or not data["personas"]:
        got = "an empty file" if data is None else kind_of(data)
        if isinstance(data, dict):
            got = f"a mapping with keys {short_repr(sorted(map(str, data)))}"
        raise ConfigError(f"The persona file {path.name} must hold a mapping with a non-empty 'personas:' list; "
                          f"it holds {got}. Start the file with 'personas:' followed by '- name: ...' entries.")
    extra = sorted(str(k) for k in set(data) - {"personas"})
    if extra:
        raise ConfigError(f"The persona file {path.name} has unknown top-level key(s) {short_repr(extra)}; only 'personas' "
                          "is allowed. Move these entries under a persona or remove them.")
    return data["personas"]


def _validate(entry, index: int, path: Path) -> Persona:
    label = f"persona #{index + 1}"
    if isinstance(entry, dict) and entry.get("name"):
        label = f"persona {short_repr(entry['name'], 60)} (#{index + 1})"
    if not isinstance(entry, dict):
        raise ConfigError(f"In {path.name}, {label} must be a mapping of fields (name, role, ...); got "
                          f"{kind_of(entry)} {short_repr(entry)}.")
    try:
        return Persona.model_validate(entry)
    except ValidationError as err:
        raise ConfigError(f"In {path.name}, {label} is invalid:\n  - " + "\n  - ".join(_describe(err))) from err


def _describe(err: ValidationError) -> list[str]:
    lines = []
    for e in err.errors():
        field = ".".join(str(p) for p in e["loc"]) or "(persona)"
        if e["type"] == "missing":
            lines.append(f"field '{field}' is missing; add it")
        elif e["type"] == "extra_forbidden":
            lines.append(f"field '{field}' is unknown; check its spelling or remove it")
        elif e["type"] == "enum":
            lines.append(f"field '{field}' is {short_repr(e.get('input'))}; use one of {', '.join(LEVEL_VALUES)}")
        else:
            lines.append(f"field '{field}': {e['msg']} (got {short_repr(e.get('input'))})")
    return lines


def _check_unique(personas: list[Persona], path: Path) -> None:
    seen = set()
    for p in personas:
        if p.name in seen:
            raise ConfigError(f"In {path.name}, two personas are named '{p.name}'. Give each persona a unique name.")
        seen.add(p.name)


def _select(personas: list[Persona], include: list[str], path: Path) -> list[Persona]:
    wanted = {w.strip().lower() for w in include}
    known = {p.name.lower() for p in personas} | {p.role.lower() for p in personas}
    unknown = sorted(w for w in wanted if w not in known)
    if unknown:
        raise ConfigError(f"personas.include names {unknown}, which {path.name} does not define. Available: "
                          f"{', '.join(p.name + ' (' + p.role + ')' for p in personas)}.")
    return [p for p in personas if p.name.lower() in wanted or p.role.lower() in wanted]
