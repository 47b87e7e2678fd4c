"""Check a custom upload (model, CSV, optional config and persona YAML) with the engine's own loaders.

No streamlit here: the page hands over the uploaded bytes, this module writes them to a private
temporary folder under fixed names and reports what the engine says about them.

Uploads are limited per kind (:data:`SIZE_LIMITS`), and an uploaded config may not choose
anything on the server's side (:data:`SERVER_SETTINGS`: where runs are saved, which server file
holds the personas, how the server parallelises work): such a config is refused with a message.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import typing
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from hexeval_engine import HexevalError
from hexeval_engine.config.schema import HexevalConfig
from hexeval_engine.errors import DataError, ModelError
from hexeval_engine.models.model_loading import PICKLE_SUFFIXES, SAFE_SUFFIXES
from hexeval_engine.paths import shown
from hexeval_engine.models.model_performance import held_out_performance
from hexeval_engine.personas.loader import load_personas
from hexeval_engine.safe_yaml import parse_yaml
from hexeval_engine.inputs import load_inputs

MODEL_SUFFIXES = SAFE_SUFFIXES + PICKLE_SUFFIXES
CSV_SUFFIXES = (".csv", ".txt", ".tsv")
SPREADSHEET_SUFFIXES = (".xlsx", ".xls", ".xlsm", ".ods", ".numbers")
#: The data options the page can set (one-click remedies and the encoding choice), as config keys.
DATA_OPTIONS = ("drop_duplicates", "implausible_values", "categorical_encoding")

MB = 1024 * 1024
SIZE_LIMITS = {"model file": 100 * MB, "CSV": 100 * MB, "evaluation config": 256 * 1024, "persona file": 256 * 1024}
"""Largest upload accepted per kind of file (Streamlit's own cap, server.maxUploadSize, is 200 MB)."""

SERVER_SETTINGS = {
    ("output", "dir"): "where the server saves runs (runs from the dashboard always go to the server's outputs folder)",
    ("personas", "file"): "a persona file on the server (upload your persona file next to the config instead)",
    ("evaluation", "parallel"): "how the server spreads work over processes or machines (the operator's setting)",
    ("narratives", "base_url"): "which LLM server the narrator talks to (choose the server in the sidebar; the operator's key never follows an uploaded URL)",
    ("personas", "base_url"): "which LLM server the personas talk to (choose the server in the sidebar; the operator's key never follows an uploaded URL)",
    ("evaluation", "explainers", "plugins"): "code the server would import and run (explainer plugins are installed or named by the server's operator, never uploaded)",
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
    column_note: str = ""  # how the model's own preprocessing changed the columns' kinds (models.encoded_columns)
    dataset_summary: dict | None = None
    quality: object | None = None  # DataQualityReport
    class_labels: tuple | None = None
    checks: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    data_options: dict = field(default_factory=dict)  # the DATA_OPTIONS this check was made with
    performance: dict | None = None  # model card on the held-out rows (model_performance)
    encoding_note: str = ""

    @property
    def ok(self) -> bool:
        return not self.errors and self.model_type is not None and self.quality is not None

    @property
    def model_name(self) -> str:
        """The uploaded model file's name as the user gave it (reduced to harmless characters)."""
        return self.model_path.name

    @property
    def data_name(self) -> str:
        return self.data_path.name

    def __post_init__(self) -> None:
        # The folder lives as long as this check: removed when it is replaced (discard), and when it is dropped
        # with a session that ended (a closed tab never replaces its upload) or at the server's exit. Uploads
        # of up to the upload limit each would otherwise pile up in the server's temporary folder.
        self._remove = weakref.finalize(self, shutil.rmtree, self.folder, ignore_errors=True)

    def discard(self) -> None:
        """Remove the temporary folder holding the uploaded files (once; later calls do nothing)."""
        self._remove()


def check_upload(model: UploadedFile, csv: UploadedFile, target: str, *, config: UploadedFile | None = None,
                 personas: UploadedFile | None = None, allow_pickle: bool = False,
                 data_options: dict | None = None) -> UploadCheck:
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
    data_options : dict, optional
        ``data.`` config values chosen on the page (keys of :data:`DATA_OPTIONS`): remedies such
        as ``drop_duplicates`` and the ``categorical_encoding``. They override the uploaded config.

    Returns
    -------
    UploadCheck
        Errors the user can fix are collected in ``errors``, never raised. The caller owns the
        temporary folder and removes it with :meth:`UploadCheck.discard`; if checking fails
        unexpectedly, the folder is removed before the error propagates.
    """
    folder = Path(tempfile.mkdtemp(prefix="hexeval-upload-"))
    try:
        check = _check(folder, model, csv, target, config, personas, allow_pickle, dict(data_options or {}))
        names = {check.model_path: model.name, check.data_path: csv.name}
        check.errors = [without_server_paths(e, folder, names) for e in check.errors]
        check.warnings = [without_server_paths(w, folder, names) for w in check.warnings]
        return check
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def without_server_paths(message: str, folder: Path, names: dict[Path, str]) -> str:
    """``message`` with every path of the upload folder replaced by the name the user gave the file.

    The engine names files by their path; on the dashboard the path is a temporary folder on the
    server that means nothing to the user (and should not be shown). Any other path inside the
    server's temporary folder is cut to its file name.
    """
    text = str(message)
    for path, name in names.items():
        text = text.replace(str(path), name)
    text = text.replace(str(folder) + os.sep, "").replace(str(folder), "the uploaded files")
    return re.sub(re.escape(tempfile.gettempdir()) + r"/(?:[^\s'\"/]+/)*", "", text)


def _check(folder: Path, model: UploadedFile, csv: UploadedFile, target: str, config: UploadedFile | None,
           personas: UploadedFile | None, allow_pickle: bool, data_options: dict) -> UploadCheck:
    check = UploadCheck(folder, folder / _safe_name(model.name), folder / _safe_name(csv.name, ".csv"), target,
                        data_options={k: v for k, v in data_options.items() if k in DATA_OPTIONS})
    check.errors += _size_problems({"model file": model, "CSV": csv, "evaluation config": config,
                                    "persona file": personas})
    if check.errors:
        return check
    check.model_path.write_bytes(model.data)
    check.data_path.write_bytes(csv.data)
    problems = file_type_problems(model.name, csv.name, allow_pickle=allow_pickle)
    if problems:
        check.errors += problems
        return check
    overrides = _config(check, config, personas)
    if overrides is None:
        return check
    inputs = load_inputs(check.model_path, check.data_path, check.target, check.config_path, overrides,
                         allow_pickle=allow_pickle)  # the same check as evaluate() and `hexeval validate`
    check.errors += inputs.errors
    check.warnings += inputs.warnings
    if inputs.data is not None:
        check.quality, check.class_labels = inputs.data.quality, inputs.data.class_labels
        check.dataset_summary = inputs.data.summary()
    if inputs.model is not None:
        check.model_type = inputs.model.type_name
    check.column_note = inputs.column_note
    check.checks = (inputs.validation or {}).get("checks", {})
    if inputs.ok:
        check.performance = held_out_performance(inputs.model, inputs.data)
    return check


def file_type_problems(model_name: str, csv_name: str, *, allow_pickle: bool) -> list[str]:
    """Messages for files of a type the upload does not take, naming the accepted formats and why."""
    problems = []
    model_suffix = Path(model_name).suffix.lower()
    if model_suffix in PICKLE_SUFFIXES and not allow_pickle:
        problems.append(str(ModelError(
            f"The model file '{model_name}' is a pickle/joblib file, which this server does not accept: loading one "
            "runs any code it contains. Convert it on your own computer and upload the result: "
            "skops.io.dump(model, 'model.skops') for a scikit-learn pipeline, model.save_model('model.json') for "
            "a bare XGBoost classifier, or an ONNX export (.onnx) for a model of any framework.")))
    elif model_suffix not in MODEL_SUFFIXES:
        accepted = ", ".join(MODEL_SUFFIXES if allow_pickle else SAFE_SUFFIXES)
        problems.append(str(ModelError(
            f"The model file '{model_name}' has the type '{model_suffix or 'none'}', which HEXEval cannot load. "
            f"Accepted model formats: {accepted} (.skops for scikit-learn pipelines saved with skops.io.dump, "
            ".json/.ubj for XGBoost models saved with save_model, .onnx for models of any framework exported to "
            "ONNX): they hold no code, so loading them is safe.")))
    csv_suffix = Path(csv_name).suffix.lower()
    if csv_suffix in SPREADSHEET_SUFFIXES:
        problems.append(str(DataError(
            f"The data file '{csv_name}' is a spreadsheet workbook, not a CSV. Save or export the sheet as CSV "
            "(comma- or semicolon-separated text) and upload that.")))
    elif csv_suffix not in CSV_SUFFIXES:
        problems.append(str(DataError(
            f"The data file '{csv_name}' has the type '{csv_suffix or 'none'}'. Upload a CSV file (.csv, or .txt/.tsv "
            "with comma-, semicolon- or tab-separated values and a header row).")))
    return problems


def _safe_name(name: str, suffix: str | None = None) -> str:
    """The uploaded file's own name (so messages mention it), reduced to harmless characters."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(name).name).lstrip(".") or "upload"
    return base if suffix is None or base.lower().endswith(suffix) else base + suffix


def _config(check: UploadCheck, config: UploadedFile | None, personas: UploadedFile | None) -> dict | None:
    """The config overrides of the upload (target, page options, persona file); ``None`` when the uploaded
    config sets a server-side value (the check stops there)."""
    overrides = {"data": {"target": check.target, **check.data_options}}
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
    return overrides


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
    for path in (*SERVER_SETTINGS, *(p for p in server_side_fields() if p not in SERVER_SETTINGS)):
        node = raw
        for part in path[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and path[-1] in node:
            name = ".".join(path)
            meaning = SERVER_SETTINGS.get(path, "an address, key, file or folder on the server's side")
            problems.append(f"The uploaded config sets {name}, which would choose {meaning}. An uploaded "
                            f"config cannot choose that; remove {name} from it and upload it again.")
    return problems


_SERVER_SIDE = re.compile(r"(url|key|path|file|dir|secret|token)$")


def server_side_fields(model=HexevalConfig, prefix: tuple = ()) -> list[tuple[str, ...]]:
    """Every config field (at any depth) that names a URL, key, path, file or folder.

    Read from the config schema itself, so a setting added later (say ``study.base_url``) is refused
    in uploads without anyone remembering to list it in :data:`SERVER_SETTINGS`.
    """
    found = []
    for name, info in model.model_fields.items():
        for kind in typing.get_args(info.annotation) or (info.annotation,):
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                found += server_side_fields(kind, (*prefix, name))
        if _SERVER_SIDE.search(name):
            found.append((*prefix, name))
    return found


def _size(n: int) -> str:
    return f"{n / MB:.1f} MB" if n >= MB else f"{n / 1024:.0f} KB"


def check_again(previous: UploadCheck, data_options: dict, *, allow_pickle: bool = False) -> UploadCheck:
    """Check the files of ``previous`` again with other data options (a remedy was chosen).

    The files are read back from ``previous``'s folder, so this works after a page switch emptied
    the upload widgets. ``previous`` is left in place; the caller discards it.
    """
    def read(path: Path | None) -> UploadedFile | None:
        return UploadedFile(path.name, path.read_bytes()) if path is not None and path.is_file() else None

    return check_upload(read(previous.model_path), read(previous.data_path), previous.target,
                        config=read(previous.config_path), personas=read(previous.personas_path),
                        allow_pickle=allow_pickle, data_options=data_options)


def blocking_problems(check: UploadCheck) -> list[str]:
    """Data problems that would make the evaluation mislead unless remedied or accepted: leaking test rows."""
    q = check.quality
    if q is None or not q.duplicates_crossing_split:
        return []
    n_test = (check.dataset_summary or {}).get("n_test", 0)
    return [f"{q.duplicates_crossing_split:,} of the {n_test:,} test rows also appear among the training rows, so "
            "accuracy and every check made on those rows are inflated."]
