"""A folder of finished pieces of work (explanations, a stage's results), each under the key of what determined it.

Two kinds of folders use it: a run's own checkpoints (``<root>/<use-case>/.resume-<run id>/pieces/``, see
:mod:`.resumable`) and the runs root's shared store (``<root>/.store/``), where a finished run leaves its pieces
for later runs (:mod:`.checkpoints` says what a key holds).

An entry is one file ``<key>.piece``: a header line (format, the key, the payload's length and a keyed
HMAC-SHA256 of key and payload), then the payload (a pickle). The HMAC's secret is derived from this
installation's run-signing key (:func:`store_secret`), so an entry is trusted only if this installation wrote
it for that key: a damaged file, an entry copied in from elsewhere or renamed to another key is ignored with a
warning, removed, and its piece computed again. The payload is unpickled only after the check passes.
Entries are written atomically (temporary file, then rename): a reader sees a whole entry or none. They are not
fsynced (a run writes one per explanation): an entry a power cut leaves torn fails its check and is computed again.

The shared store has a size limit (:data:`STORE_LIMIT_BYTES`, ``HEXEVAL_STORE_LIMIT_MB``); :meth:`PieceStore.prune`
removes the least recently used entries beyond it (``hexeval runs clean`` calls it, and every finished run).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import pickle
import tempfile
import time
from pathlib import Path

from .signing import installation_key

log = logging.getLogger(__name__)

FORMAT = b"hexeval-piece-1"
SUFFIX = ".piece"
STORE_DIR = ".store"
STORE_LIMIT_BYTES = 512 * 1024 * 1024
"""Default size limit of a runs root's shared store (``HEXEVAL_STORE_LIMIT_MB`` overrides it)."""


def store_folder(root) -> Path:
    """The shared store of the runs root ``root``."""
    return Path(root) / STORE_DIR


