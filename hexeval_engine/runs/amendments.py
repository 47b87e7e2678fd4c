"""HEXEval's own later additions to a saved run, recorded in its manifest.

A run's files stay byte-identical once saved. When HEXEval adds to a run later (study settings,
participants' answers, recommendations recomputed with human evidence) it calls
:func:`record_amendment`: each file is written atomically, then ``run.json`` is rewritten atomically
with a new entry ``{"what", "when", "files": {relpath: sha256}}`` in its ``"amendments"`` list. The
expected hash of a file is its last listing in ``amendments``, else in ``files`` (the integrity check
of :mod:`hexeval_engine.runs.integrity` reads them so), so HEXEval's own amendments are never
flagged as edits while an edit made outside HEXEval is. Each entry is chained to the one before it and
the manifest signed again (:mod:`hexeval_engine.runs.signing`), so a hand-made entry is detected too.

Every amendment writer goes through :func:`record_amendment`, which holds :func:`run_lock` (an
exclusive ``flock`` on the run folder's own descriptor) for the whole read-add-write of ``run.json``:
two writers at the same moment (two study participants, an import while a participant answers) take
turns, so no amendment entry is lost and no file it listed would look edited. The lock is on the
folder itself, so no extra file appears in the run.

An amendment is write-ahead journaled: the new files and the manifest entry are first written, whole
and fsynced, to one journal file (:data:`JOURNAL`, renamed into place atomically), then applied (the
files, then the manifest entry), then the journal is removed. A process killed at any point leaves
either no journal (nothing of the amendment happened, or all of it did) or a complete journal, which
the next reader or writer of the run applies (:func:`finish_pending`): the files and the entry land
together, so a crash never leaves a file whose manifest entry is missing (a run falsely flagged
"edited after the run") and an answer is saved whole or not at all.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import logging
import os
import tempfile
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from ..errors import RunError
from ..paths import shown
from .files import MANIFEST
from .signing import add_signed_amendment

#: The write-ahead journal of an amendment in progress (hidden; present only while one is applied).
JOURNAL = ".amendment-journal.json"

log = logging.getLogger(__name__)


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
        More fields of the entry (an extension's ``tables``, ``rater``, ... : see :mod:`.extend`).

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
        _apply_pending(run_dir)  # a journal left by a process killed mid-amendment lands first, whole
        return _record(run_dir, what, files, extra or {})


def finish_pending(run_dir) -> bool:
    """Apply an amendment a killed process left journaled (under the run lock); True if there was one.

    Readers call it before they read the run's files or manifest, so what they see is the run with the
    amendment either absent or complete. Costs one ``stat`` when there is no journal.

    Raises
    ------
    RunError
        The folder cannot be opened.
    """
    run_dir = Path(run_dir)
    if not (run_dir / JOURNAL).is_file():
        return False
    with run_lock(run_dir):
        return _apply_pending(run_dir)


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
    _read_manifest(run_dir)  # a folder that is no run is refused before anything is written
    contents = {}
    for name, content in files.items():
        rel = _relpath(name)
        contents[str(rel)] = content.encode("utf-8") if isinstance(content, str) else bytes(content)
    entry = {**extra, "what": str(what), "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "files": {rel: sha256_bytes(data) for rel, data in contents.items()}}
    journal = {"entry": entry, "files": {rel: base64.b64encode(data).decode("ascii") for rel, data in contents.items()}}
    write_atomic(run_dir / JOURNAL, json.dumps(journal).encode("utf-8"))  # the commit point
    _apply(run_dir, entry, contents)
    os.unlink(run_dir / JOURNAL)
    return entry


def _read_manifest(run_dir: Path) -> dict:
    try:
        return json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunError(f"Run {shown(run_dir.name)} cannot be amended: its {MANIFEST} cannot be read. "
                       "Pick a run listed by `hexeval runs list`.") from err


def _apply(run_dir: Path, entry: dict, contents: dict[str, bytes]) -> None:
    """Write the journaled files, then append ``entry`` to the manifest unless it is already its last entry
    (a journal applied up to the manifest before its process was killed is applied again without a
    second entry)."""
    for rel, data in contents.items():
        path = run_dir.joinpath(*_relpath(rel).parts)
        if not (path.is_file() and sha256_bytes(path.read_bytes()) == entry["files"][rel]):
            write_atomic(path, data)
    manifest = _read_manifest(run_dir)
    amendments = manifest.get("amendments")
    amendments = amendments if isinstance(amendments, list) else []
    last = amendments[-1] if amendments else None
    if isinstance(last, dict) and all(last.get(k) == v for k, v in entry.items()):
        return
    add_signed_amendment(manifest, dict(entry))  # appended, chained to the one before, the manifest signed again
    write_atomic(run_dir / MANIFEST, json.dumps(manifest, indent=2).encode("utf-8"))


def _apply_pending(run_dir: Path) -> bool:
    """Apply and remove the journal of an interrupted amendment (caller holds the run lock)."""
    path = run_dir / JOURNAL
    if not path.is_file():
        return False
    try:
        journal = json.loads(path.read_text(encoding="utf-8"))
        entry = journal["entry"]
        contents = {str(rel): base64.b64decode(text) for rel, text in journal["files"].items()}
        if set(contents) != set(entry["files"]) or any(
                sha256_bytes(data) != entry["files"][rel] for rel, data in contents.items()):
            raise ValueError("the journaled files do not match their hashes")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        # The journal is renamed into place only once whole, so this is damage from outside HEXEval:
        # nothing of it is applied (no file of it was written before it was complete).
        log.warning("Run %s: an interrupted amendment's journal cannot be read (%s); it is set aside, unapplied.",
                    run_dir.name, err)
        os.replace(path, run_dir / f"{JOURNAL}.damaged")
        return False
    log.info("Run %s: completing the amendment \"%s\" that was interrupted.", run_dir.name, entry.get("what"))
    _apply(run_dir, entry, contents)
    os.unlink(path)
    return True
