"""Saved runs: ``outputs/<use-case>/<run-id>/``, written atomically.

A run is written into a hidden temporary folder next to its final place and renamed into place
only when every file is complete, so a crash or SIGKILL leaves nothing that lists as a run and
never touches earlier runs. Run ids carry a timestamp and a random token, so two runs started at
the same moment never collide.

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

from .errors import RunError
from .paths import default_outputs_root

log = logging.getLogger(__name__)

MANIFEST = "run.json"
TMP_PREFIX = ".tmp-"
TABLES = {
    "technical_metrics": "technical_metrics.csv",
    "technical_metrics_long": "technical_metrics_long.csv",
    "instance_metrics": "instance_metrics.csv",
    "persona_ratings": "persona_ratings.csv",
}


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
    """One line of a run listing."""

    path: Path
    run_id: str
    usecase: str
    created: str
    status: str
    rater: str
    sample_size: int | None
    methods_failed: list[str]
    title: str = ""  # the use case's title, or for an upload "<name> (<model> on <csv>)"


@dataclass
class RunProblem:
    path: Path
    reason: str


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
    folder = Path(root or default_outputs_root()) / usecase
    folder.mkdir(parents=True, exist_ok=True)
    run_id = manifest["run_id"]
    tmp = folder / f"{TMP_PREFIX}{run_id}-{os.getpid()}"
    tmp.mkdir()
    try:
        for key, name in TABLES.items():
            table = tables.get(key)
            if table is not None:
                table.to_csv(tmp / name, index=False)
        _write_json(tmp / "recommendations.json", recommendations)
        with open(tmp / "explanations.jsonl", "w", encoding="utf-8") as fh:
            for item in explanations:
                fh.write(json.dumps(item, default=_json_default) + "\n")
        for name, source in (files or {}).items():
            shutil.copyfile(source, tmp / name)
        final = folder / run_id
        while final.exists():  # practically impossible with a random token, but never overwrite a run
            manifest["run_id"] = new_run_id()
            final = folder / manifest["run_id"]
        # The manifest goes last: a folder without it is never a run. (Should another process take the
        # id before the rename, os.rename fails on the non-empty folder instead of replacing it.)
        _write_json(tmp / MANIFEST, manifest)
        _fsync_files(tmp)  # every file's bytes are on disk before the folder gets its final name
        _fsync_path(tmp)
        os.rename(tmp, final)
        _fsync_path(folder)  # and the rename itself survives a power cut
        return final
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def scan_runs(root=None, usecase: str | None = None) -> tuple[list[RunInfo], list[RunProblem]]:
    """Complete runs (newest first) and the folders that look like runs but are damaged."""
    root = Path(root or default_outputs_root())
    runs, problems = [], []
    if not root.exists():
        return runs, problems
    folders = [root / usecase] if usecase else sorted(p for p in root.iterdir() if p.is_dir())
    for uc_folder in folders:
        if not uc_folder.is_dir():
            continue
        for run_dir in sorted(uc_folder.iterdir()):
            if not run_dir.is_dir() or run_dir.name.startswith("."):
                continue
            try:
                manifest = read_manifest(run_dir)
            except RunError as err:
                problems.append(RunProblem(run_dir, str(err)))
                continue
            if manifest.get("status") != "complete":
                problems.append(RunProblem(run_dir, f"status is {manifest.get('status')!r}, not 'complete'"))
                continue
            runs.append(_info(run_dir, manifest))
    runs.sort(key=lambda r: r.created, reverse=True)
    return runs, problems


def list_runs(root=None, usecase: str | None = None) -> list[RunInfo]:
    """Complete runs under ``root`` (optionally of one use case), newest first.

    ``root`` defaults to the outputs folder ``evaluate`` saves to (``outputs/``, or
    ``HEXEVAL_OUTPUTS``), not to an ``outputs`` folder of the current directory.
    Damaged folders are skipped with a logged warning; :func:`scan_runs` returns them.
    """
    runs, problems = scan_runs(root, usecase)
    for p in problems:
        log.warning("Skipping damaged run folder %s: %s", p.path, p.reason)
    return runs


def read_manifest(run_dir) -> dict:
    run_dir = Path(run_dir)
    path = run_dir / MANIFEST
    if not path.exists():
        raise RunError(f"{run_dir} is not a saved run (no {MANIFEST}). Pick a folder listed by `hexeval runs list`.")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return Manifest.model_validate(raw).model_dump()
    except json.JSONDecodeError as err:
        raise RunError(f"The manifest of run {run_dir.name} is damaged (invalid JSON at line {err.lineno}). "
                       "Delete the folder or restore run.json from a backup.") from err
    except ValidationError as err:
        fields = ", ".join(".".join(map(str, e["loc"])) for e in err.errors())
        raise RunError(f"The manifest of run {run_dir.name} is damaged (missing or invalid: {fields}). "
                       "Delete the folder or re-run the evaluation.") from err


def load_run(run_dir) -> RunData:
    """Load a complete run; a damaged or incomplete folder raises RunError naming what is wrong."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunError(f"Run folder {run_dir} does not exist. List saved runs with `hexeval runs list`.")
    manifest = read_manifest(run_dir)
    tables = {}
    for key, name in TABLES.items():
        path = run_dir / name
        if not path.exists() or path.stat().st_size == 0:
            tables[key] = None
            continue
        try:
            tables[key] = pd.read_csv(path, keep_default_na=True)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
            raise RunError(f"Table {name} of run {run_dir.name} is damaged ({err}). Re-run the evaluation.") from err
    if tables["technical_metrics"] is None:
        raise RunError(f"Run {run_dir.name} has no technical_metrics.csv. Re-run the evaluation.")
    try:
        recommendations = json.loads((run_dir / "recommendations.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise RunError(f"recommendations.json of run {run_dir.name} is missing or damaged ({err}).") from err
    explanations = _read_jsonl(run_dir / "explanations.jsonl")
    for key in ("technical_metrics", "technical_metrics_long", "instance_metrics"):
        if tables[key] is not None and "error" in tables[key]:
            tables[key]["error"] = tables[key]["error"].fillna("").astype(str)
    ratings = tables["persona_ratings"]
    if ratings is not None:
        for col in ("comment", "error", "explanation_text", "label_shown"):
            if col in ratings:
                ratings[col] = ratings[col].fillna("").astype(str)
    return RunData(run_dir, manifest, tables["technical_metrics"],
                   tables["technical_metrics_long"] if tables["technical_metrics_long"] is not None else pd.DataFrame(),
                   tables["instance_metrics"] if tables["instance_metrics"] is not None else pd.DataFrame(),
                   ratings, recommendations, explanations)


def delete_run(run_dir, root=None) -> None:
    """Delete one saved run folder (only a folder that is a run under the outputs root)."""
    run_dir = Path(run_dir).resolve()
    root = Path(root or default_outputs_root()).resolve()
    if root not in run_dir.parents:
        raise RunError(f"Refusing to delete {run_dir}: it is not inside the runs folder {root}.")
    if not (run_dir / MANIFEST).exists() and not run_dir.name.startswith(TMP_PREFIX):
        raise RunError(f"Refusing to delete {run_dir}: it is not a saved run (no {MANIFEST}).")
    shutil.rmtree(run_dir)


def compare_runs(a: RunData, b: RunData) -> dict:
    """Differences between two runs: metrics (b − a) and mean ratings (b − a).

    ``warnings`` lists what makes the comparison apples to oranges: different use cases (e.g. a
    custom upload against a bundled run), a different model or data file (by the sha256 in each
    manifest). ``recommendation_changes`` maps a stakeholder to (method in a, method in b), None
    where a run recommends nothing for them.
    """
    metrics = _metric_diff(a.technical_metrics_long, b.technical_metrics_long)
    ratings = _rating_diff(a.persona_ratings, b.persona_ratings)
    recs_a = {k: v.get("recommended_method") for k, v in a.recommendations.get("stakeholders", {}).items()}
    recs_b = {k: v.get("recommended_method") for k, v in b.recommendations.get("stakeholders", {}).items()}
    changed = {k: (recs_a.get(k), recs_b.get(k)) for k in sorted(set(recs_a) | set(recs_b)) if recs_a.get(k) != recs_b.get(k)}
    return {"a": a.run_id, "b": b.run_id, "metrics": metrics, "ratings": ratings, "recommendation_changes": changed,
            "warnings": _input_warnings(a, b)}


def _input_warnings(a: RunData, b: RunData) -> list[str]:
    """A warning per input (model, data) whose file differs between the runs, or cannot be told apart."""
    warnings = []
    if a.usecase != b.usecase:
        warnings.append(f"The runs belong to different use cases ({_title(a)} and {_title(b)}): personas and "
                        "settings may differ as well as the inputs.")
    for what in ("model", "data"):
        sha_a = (a.manifest.get(what) or {}).get("sha256") or ""
        sha_b = (b.manifest.get(what) or {}).get("sha256") or ""
        if not sha_a or not sha_b:
            warnings.append(f"Run {a.run_id if not sha_a else b.run_id} records no {what} hash, so whether both runs "
                            f"used the same {what} cannot be checked.")
        elif sha_a != sha_b:
            warnings.append(f"The runs used different {what} files ({what} sha256 {sha_a[:12]}… vs {sha_b[:12]}…): "
                            f"differences may come from the {what}, not from the settings.")
    return warnings


def _title(run: RunData) -> str:
    return str(run.manifest.get("usecase_title") or run.usecase)


def _metric_diff(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    if a.empty or b.empty:
        return pd.DataFrame(columns=["method", "metric", "a", "b", "difference", "direction"])
    left = a[["method", "metric", "value", "direction"]].rename(columns={"value": "a"})
    right = b[["method", "metric", "value"]].rename(columns={"value": "b"})
    merged = left.merge(right, on=["method", "metric"], how="outer")
    merged["difference"] = merged["b"] - merged["a"]
    return merged[["method", "metric", "a", "b", "difference", "direction"]]


def _rating_diff(a, b) -> pd.DataFrame:
    from .ratings_summary import DIMENSIONS

    cols = ["persona_role", "explanation_type"]
    if a is None or b is None or a.empty or b.empty:
        return pd.DataFrame(columns=cols + [f"{d}_{s}" for d in DIMENSIONS for s in ("a", "b", "difference")])
    ma = a[a["status"] == "ok"].groupby(cols)[list(DIMENSIONS)].mean()
    mb = b[b["status"] == "ok"].groupby(cols)[list(DIMENSIONS)].mean()
    out = ma.join(mb, lsuffix="_a", rsuffix="_b", how="outer")
    for d in DIMENSIONS:
        out[f"{d}_difference"] = out[f"{d}_b"] - out[f"{d}_a"]
    return out.reset_index()


def _info(run_dir: Path, m: dict) -> RunInfo:
    tm = m.get("counts", {})
    failed = [f.get("method") for f in m.get("failures", [])]
    rater = m.get("rater", {})
    label = "simulated" if rater.get("kind") == "simulated" else (rater.get("model") or rater.get("kind") or "none")
    return RunInfo(run_dir, m["run_id"], m["usecase"], m["created"], m["status"], label,
                   tm.get("sample_size"), failed, str(m.get("usecase_title") or m["usecase"]))


def _read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise RunError(f"{path.name} is damaged at line {n} ({err.msg}). Re-run the evaluation.") from err
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
