"""An evaluation's working folder, kept when it is interrupted so the run can be resumed.

While :func:`~hexeval_engine.evaluate.evaluate` runs, it keeps ``<root>/<use-case>/.resume-<run id>/``:

* ``resume.json`` — the run id, when it started and the arguments it was called with (never an API key), so
  ``hexeval evaluate --resume RUN`` can call it again the same way; written once (and on a resume), fsynced;
* ``stage`` — the stage the run reached, rewritten at each stage (renamed into place, not fsynced: a power cut may
  lose the latest, and the listing then names an earlier stage; ``resume.json`` keeps the stage it was written
  with);
* ``pieces/`` — its finished pieces (:mod:`.checkpoints`, :mod:`.explanation_store`);
* ``inputs/`` — copies of the model, CSV and config files of a run that keeps its inputs (uploads, whose
  temporary files are gone by the time the run is resumed);
* ``lock`` — held (``flock``) by the process running it. The kernel drops the lock when that process ends
  however it ends (Ctrl-C, SIGKILL, a power cut), so a folder whose lock is free is *resumable*; one whose lock
  is held is a run in progress, never touched.

A run that completes moves its pieces into the runs root's store and removes the folder. The folder's name starts
with a dot, so it never lists as a saved run; :func:`resumable_runs` lists them for ``hexeval runs list``, and
:func:`remove_resumable` (``hexeval runs clean``) removes those nobody runs.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import RunError
from ..paths import NAME_PATTERN, shown
from .amendments import write_atomic

log = logging.getLogger(__name__)

PREFIX = ".resume-"
STATE = "resume.json"
STAGE = "stage"
LOCK = "lock"
PIECES = "pieces"
INPUTS = "inputs"
STAGE_WORDS = {"technical": "the technical stage", "sanity_checks": "the sanity checks",
               "narratives": "the narratives", "personas": "the persona stage",
               "recommendations": "the recommendations", "saving": "saving"}
#: The stages a run marks (``load`` until the first).
STAGES = frozenset({"load", *STAGE_WORDS})


@dataclass
class ResumableInfo:
    """One interrupted (or running) evaluation: where, which run, which stage it reached, whether it runs now."""

    path: Path
    run_id: str
    usecase: str
    started: str
    stage: str
    running: bool
    pieces: int

    @property
    def stage_words(self) -> str:
        return STAGE_WORDS.get(self.stage, "loading")


class WorkingFolder:
    """The working folder of the evaluation this process runs (created or reopened, and locked)."""

    def __init__(self, path: Path, state: dict, lock_fd: int):
        self.path, self.state, self._fd = path, state, lock_fd

    @property
    def run_id(self) -> str:
        return self.state["run_id"]

    @property
    def pieces(self) -> Path:
        return self.path / PIECES

    @classmethod
    def create(cls, root, usecase: str, run_id: str, arguments: dict) -> "WorkingFolder":
        """A new working folder for run ``run_id`` of ``usecase`` called with ``arguments`` (locked)."""
        path = Path(root) / usecase / f"{PREFIX}{run_id}"
        path.mkdir(parents=True, exist_ok=False)
        fd = _lock(path)
        if fd is None:  # practically impossible: the folder was made a moment ago
            raise RunError(f"Run {shown(run_id)} is being written by another process. Start the evaluation again.")
        arguments = dict(arguments)
        if arguments.pop("keep_inputs", False):
            arguments = _kept_inputs(path, arguments)
            arguments["keep_inputs"] = True
        state = {"run_id": run_id, "usecase": usecase, "started": _now(), "stage": "load", "pid": os.getpid(),
                 "arguments": arguments}
        folder = cls(path, state, fd)
        folder._write()
        return folder

    @classmethod
    def reopen(cls, root, ref: str) -> "WorkingFolder":
        """The interrupted run ``ref`` (its id or the id's unique start), locked for this process.

        Raises
        ------
        RunError
            No such run, several match, it is running in another process, or its ``resume.json`` is damaged.
        """
        info = find_resumable(root, ref)
        if info.running:
            raise RunError(f"Run {info.run_id} is still running (in another process or tab); wait for it to finish, "
                           "or stop it first.")
        fd = _lock(info.path)
        if fd is None:
            raise RunError(f"Run {info.run_id} was resumed by another process a moment ago. Wait for it to finish.")
        state = read_state(info.path)
        state["pid"] = os.getpid()
        folder = cls(info.path, state, fd)
        folder._write()
        return folder

    def mark(self, stage: str) -> None:
        """Record the stage the run has reached (``runs list`` says where it was interrupted)."""
        if self.state.get("stage") != stage:
            self.state["stage"] = stage
            tmp = self.path / f".{STAGE}.tmp"
            tmp.write_text(stage, encoding="ascii")
            os.replace(tmp, self.path / STAGE)

    def remove(self) -> None:
        """The run is complete: delete the folder (its pieces were moved out first) and release the lock."""
        shutil.rmtree(self.path, ignore_errors=True)
        self.release()

    def release(self) -> None:
        """Let go of the lock (the folder stays: the run can be resumed)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self) -> None:
        write_atomic(self.path / STATE, json.dumps(self.state, indent=2, default=str).encode("utf-8"))


