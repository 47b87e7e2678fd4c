"""Copies of a run's input files kept inside its run folder, so the run can be reopened later.

A custom upload lives in a temporary folder that is gone after the session (or a server restart);
the case explorer still needs the CSV to show an explained case's feature values. ``evaluate(...,
keep_inputs=True)`` copies the model and the CSV into the run folder under fixed names, records
them in the manifest (``data.stored_copy``, ``model.stored_copy`` with the original file names), and
:func:`data_file` / :func:`model_file` find them again, checked against the recorded sha256.
"""

from __future__ import annotations

from pathlib import Path

from ..models.model_loading import file_sha256
from .files import DATA_COPY, MODEL_COPY_STEM



def copies_for(model_path, data_path) -> dict[str, Path]:
    """``{name in the run folder: source file}`` for the model and the CSV."""
    model_path, data_path = Path(model_path), Path(data_path)
    return {DATA_COPY: data_path, MODEL_COPY_STEM + model_path.suffix.lower(): model_path}


def record_copies(manifest: dict, copies: dict[str, Path]) -> None:
    """Name the copies in the manifest, next to the original file names."""
    for name, source in copies.items():
        section = manifest["data"] if name == DATA_COPY else manifest["model"]
        section["stored_copy"] = name
        section["original_name"] = Path(source).name


def data_file(run_dir, manifest: dict) -> Path | None:
    """The run's CSV: its stored copy when there is one, else the path it was read from (None if gone)."""
    return _input_file(Path(run_dir), manifest.get("data") or {})


def model_file(run_dir, manifest: dict) -> Path | None:
    """The run's model file: its stored copy when there is one, else the path it was loaded from."""
    return _input_file(Path(run_dir), manifest.get("model") or {})


def matches_record(path: Path, section: dict) -> bool:
    """True when the file's sha256 is the one the manifest recorded (or none was recorded)."""
    expected = section.get("sha256") or ""
    return not expected or file_sha256(path) == expected


def _input_file(run_dir: Path, section: dict) -> Path | None:
    copy = section.get("stored_copy")
    if copy and (run_dir / copy).is_file():
        return run_dir / copy
    source = section.get("source")
    return Path(source) if source and Path(source).is_file() else None
