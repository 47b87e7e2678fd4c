"""Check a custom upload (model, CSV, optional config and persona YAML) with the engine's own loaders.

No streamlit here: the page hands over the uploaded bytes, this module writes them to a private
temporary folder under fixed names and reports what the engine says about them.

Uploads are limited per kind (:data:`SIZE_LIMITS`), and an uploaded config may not choose
anything on the server's side (:data:`SERVER_SETTINGS`: where runs are saved, which server file
holds the personas, how the server parallelises work): such a config is refused with a message.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hexeval_engine import HexevalError, load_config, load_model, validate_model_data_compatibility
from hexeval_engine.errors import ModelError
from hexeval_engine.model_loading import PICKLE_SUFFIXES, SAFE_SUFFIXES
from hexeval_engine.paths import shown
from hexeval_engine.personas.loader import load_personas
from hexeval_engine.safe_yaml import parse_yaml
from hexeval_engine.usecase_data import load_data_for_config

MODEL_SUFFIXES = SAFE_SUFFIXES + PICKLE_SUFFIXES

MB = 1024 * 1024
SIZE_LIMITS = {"model file": 100 * MB, "CSV": 100 * MB, "evaluation config": 256 * 1024, "persona file": 256 * 1024}
"""Largest upload accepted per kind of file (Streamlit's own cap, server.maxUploadSize, is 200 MB)."""

SERVER_SETTINGS = {
    ("output", "dir"): "where the server saves runs (runs from the dashboard always go to the server's outputs folder)",
    ("personas", "file"): "a persona file on the server (upload your persona file next to the config instead)",
    ("evaluation", "parallel"): "how the server spreads work over processes or machines (the operator's setting)",
}
"""Config keys an uploaded config may not set, with what they would choose on the server."""


@dataclass
class UploadedFile:
    name: str
    data: bytes


@dataclass
class UploadCheck:
    """What the engine found when it loaded the upload; ``ok`` means Run may proceed."""

    folder: Path
    model_path: Path
    data_path: Path
    target: str
    config_path: Path | None = None
    personas_path: Path | None = None
    model_type: str | None = None
    dataset_summary: dict | None = None
    quality: object | None = None  # DataQualityReport
    class_labels: tuple | None = None
    checks: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and self.model_type is not None and self.quality is not None

    def discard(self) -> None:
        """Remove the temporary folder holding the uploaded files."""
        shutil.rmtree(self.folder, ignore_errors=True)


def check_upload(model: UploadedFile, csv: UploadedFile, target: str, *, config: UploadedFile | None = None,
                 personas: UploadedFile | None = None, allow_pickle: bool = False) -> UploadCheck:
    """Write the files to a new temporary folder and validate them as the engine would before a run.

    Parameters
    ----------
    model, csv : UploadedFile
        The uploaded model file and CSV (name and bytes).
    target : str
        The target column picked from the CSV's columns.
    config, personas : UploadedFile, optional
        Evaluation config and persona YAML.
    allow_pickle : bool
        Open pickle/joblib models; pass ``pickle_uploads_allowed()`` (the operator's setting) only.

    Returns
    -------
    UploadCheck
        Errors the user can fix are collected in ``errors``, never raised. The caller owns the
        temporary folder and removes it with :meth:`UploadCheck.discard`; if checking fails
        unexpectedly, the folder is removed before the error propagates.
    """
    folder = Path(tempfile.mkdtemp(prefix="hexeval-upload-"))
    try:
        return _check(folder, model, csv, target, config, personas, allow_pickle)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _check(folder: Path, model: UploadedFile, csv: UploadedFile, target: str, config: UploadedFile | None,
           personas: UploadedFile | None, allow_pickle: bool) -> UploadCheck:
    suffix = Path(model.name).suffix.lower()
    check = UploadCheck(folder, folder / _safe_name(model.name), folder / _safe_name(csv.name, ".csv"), target)
    check.errors += _size_problems({"model file": model, "CSV": csv, "evaluation config": config,
                                    "persona file": personas})
    if check.errors:
        return check
    check.model_path.write_bytes(model.data)
    check.data_path.write_bytes(csv.data)
    if suffix not in MODEL_SUFFIXES:
        check.errors.append(str(ModelError(
            f"Unsupported model file type '{suffix or model.name}'. Upload .skops (scikit-learn pipelines) or "
            ".json/.ubj (XGBoost).")))
        return check
    cfg = _config(check, config, personas)
    if cfg is None:
        return check
    dataset = _data(check, cfg)
    loaded = _model(check, allow_pickle)
    if dataset is not None and loaded is not None:
        result = validate_model_data_compatibility(loaded, dataset)
        check.errors += result["errors"]
        check.warnings += result["warnings"]
        check.checks = result["checks"]
    return check


def _safe_name(name: str, suffix: str | None = None) -> str:
    """The uploaded file's own name (so messages mention it), reduced to harmless characters."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(name).name).lstrip(".") or "upload"
    return base if suffix is None or base.lower().endswith(suffix) else base + suffix


def _config(check: UploadCheck, config: UploadedFile | None, personas: UploadedFile | None):
    overrides = {"data": {"target": check.target}}
    if personas is not None:
        check.personas_path = check.folder / "personas.yaml"
        check.personas_path.write_bytes(personas.data)
        overrides["personas"] = {"file": str(check.personas_path)}
        try:
            load_personas(check.personas_path)
        except HexevalError as err:
            check.errors.append(str(err))
    if config is not None:
        problems = _server_setting_problems(config)
        if problems:
            check.errors += problems
            return None
        check.config_path = check.folder / "config.yaml"
        check.config_path.write_bytes(config.data)
    try:
        return load_config(check.config_path, overrides)
    except HexevalError as err:
        check.errors.append(str(err))
        return None


def _size_problems(files: dict[str, UploadedFile | None]) -> list[str]:
    problems = []
    for kind, upload in files.items():
        if upload is not None and len(upload.data) > SIZE_LIMITS[kind]:
            problems.append(f"The {kind} '{shown(upload.name)}' is {_size(len(upload.data))}; uploads are limited to "
                            f"{_size(SIZE_LIMITS[kind])} per {kind}. Upload a smaller file (e.g. a sample of the "
                            "rows for a CSV).")
    return problems


def _server_setting_problems(config: UploadedFile) -> list[str]:
    """Messages for each key of :data:`SERVER_SETTINGS` the uploaded config sets (empty if none, or if the
    file is not a readable mapping: loading it reports that)."""
    try:
        raw = parse_yaml(config.data.decode("utf-8"), what="The uploaded config")
    except (HexevalError, UnicodeDecodeError):
        return []
    if not isinstance(raw, dict):
        return []
    problems = []
    for (section, key), meaning in SERVER_SETTINGS.items():
        if isinstance(raw.get(section), dict) and key in raw[section]:
            problems.append(f"The uploaded config sets {section}.{key}, which would choose {meaning}. An uploaded "
                            f"config cannot choose that; remove {section}.{key} from it and upload it again.")
    return problems


def _size(n: int) -> str:
    return f"{n / MB:.1f} MB" if n >= MB else f"{n / 1024:.0f} KB"


def _data(check: UploadCheck, cfg):
    try:
        dataset = load_data_for_config(check.data_path, cfg, check.target)
    except HexevalError as err:
        check.errors.append(str(err))
        return None
    check.quality, check.class_labels = dataset.quality, dataset.class_labels
    check.dataset_summary = dataset.summary()
    return dataset


def _model(check: UploadCheck, allow_pickle: bool):
    try:
        loaded = load_model(check.model_path, allow_pickle=allow_pickle)
    except HexevalError as err:
        check.errors.append(str(err))
        return None
    check.model_type = loaded.type_name
    return loaded