def read_state(path: Path) -> dict:
    """The ``resume.json`` of a working folder; RunError when it is missing or damaged."""
    try:
        state = json.loads((Path(path) / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunError(f"The interrupted run {shown(Path(path).name[len(PREFIX):])} cannot be resumed: its "
                       f"{STATE} is missing or damaged. Remove it with `hexeval runs clean`.") from err
    if not isinstance(state, dict) or not isinstance(state.get("arguments"), dict) or not NAME_PATTERN.fullmatch(
            str(state.get("run_id", ""))):
        raise RunError(f"The interrupted run {shown(Path(path).name[len(PREFIX):])} cannot be resumed: its {STATE} "
                       "is not the one HEXEval wrote. Remove it with `hexeval runs clean`.")
    try:
        stage = (Path(path) / STAGE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):  # no stage file yet (still loading), or one a power cut emptied
        stage = ""
    if stage in STAGES:
        state["stage"] = stage
    return state


def resumable_runs(root, usecase: str | None = None) -> list[ResumableInfo]:
    """Working folders under ``root`` (optionally of one use case), newest first; ``running`` tells which are busy."""
    root = Path(root)
    found = []
    for uc_folder in _subfolders(root):
        if usecase is not None and uc_folder.name != usecase:
            continue
        for path in _subfolders(uc_folder):
            if not path.name.startswith(PREFIX):
                continue
            running = _busy(path)
            try:
                state = read_state(path)
            except RunError:
                state = {"run_id": path.name[len(PREFIX):], "started": "", "stage": ""}
            pieces = len(list((path / PIECES).glob("*.piece"))) if (path / PIECES).is_dir() else 0
            found.append(ResumableInfo(path, shown(str(state["run_id"]), 80), uc_folder.name,
                                       str(state.get("started", "")), str(state.get("stage", "")), running, pieces))
    return sorted(found, key=lambda r: r.started, reverse=True)


def find_resumable(root, ref: str) -> ResumableInfo:
    """The interrupted run whose id is ``ref`` or starts with it (RunError naming the problem otherwise)."""
    if not NAME_PATTERN.fullmatch(str(ref)):
        raise RunError(f"'{shown(ref)}' is not a run id (letters, digits, '_' and '-'). List interrupted runs with "
                       "`hexeval runs list`.")
    matches = [r for r in resumable_runs(root) if r.run_id.startswith(ref)]
    if not matches:
        raise RunError(f"No interrupted run '{shown(ref)}' under {root}. `hexeval runs list` lists the runs that can "
                       "be resumed.")
    if len(matches) > 1:
        raise RunError(f"'{shown(ref)}' matches several interrupted runs ({', '.join(r.run_id for r in matches)}); "
                       "give more of the id.")
    return matches[0]


def remove_resumable(root) -> list[Path]:
    """Delete the working folders nobody runs (interrupted runs); return what was removed."""
    removed = []
    for info in resumable_runs(root):
        if not info.running:
            shutil.rmtree(info.path)
            removed.append(info.path)
    return removed


def _kept_inputs(path: Path, arguments: dict) -> dict:
    """``arguments`` with the model, CSV, config and persona files copied into ``path/inputs`` (uploads' files are
    temporary: a resumed run reads the copies)."""
    inputs = path / INPUTS
    inputs.mkdir()
    out = dict(arguments)
    for key, name in (("model_path", "model"), ("data_path", "data"), ("config_path", "config")):
        source = arguments.get(key)
        if source and Path(source).is_file():
            target = inputs / f"{name}{''.join(Path(source).suffixes)[-12:]}"
            shutil.copyfile(source, target)
            out[key] = str(target)
    personas = ((arguments.get("config_overrides") or {}).get("personas") or {}).get("file")
    if personas and Path(personas).is_file():
        target = inputs / f"personas{Path(personas).suffix[-8:]}"
        shutil.copyfile(personas, target)
        overrides = dict(out["config_overrides"])
        overrides["personas"] = {**overrides["personas"], "file": str(target)}
        out["config_overrides"] = overrides
    return out


def _lock(path: Path) -> int | None:
    """A descriptor holding an exclusive lock on ``path/lock``, or None when another process holds it."""
    fd = os.open(path / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _busy(path: Path) -> bool:
    """Whether a process holds the folder's lock (a folder without a lock file is being created: busy)."""
    try:
        fd = os.open(path / LOCK, os.O_RDWR)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops a lock taken here
    return False


def _subfolders(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
