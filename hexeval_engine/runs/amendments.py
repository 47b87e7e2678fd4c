"""HEXEval's own later additions to a saved run, recorded in its manifest.

A run's files stay byte-identical once saved. When HEXEval adds to a run later (study settings,
participants' answers, recommendations recomputed with human evidence) it calls
:func:`record_amendment`: each file is written atomically, then ``run.json`` is rewritten atomically
with a new entry ``{"what", "when", "files": {relpath: sha256}}`` in its ``"amendments"`` list. The
expected hash of a file is its last listing in ``amendments``, else in ``files`` (the integrity check
of :mod:`hexeval_engine.runs.integrity` reads them so), so HEXEval's own amendments are never
flagged as edits while an edit made outside HEXEval is.

Every amendment writer goes through :func:`record_amendment`, which holds :func:`run_lock` (an
exclusive ``flock`` on the run folder's own descriptor) for the whole read-add-write of ``run.json``:
two writers at the same moment (two study participants, an import while a participant answers) take
turns, so no amendment entry is lost and no file it listed would look edited. The lock is on the
folder itself, so no extra file appears in the run.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from ..errors import RunError
from ..paths import shown

MANIFEST = "run.json"


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, fsynced, then renamed.

    A reader sees either the old file or the complete new one, never a half-written file; two
    writers of different files never interfere.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _relpath(name: str) -> PurePosixPath:
    rel = PurePosixPath(name)
    if rel.is_absolute() or ".." in rel.parts or not rel.parts or str(rel) == MANIFEST:
        raise RunError(f"An amendment cannot write '{shown(name)}': only files inside the run folder other than "
                       f"{MANIFEST} can be added. This is a bug in HEXEval; please report it.")
    return rel


def record_amendment(run_dir, *, what: str, files: dict[str, bytes | str], extra: dict | None = None) -> dict:
    """Add or replace files of a saved run and record the change in its manifest.

    Parameters
    ----------
    run_dir : str or Path
        The run folder (holding ``run.json``).
    what : str
        One sentence saying what was added ("study answers of 2 participants").
    files : dict
        ``{relpath: content}``; ``str`` content is written as UTF-8.
    extra : dict, optional
        More fields of the entry (``tables``: rows of the tables it replaced; ``rater``: who rated an extension).

    Returns
    -------
    dict
        The amendment entry appended to ``run.json``'s ``"amendments"``.

    Raises
    ------
    RunError
        The folder is not a run, or a path points outside it.
    """
    run_dir = Path(run_dir)
    with run_lock(run_dir):
        return _record(run_dir, what, files, extra or {})


@contextmanager
def run_lock(run_dir):
    """Hold an exclusive lock on ``run_dir`` for the ``with`` block (blocks until it is free).

    ``flock`` locks belong to an open file description, so two threads of one process (two
    participants served by one Streamlit server) exclude each other as two processes do.

    Raises
    ------
    RunError
        The folder cannot be opened.
    """
    run_dir = Path(run_dir)
    try:
        fd = os.open(run_dir, os.O_RDONLY)
    except OSError as err:
        raise RunError(f"Run {shown(run_dir.name)} cannot be opened ({(err.strerror or type(err).__name__).lower()}). "
                       "Pick a run listed by `hexeval runs list`.") from err
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _record(run_dir: Path, what: str, files: dict, extra: dict) -> dict:
    manifest_path = run_dir / MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunError(f"Run {shown(run_dir.name)} cannot be amended: its {MANIFEST} cannot be read. "
                       "Pick a run listed by `hexeval runs list`.") from err
    hashes = {}
    for name, content in files.items():
        rel = _relpath(name)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        write_atomic(run_dir.joinpath(*rel.parts), data)
        hashes[str(rel)] = sha256_bytes(data)
    entry = {**extra, "what": str(what), "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "files": hashes}
    amendments = manifest.get("amendments")
    manifest["amendments"] = [*(amendments if isinstance(amendments, list) else []), entry]
    write_atomic(manifest_path, json.dumps(manifest, indent=2).encode("utf-8"))
    return entry
