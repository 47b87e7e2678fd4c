"""Saved runs: ``outputs/<use-case>/<run-id>/``, written atomically.

A run is written into a hidden temporary folder next to its final place and renamed into place
only when every file is complete, so a crash or SIGKILL leaves nothing that lists as a run and
never touches earlier runs (:mod:`~hexeval_engine.runs.folders` finds and removes such leftovers).
Run ids carry a timestamp and a random token, so two runs started at the same moment never collide.

Listing never fails because of one folder: a folder that is not a readable, complete run is
listed with ``status == "damaged"`` and the reason. Loading checks every table against the
manifest (:mod:`~hexeval_engine.runs.tables`). Use-case names and run ids must match
:data:`~hexeval_engine.paths.NAME_PATTERN`; only run folders directly under ``root/<use-case>/``
are ever deleted.

Files of a run: ``run.json`` (manifest), ``technical_metrics.csv`` (one row per method),
``technical_metrics_long.csv`` (metric, value, CI, direction, meaning), ``instance_metrics.csv``
(per-instance values), ``persona_ratings.csv``, ``recommendations.json``, ``explanations.jsonl``.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import ConfigError, RunError
from ..plain_values import describe_error
from ..paths import default_outputs_root, is_valid_name, shown
from .folders import TMP_PREFIX, is_orphan_run_folder
from .integrity import Integrity, check_integrity, hash_folder
from .signing import seal_new_run
from .study_note import study_note
from .files import EXPLANATIONS, MANIFEST, RECOMMENDATIONS, TABLES
from .tables import neutralise_cells, read_table, table_rows

log = logging.getLogger(__name__)

DAMAGED = "damaged"


class Manifest(BaseModel):
    """The fields every run.json must have (more are allowed)."""

    model_config = ConfigDict(extra="allow")
    run_id: str
    created: str
    usecase: str
    status: str
    config: dict
    rater: dict
    model: dict
    data: dict
    timings: dict
    counts: dict


@dataclass
class RunData:
    """A complete run loaded from disk — what the dashboard, the report and ``compare_runs`` read."""

    path: Path
    manifest: dict
    technical_metrics: pd.DataFrame
    technical_metrics_long: pd.DataFrame
    instance_metrics: pd.DataFrame
    persona_ratings: pd.DataFrame | None
    recommendations: dict
    explanations: list[dict] = field(default_factory=list)
    narratives: pd.DataFrame | None = None  # narratives.csv (None when the run made none)
    narrative_extractions: pd.DataFrame | None = None
    integrity: Integrity = field(default_factory=lambda: Integrity(verifiable=False))

    @property
    def edited_files(self) -> list[str]:
        """Files changed, missing or added since the run was written (see :mod:`~hexeval_engine.runs.integrity`)."""
        return self.integrity.edited

    @property
    def run_id(self) -> str:
        return self.manifest["run_id"]

    @property
    def usecase(self) -> str:
        return self.manifest["usecase"]

    @property
    def rater_label(self) -> str:
        r = self.manifest.get("rater", {})
        if r.get("kind") == "simulated":
            return "Simulated personas (built-in rater, no LLM)"
        if r.get("kind") in (None, "none"):
            return "No persona ratings"
        return f"LLM personas: {r.get('model', '?')}" + (f" via {r['base_url']}" if r.get("base_url") else "")


@dataclass
class RunInfo:
    """One line of a run listing; ``status`` is ``"complete"``, or ``"damaged"`` with the ``reason``."""

    path: Path
    run_id: str
    usecase: str
    created: str
    status: str
    rater: str
    sample_size: int | None
    methods_failed: list[str]
    reason: str = ""
    title: str = ""  # the use case's title, or for an upload "<name> (<model> on <csv>)"
    integrity: Integrity = field(default_factory=lambda: Integrity(verifiable=False))
    study: str = ""  # the run's study in a few words (runs.study_note), "" without one

    @property
    def edited_files(self) -> list[str]:
        return self.integrity.edited


@dataclass
class RunProblem:
    path: Path
    reason: str


EXTENDED = ("rater", "persona_stats", "config", "counts")
"""Manifest sections an extension (``hexeval runs extend``) records anew in its amendment."""


def current_manifest(manifest: dict) -> dict:
    """``manifest`` as the run stands now: each of :data:`EXTENDED` from its last extension, if it had one (the
    manifest itself keeps what the run recorded when it was saved)."""
    current = dict(manifest)
    for key in EXTENDED:
        for amendment in reversed(manifest.get("amendments") or []):
            if isinstance(amendment, dict) and isinstance(amendment.get(key), dict):
                current[key] = amendment[key]
                break
    return current


def new_run_id(now: datetime | None = None) -> str:
    now = now or datetime.now(timezone.utc)
    return f"{now.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def save_run(root, usecase: str, *, manifest: dict, tables: dict[str, pd.DataFrame | None],
             recommendations: dict, explanations: list[dict], files: dict[str, Path] | None = None) -> Path:
    """Write a complete run atomically and return its final folder.

    Parameters
    ----------
    root : str or Path or None
        Runs root (``None``: the default outputs folder).
    usecase : str
        Use-case name; the run goes to ``root/usecase/<run id>/``.
    manifest : dict
        The ``run.json`` content; needs ``run_id``. Should the id already exist (practically
        impossible), a fresh id is drawn and written back into ``manifest``.
    tables : dict
        DataFrames by key of :data:`TABLES`; ``None`` values are skipped.
    recommendations : dict
        Written to ``recommendations.json``.
    explanations : list of dict
        Written one per line to ``explanations.jsonl``.
    files : dict, optional
        ``{name: source path}``: files copied into the run folder (e.g. an uploaded CSV and model,
        see ``run_inputs``).

    Returns
    -------
    Path
        The run folder. Everything is written into a hidden temporary folder, flushed to disk,
        then renamed into place; on any failure the temporary folder is removed and nothing
        lists as a run.
    """
    check_name(usecase, "use-case name")
    check_name(manifest["run_id"], "run id")
    folder = Path(root or default_outputs_root()) / usecase
    folder.mkdir(parents=True, exist_ok=True)
    run_id = manifest["run_id"]
    manifest["tables"] = table_rows({key: tables.get(key) for key in TABLES})  # checked when the run is loaded
    tmp = folder / f"{TMP_PREFIX}{run_id}-{os.getpid()}"
    tmp.mkdir()
    try:
        for key, name in TABLES.items():
            table = tables.get(key)
            if table is not None:
                neutralise_cells(table).to_csv(tmp / name, index=False)
        _write_json(tmp / RECOMMENDATIONS, recommendations)
        with open(tmp / EXPLANATIONS, "w", encoding="utf-8") as fh:
            for item in explanations:
                fh.write(json.dumps(item, default=_json_default) + "\n")
        for name, source in (files or {}).items():
            shutil.copyfile(source, tmp / name)
        final = folder / run_id
        while final.exists():  # practically impossible with a random token, but never overwrite a run
            manifest["run_id"] = new_run_id()
            final = folder / manifest["run_id"]
        manifest["files"] = hash_folder(tmp)  # tamper evidence: runs.integrity compares these on every load
        manifest.setdefault("amendments", [])
        manifest.pop("signature", None)
        signed = seal_new_run(json.loads(json.dumps(manifest, default=_json_default)))  # signed as it is read back
        if "signature" in signed:
            manifest["signature"] = signed["signature"]
        # The manifest goes last: a folder without it is never a run. (Should another process take the
        # id before the rename, os.rename fails on the non-empty folder instead of replacing it.)
        _write_json(tmp / MANIFEST, signed)
        _fsync_files(tmp)  # every file's bytes are on disk before the folder gets its final name
        _fsync_path(tmp)
        os.rename(tmp, final)
        _fsync_path(folder)  # and the rename itself survives a power cut
        return final
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def scan_runs(root=None, usecase: str | None = None) -> tuple[list[RunInfo], list[RunProblem]]:
    """Complete runs (newest first) and the folders that look like runs but are damaged.

    Never raises because of what a folder holds (unreadable, not UTF-8, a folder where a file
    should be...): such a folder is a :class:`RunProblem` with the reason.

    Raises
    ------
    ConfigError
        ``usecase`` is not a valid use-case name (letters, digits, ``_``, ``-``).
    """
    root = Path(root or default_outputs_root())
    if usecase is not None:
        check_name(usecase, "use-case name", error=ConfigError)
    runs, problems = [], []
    for uc_folder in [root / usecase] if usecase else _folders(root, problems):
        if not uc_folder.is_dir():
            continue
        for run_dir in _folders(uc_folder, problems):
            if run_dir.name.startswith("."):
                continue  # unfinished writes (.tmp-*): see run_folders.temp_folders
            try:
                manifest = read_manifest(run_dir)
            except RunError as err:
                problems.append(RunProblem(run_dir, str(err)))
                continue
            if manifest.get("status") != "complete":
                problems.append(RunProblem(run_dir, f"its status is {shown(manifest.get('status'))!r}, not "
                                                    "'complete'"))
                continue
            runs.append(_info(run_dir, manifest))
    runs.sort(key=lambda r: r.created, reverse=True)
    return runs, problems


def list_runs(root=None, usecase: str | None = None) -> list[RunInfo]:
    """Every run folder under ``root`` (optionally of one use case), newest first.

    ``root`` defaults to the outputs folder ``evaluate`` saves to (``outputs/``, or
    ``HEXEVAL_OUTPUTS``), not to an ``outputs`` folder of the current directory. A damaged
    folder never makes listing fail: it is listed with ``status == "damaged"`` and the
    ``reason`` (:func:`scan_runs` returns complete runs and problems separately).
    """
    runs, problems = scan_runs(root, usecase)
    damaged = [damaged_info(p) for p in problems]
    return sorted(runs + damaged, key=lambda r: r.created, reverse=True)


def damaged_info(problem: RunProblem) -> RunInfo:
    """A listing line for a damaged folder (creation time read from a run id's timestamp, if it has one)."""
    name = problem.path.name
    created = ""
    if len(name) >= 15 and name[:8].isdigit() and name[8] == "-" and name[9:15].isdigit():
        created = f"{name[:4]}-{name[4:6]}-{name[6:8]}T{name[9:11]}:{name[11:13]}:{name[13:15]}+00:00"
    return RunInfo(problem.path, shown(name, 80), shown(problem.path.parent.name, 80), created, DAMAGED, "", None, [],
                   reason=problem.reason)


def check_name(value, what: str, *, error=RunError) -> str:
    """``value`` if it is a valid use-case name or run id, else ``error`` naming it (escaped and shortened)."""
    if not is_valid_name(value):
        raise error(f"'{shown(value)}' is not a valid {what}: use letters, digits, '_' and '-' (at most 128, "
                    "not starting with '_' or '-').")
    return value


def read_manifest(run_dir) -> dict:
    """The validated ``run.json`` of ``run_dir``; :class:`RunError` naming the problem otherwise."""
    run_dir = Path(run_dir)
    path = run_dir / MANIFEST
    name = shown(run_dir.name)
    if not path.exists():
        raise RunError(f"{name} is not a saved run (no {MANIFEST}). Pick a folder listed by `hexeval runs list`.")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Manifest.model_validate(raw).model_dump()
    except json.JSONDecodeError as err:
        raise RunError(f"The manifest of run {name} is damaged (invalid JSON at line {err.lineno}). "
                       "Delete the folder or restore run.json from a backup.") from err
    except UnicodeDecodeError as err:
        raise RunError(f"The manifest of run {name} is damaged (not UTF-8 text). Delete the folder or restore "
                       "run.json from a backup.") from err
    except OSError as err:
        raise RunError(f"The manifest of run {name} cannot be read ({(err.strerror or type(err).__name__).lower()}). "
                       "Check the folder's permissions, or delete it.") from err
    except RecursionError as err:
        raise RunError(f"The manifest of run {name} is damaged (nested too deeply). Delete the folder.") from err
    except ValidationError as err:
        fields = ", ".join(".".join(map(str, e["loc"])) for e in err.errors())
        raise RunError(f"The manifest of run {name} is damaged (missing or invalid: {shown(fields, 200)}). "
                       "Delete the folder or re-run the evaluation.") from err


def load_run(run_dir) -> RunData:
    """Load a complete run; a damaged or incomplete folder raises RunError naming what is wrong.

    Every table is checked for the columns its readers need and for the number of rows the run
    recorded (:func:`~hexeval_engine.runs.tables.read_table`).
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunError(f"Run folder {shown(run_dir, 200)} does not exist. List saved runs with `hexeval runs list`.")
    manifest = read_manifest(run_dir)
    name = shown(run_dir.name)
    tables = {key: read_table(run_dir / file, key, manifest, name) for key, file in TABLES.items()}
    if tables["technical_metrics"] is None:
        raise RunError(f"Run {name} has no technical_metrics.csv. Re-run the evaluation.")
    try:
        recommendations = json.loads((run_dir / RECOMMENDATIONS).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as err:  # ValueError: invalid JSON or not UTF-8
        raise RunError(f"recommendations.json of run {name} is missing or damaged "
                       f"({shown(str(err) or type(err).__name__, 160)}). Re-run the evaluation.") from err
    if not isinstance(recommendations, dict) or not isinstance(recommendations.get("stakeholders", {}), dict):
        raise RunError(f"recommendations.json of run {name} is damaged (not the object HEXEval saved). Re-run the "
                       "evaluation.")
    explanations = _read_jsonl(run_dir / EXPLANATIONS)
    for key in ("technical_metrics", "technical_metrics_long", "instance_metrics"):
        if tables[key] is not None and "error" in tables[key]:
            tables[key]["error"] = tables[key]["error"].fillna("").astype(str)
    ratings = tables["persona_ratings"]
    if ratings is not None:
        for col in ("comment", "error", "explanation_text", "label_shown"):
            if col in ratings:
                ratings[col] = ratings[col].fillna("").astype(str)
    integrity = check_integrity(run_dir, manifest)
    if integrity.edited:
        log.warning("Run %s was edited after it was saved: %s", name, ", ".join(integrity.edited))
    return RunData(run_dir, current_manifest(manifest), tables["technical_metrics"],
                   tables["technical_metrics_long"] if tables["technical_metrics_long"] is not None else pd.DataFrame(),
                   tables["instance_metrics"] if tables["instance_metrics"] is not None else pd.DataFrame(),
                   ratings, recommendations, explanations, _text_columns(tables["narratives"]),
                   _text_columns(tables["narrative_extractions"]), integrity)


def _text_columns(table: pd.DataFrame | None) -> pd.DataFrame | None:
    """Empty text cells of a narratives table read back as "" (not NaN)."""
    if table is not None:
        for col in ("text", "flag_reason", "error", "hallucinated_features", "stated_value", "true_value"):
            if col in table:
                table[col] = table[col].fillna("").astype(str)
    return table


def delete_run(run_dir, root=None) -> None:
    """Delete one saved run: a folder ``root/<use-case>/<run id>/`` holding a ``run.json`` (even a damaged one),
    or a run folder that lost its ``run.json`` (:func:`~hexeval_engine.runs.folders.is_orphan_run_folder`).

    Anything else — the root, a use-case folder, a folder deeper down or outside the root, an
    unfinished ``.tmp-*`` folder (``hexeval runs clean`` removes those) — is refused with RunError.
    """
    given = Path(run_dir)
    root = Path(root or default_outputs_root()).resolve()
    run_dir = given.resolve()
    if root not in run_dir.parents:
        raise RunError(f"Refusing to delete {shown(given, 200)}: it is not inside the runs folder {root}.")
    if run_dir.parent.parent != root:
        raise RunError(f"Refusing to delete {shown(given, 200)}: it is not a run folder (runs are "
                       f"{root}/<use-case>/<run id>). Pick a run listed by `hexeval runs list`.")
    if not is_valid_name(run_dir.name) or not is_valid_name(run_dir.parent.name) or given.is_symlink():
        raise RunError(f"Refusing to delete {shown(given, 200)}: '{shown(run_dir.name)}' is not a run id. Pick a run "
                       "listed by `hexeval runs list`; unfinished .tmp- folders are removed by `hexeval runs clean`.")
    if not (run_dir / MANIFEST).is_file() and not is_orphan_run_folder(run_dir):
        raise RunError(f"Refusing to delete {shown(given, 200)}: it is not a saved run (no {MANIFEST}, and it holds "
                       "files HEXEval does not write into runs). Remove it by hand if you are sure.")
    shutil.rmtree(run_dir)


def _folders(folder: Path, problems: list[RunProblem]) -> list[Path]:
    """Sub-folders of ``folder``, sorted; an unreadable folder is recorded as a problem, not raised."""
    if not folder.exists():
        return []
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError as err:
        problems.append(RunProblem(folder, f"the folder cannot be read ({(err.strerror or type(err).__name__).lower()})"))
        return []


def _info(run_dir: Path, saved: dict) -> RunInfo:
    m = current_manifest(saved)  # the signature and hashes are checked on the manifest as saved
    counts = m.get("counts") or {}
    failures = m.get("failures") if isinstance(m.get("failures"), list) else []
    failed = [str(f.get("method")) for f in failures if isinstance(f, dict)]
    rater = m.get("rater") or {}
    label = "simulated" if rater.get("kind") == "simulated" else str(rater.get("model") or rater.get("kind") or "none")
    size = counts.get("sample_size")
    return RunInfo(run_dir, shown(m["run_id"], 80), shown(m["usecase"], 80), str(m["created"]), m["status"],
                   shown(label, 80), size if isinstance(size, int) else None, failed,
                   title=shown(str(m.get("usecase_title") or m["usecase"]), 120), integrity=_integrity(run_dir, saved),
                   study=study_note(run_dir))


def _integrity(run_dir: Path, manifest: dict) -> Integrity:
    """The run's integrity; a file that cannot be read counts as edited (listing never fails because of it)."""
    try:
        return check_integrity(run_dir, manifest)
    except OSError as err:
        log.warning("Files of run %s cannot be checked: %s", run_dir.name, err)
        return Integrity(verifiable=True, edited=["(files cannot be read)"])


def _read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    items = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise RunError(f"{path.name} of run {shown(path.parent.name)} cannot be read ({describe_error(err)}). "
                       "Re-run the evaluation.") from err
    for n, line in enumerate(lines, 1):
        if line.strip():
            try:
                items.append(json.loads(line))
            except (json.JSONDecodeError, RecursionError) as err:
                raise RunError(f"{path.name} is damaged at line {n}. Re-run the evaluation.") from err
    return items


def _fsync_files(path: Path) -> None:
    for child in path.iterdir():
        with open(child, "rb") as fh:
            os.fsync(fh.fileno())


def _fsync_path(path: Path) -> None:
    """fsync a folder's own entry list (so a file created or renamed in it is durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_json(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, indent=2, default=_json_default), encoding="utf-8")


def _json_default(obj):
    if hasattr(obj, "item"):
        return obj.item()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, (set, tuple)):
        return list(obj)
    if isinstance(obj, Path):
        return str(obj)
    return str(obj)