def store_limit() -> int:
    """The shared store's size limit in bytes (``HEXEVAL_STORE_LIMIT_MB``, else :data:`STORE_LIMIT_BYTES`)."""
    text = os.environ.get("HEXEVAL_STORE_LIMIT_MB", "").strip()
    try:
        return int(float(text) * 1024 * 1024) if text else STORE_LIMIT_BYTES
    except ValueError:
        log.warning("HEXEVAL_STORE_LIMIT_MB=%r is not a number of megabytes; the store keeps up to %d MB.",
                    text[:40], STORE_LIMIT_BYTES // (1024 * 1024))
        return STORE_LIMIT_BYTES


def store_secret() -> bytes:
    """The HMAC secret of stored pieces: derived from this installation's run-signing key (kept outside every runs
    folder, see :mod:`.signing`), so whoever can write a runs folder cannot forge an entry.

    Raises
    ------
    OSError
        The run-signing key cannot be created or read.
    """
    return hmac.new(installation_key(), b"hexeval explanation store v1", hashlib.sha256).digest()


class PieceStore:
    """Entries under ``folder``, signed with ``secret`` (see the module notes).

    Parameters
    ----------
    folder : path
        Where the entries live (created on the first write).
    secret : bytes
        The HMAC secret (:func:`store_secret`).
    """

    def __init__(self, folder, secret: bytes):
        self.folder, self.secret = Path(folder), secret
        self.rejected = 0  # entries found damaged or foreign (ignored and removed)

    def path(self, key: str) -> Path:
        return self.folder / f"{key}{SUFFIX}"

    def get(self, key: str):
        """The piece stored under ``key``, or ``None`` (absent, or damaged/foreign: then removed, with a warning)."""
        path = self.path(key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as err:
            log.warning("A stored piece cannot be read (%s); it is computed again.", err.strerror or err)
            return None
        payload = self._payload(key, raw)
        if payload is None:
            self.rejected += 1
            log.warning("A stored piece (%s) is damaged or was not written by this installation; it is ignored, "
                        "removed and computed again.", path.name[:16])
            path.unlink(missing_ok=True)
            return None
        try:
            piece = pickle.loads(payload)
        except Exception as err:  # signed by us but unreadable now (a class that moved): computed again
            log.warning("A stored piece (%s) cannot be read by this version (%s); it is computed again.",
                        path.name[:16], type(err).__name__)
            path.unlink(missing_ok=True)
            return None
        try:
            os.utime(path)  # recently used: pruned last
        except OSError:
            pass
        return piece

    def put(self, key: str, piece) -> None:
        """Store ``piece`` under ``key`` atomically (a failure to write is logged: the run goes on without it)."""
        self.put_pickled(key, pickle.dumps(piece, protocol=pickle.HIGHEST_PROTOCOL))

    def put_pickled(self, key: str, payload: bytes) -> None:
        """Store under ``key`` the piece ``payload`` is the pickle of (as :meth:`put`, for a caller that pickled it
        already)."""
        header = b" ".join([FORMAT, key.encode("ascii"), str(len(payload)).encode("ascii"),
                            self._sign(key, payload).encode("ascii")]) + b"\n"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".piece.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:  # not fsynced: a piece torn by a power cut fails its check
                    fh.write(header)
                    fh.write(payload)
                os.replace(tmp, self.path(key))
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as err:
            log.warning("A finished piece could not be stored (%s); a later run computes it again.",
                        err.strerror or err)

    def keys(self) -> list[str]:
        """Keys of the entries present (unchecked)."""
        if not self.folder.is_dir():
            return []
        return sorted(p.name[:-len(SUFFIX)] for p in self.folder.glob(f"*{SUFFIX}"))

    def size(self) -> int:
        """Bytes the entries take."""
        return sum(_size(p) for p in self.folder.glob(f"*{SUFFIX}")) if self.folder.is_dir() else 0

    def move_into(self, other: "PieceStore") -> int:
        """Move every entry into ``other`` (same runs root, same secret); returns how many moved."""
        moved = 0
        for key in self.keys():
            other.folder.mkdir(parents=True, exist_ok=True)
            try:
                os.replace(self.path(key), other.path(key))
                moved += 1
            except OSError as err:
                log.warning("A finished piece could not be kept for later runs (%s).", err.strerror or err)
        return moved

    def prune(self, limit: int | None = None) -> tuple[int, int]:
        """Remove the least recently used entries until the entries take at most ``limit`` bytes (default
        :func:`store_limit`); also leftovers of interrupted writes older than an hour. Returns (entries removed,
        bytes freed)."""
        limit = store_limit() if limit is None else limit
        if not self.folder.is_dir():
            return 0, 0
        removed = freed = 0
        for tmp in self.folder.glob(".piece.*.tmp"):
            if time.time() - _mtime(tmp) > 3600:
                tmp.unlink(missing_ok=True)
        entries = sorted(self.folder.glob(f"*{SUFFIX}"), key=_mtime)
        total = sum(_size(p) for p in entries)
        for path in entries:
            if total <= limit:
                break
            size = _size(path)
            path.unlink(missing_ok=True)
            total -= size
            removed, freed = removed + 1, freed + size
        return removed, freed

    def _sign(self, key: str, payload: bytes) -> str:
        return hmac.new(self.secret, key.encode("ascii") + b"\0" + payload, hashlib.sha256).hexdigest()

    def _payload(self, key: str, raw: bytes) -> bytes | None:
        """The payload of an entry if its header is ours, for ``key``, of the right length and signature."""
        head, sep, payload = raw.partition(b"\n")
        parts = head.split(b" ")
        if not sep or len(parts) != 4 or parts[0] != FORMAT or parts[1] != key.encode("ascii"):
            return None
        if not parts[2].isdigit() or int(parts[2]) != len(payload):
            return None
        if not hmac.compare_digest(parts[3], self._sign(key, payload).encode("ascii")):
            return None
        return payload


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
