"""The runs root's housekeeping: is it writable, and which unfinished run folders were left behind.

:func:`~hexeval_engine.runs.store.save_run` writes a run into ``<root>/<use-case>/.tmp-<run id>-<pid>/``
and renames it into place when complete. A writer that is killed (SIGKILL, power cut) leaves that
folder behind; it never lists as a run. :func:`temp_folders` finds them and tells whether their
writer still lives; :func:`remove_stale_temp_folders` (``hexeval runs clean``) removes those whose
writer is gone — never one that a running evaluation is still writing.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

TMP_PREFIX = ".tmp-"
_TMP_NAME = re.compile(r"\.tmp-(?P<run_id>.+)-(?P<pid>\d+)")


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


def check_output_root(root) -> Path:
    """Make sure runs can be saved under ``root`` (creating it if needed) before any work starts.

    Raises
    ------
    ConfigError
        ``root`` is a file, cannot be created, or is not writable; the message says how to fix it.
    """
    root = Path(root)
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
