"""HEXEval's own later additions to a saved run, recorded so they are not mistaken for edits.

A run folder is written once (:func:`~hexeval_engine.runs.store.save_run`) with the hash of every
file. When HEXEval itself adds or replaces files later (a study's answers, for example), it calls
:func:`record_amendment`: each file is written atomically, then ``run.json`` is rewritten
atomically with an ``amendments`` entry ``{"what", "when", "files": {relpath: sha256}}``.
:mod:`~hexeval_engine.runs.integrity` then expects those hashes and does not flag the files.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from ..errors import RunError
from ..paths import shown
from .integrity import MANIFEST, sha256_bytes


def record_amendment(run_dir, *, what: str, files: dict[str, bytes | str]) -> dict:
    """Add or replace files in a saved run and record them as HEXEval's own amendment.

    Parameters
    ----------
    run_dir : str or Path
        A saved run folder (holding ``run.json``).
    what : str
        What the amendment is, in a few words (e.g. ``"study answers"``).
    files : dict
        ``{relpath: content}``; text is written as UTF-8. Relative POSIX paths inside the run
        folder only; ``run.json`` cannot be amended this way.

    Returns
    -------
    dict
        The amendment entry appended to the manifest.

    Raises
    ------
    RunError
        The folder is not a saved run, or a path is absolute, leaves the folder or names ``run.json``.
    """
    run_dir = Path(run_dir)
    manifest_path = run_dir / MANIFEST
    if not manifest_path.is_file():
        raise RunError(f"{shown(run_dir.name)} is not a saved run (no {MANIFEST}); nothing was added to it.")
    payloads = {_checked(relpath): content.encode("utf-8") if isinstance(content, str) else bytes(content)
                for relpath, content in files.items()}
    for relpath, data in payloads.items():
        target = run_dir.joinpath(*PurePosixPath(relpath).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data)
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    entry = {"what": str(what), "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "files": {relpath: sha256_bytes(data) for relpath, data in payloads.items()}}
    manifest.setdefault("amendments", []).append(entry)
    write_atomic(manifest_path, json.dumps(manifest, indent=2).encode("utf-8"))
    return entry


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, flushed, then renamed over it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _checked(relpath: str) -> str:
    pure = PurePosixPath(relpath)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts or "\\" in relpath or pure.as_posix() == MANIFEST:
        raise RunError(f"'{shown(relpath)}' cannot be added to a run: give a relative path inside the run folder "
                       f"(not {MANIFEST}).")
    return pure.as_posix()
