"""The runs root's housekeeping: is it writable, and which unfinished run folders were left behind.

:func:`~hexeval_engine.runs.store.save_run` writes a run into ``<root>/<use-case>/.tmp-<run id>-<pid>/``
and renames it into place when complete. A writer that is killed (SIGKILL, power cut) leaves that
folder behind; it never lists as a run. :func:`temp_folders` finds them and tells whether their
writer still lives; :func:`remove_stale_temp_folders` (``hexeval runs clean``) removes those whose
writer is gone — never one that a running evaluation is still writing.

A folder under ``<root>/<use-case>/`` without ``run.json`` (its manifest lost, or a half-copied backup)
lists as damaged. :func:`orphan_run_folders` finds those that are safe to remove: named like a run id
(``20261121-101500-a1b2c3``) or holding nothing but files HEXEval writes into a run; ``hexeval runs
clean`` and ``hexeval runs delete`` remove them. Any other folder is left alone.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from .signing import check_key_outside

TMP_PREFIX = ".tmp-"
_TMP_NAME = re.compile(r"\.tmp-(?P<run_id>.+)-(?P<pid>\d+)")
_RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}")
MANIFEST = "run.json"
RUN_FILES = frozenset({
    "technical_metrics.csv", "technical_metrics_long.csv", "instance_metrics.csv", "instance_metrics_unshared.csv",
    "persona_ratings.csv", "narratives.csv", "narrative_extractions.csv", "recommendations.json",
    "explanations.jsonl", "report.html", "input_data.csv"})
"""Files HEXEval writes into a run folder (besides ``run.json`` and ``input_model.*``)."""


@dataclass(frozen=True)
class TempFolder:
    """An unfinished run folder: where it is, which process wrote it and whether that process still runs."""

    path: Path
    pid: int | None
    writer_alive: bool

    @property
    def stale(self) -> bool:
        return not self.writer_alive


def temp_folders(root) -> list[TempFolder]:
    """The ``.tmp-*`` folders under ``root/<use-case>/``, oldest first (nothing when ``root`` does not exist)."""
    root = Path(root)
    found = []
    for uc_folder in _subfolders(root):
        for path in _subfolders(uc_folder):
            if path.name.startswith(TMP_PREFIX):
                match = _TMP_NAME.fullmatch(path.name)
                pid = int(match["pid"]) if match else None
                found.append(TempFolder(path, pid, _writer_alive(pid, path)))
    return sorted(found, key=lambda t: _mtime(t.path))


def remove_stale_temp_folders(root) -> list[Path]:
    """Delete the unfinished run folders whose writer is gone; return what was removed.

    A folder whose writer still runs is left alone (it is an evaluation being saved right now).

    Raises
    ------
    OSError
        A folder could not be removed (the ones before it are gone).
    """
    removed = []
    for folder in temp_folders(root):
        if folder.stale:
            shutil.rmtree(folder.path)
            removed.append(folder.path)
    return removed


def is_orphan_run_folder(path) -> bool:
    """Whether ``path`` is a run folder that lost its ``run.json`` and may be removed.

    True for a real folder (not a link) without ``run.json`` whose name is a run id, or whose entries
    are all files HEXEval writes into a run (tables, recommendations, explanations, input copies).
    """
    path = Path(path)
    if path.is_symlink() or not path.is_dir() or path.name.startswith(".") or (path / MANIFEST).exists():
        return False
    if _RUN_ID.fullmatch(path.name):
        return True
    try:
        entries = list(path.iterdir())
    except OSError:
        return False
    return bool(entries) and all(e.is_file() and not e.is_symlink()
                                 and (e.name in RUN_FILES or e.name.startswith("input_model.")) for e in entries)


def orphan_run_folders(root) -> list[Path]:
    """The folders under ``root/<use-case>/`` that lost their ``run.json`` (see :func:`is_orphan_run_folder`)."""
    return [path for uc_folder in _subfolders(Path(root)) for path in _subfolders(uc_folder)
            if is_orphan_run_folder(path)]


def remove_orphan_run_folders(root) -> list[Path]:
    """Delete the run folders without ``run.json`` under ``root``; return what was removed.

    Raises
    ------
    OSError
        A folder could not be removed (the ones before it are gone).
    """
    removed = []
    for path in orphan_run_folders(root):
        shutil.rmtree(path)
        removed.append(path)
    return removed


def check_output_root(root) -> Path:
    """Make sure runs can be saved under ``root`` (creating it if needed) before any work starts.

    Raises
    ------
    ConfigError
        ``root`` is a file, cannot be created, or is not writable, or the run-signing key lies inside it;
        the message says how to fix it.
    """
    root = Path(root)
    check_key_outside(root)
    fix = "Choose another folder (--output on the command line, output.dir in the config) or fix its permissions."
    if root.exists() and not root.is_dir():
        raise ConfigError(f"Runs cannot be saved in {root}: it is a file, not a folder. {fix}")
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=root):
            pass
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise ConfigError(f"Runs cannot be saved in {root}: {reason.lower()}. Nothing was evaluated. {fix}") from err
    return root


def _writer_alive(pid: int | None, folder: Path) -> bool:
    """Whether process ``pid`` exists and is old enough to have created ``folder`` (a reused pid is not the writer)."""
    if pid is None or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process exists
    started = _process_start(pid)
    return started is None or started <= _mtime(folder) + 2.0  # /proc/stat btime is rounded to the second


def _process_start(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch; Linux ``/proc``), or None where that cannot be told."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        ticks = int(stat[stat.rindex(")") + 2:].split()[19])  # field 22, starttime, in clock ticks since boot
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
