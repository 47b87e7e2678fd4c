"""Registry of bundled use cases: each is a folder under ``usecases/`` with a ``usecase.yaml``.

Adding a use case means adding a folder (data, definition, training script), not editing code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .config.loader import format_validation_error
from .errors import ConfigError
from .paths import shown, usecases_root
from .safe_yaml import read_yaml


class _Definition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    title: str
    description: str = ""
    data: str = "data.csv"
    target: str
    positive_class_meaning: str
    config: str
    personas: str
    model: str = "model.skops"
    train_script: str = "train.py"
    default_sample_size: int = Field(50, ge=1)


@dataclass(frozen=True)
class UseCase:
    name: str
    title: str
    description: str
    folder: Path
    data_path: Path
    model_path: Path
    target: str
    positive_class_meaning: str
    config_path: Path
    personas_path: Path
    train_script: Path
    default_sample_size: int

    @property
    def model_card_path(self) -> Path:
        return self.model_path.with_name("model_card.json")

    @property
    def is_prepared(self) -> bool:
        return self.model_path.exists()


def list_usecases(root=None) -> list[UseCase]:
    """All use cases found under ``root`` (default: the project's ``usecases/``), sorted by name."""
    root = Path(root) if root else usecases_root()
    return [_read(p) for p in sorted(root.glob("*/usecase.yaml"))]


def get_usecase(name: str, root=None) -> UseCase:
    found = {u.name: u for u in list_usecases(root)}
    if name not in found:
        raise ConfigError(f"Unknown use case '{shown(name)}'. Available: {', '.join(sorted(found)) or 'none'}. "
                          "Pick one of these or pass a model and a CSV instead.")
    return found[name]


def _read(path: Path) -> UseCase:
    raw = read_yaml(path, what=f"Use-case definition {path}") or {}
    try:
        d = _Definition.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(format_validation_error(err, f"use-case definition {path}")) from err
    folder = path.parent
    return UseCase(d.name, d.title, d.description, folder, (folder / d.data).resolve(), (folder / d.model).resolve(),
                   d.target, d.positive_class_meaning, (folder / d.config).resolve(), (folder / d.personas).resolve(),
                   (folder / d.train_script).resolve(), d.default_sample_size)
