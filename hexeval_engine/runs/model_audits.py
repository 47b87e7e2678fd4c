"""Remembered skops audits and the models they let in, so a model file already audited is neither audited nor
rebuilt again.

:func:`~hexeval_engine.inputs.load_inputs` (every evaluation) hands :data:`MODEL_AUDITS` to
:func:`~hexeval_engine.models.model_loading.load_model`; other callers audit and rebuild every time.

Before a skops file is loaded, its declared sizes are bounded (:func:`~.file_bounds.check_skops_archive`) and the
types it asks for are listed and checked against the allow-list (``model_loading``): 0.1-0.2 s on the bundled
models, paid again by every run of the same file. Then skops rebuilds the model object by object, auditing its tree
again on the way (heart's 5 MB forest: ~0.17 s). Two things are remembered under a key of

* the SHA-256 of the file's exact bytes: the loader reads the file once and both hashes and loads those bytes,
  so the bytes loaded are the bytes audited, whatever happens to the file meanwhile;
* everything else they depend on: the versions of skops, scikit-learn and XGBoost, HEXEval's own code (the
  allow-list is in it), the bounds and the memory ceiling the file was checked against:

the *verdict* (the types the file asks for, all trusted), and the *model* skops rebuilt from those bytes after
they passed (kept as a pickle of the rebuilt objects: loading it takes milliseconds and gives the same model).

Both are kept in the folder of this installation's run-signing key (``model-audits/``), signed like stored
pieces (:class:`~hexeval_engine.runs.explanation_store.PieceStore`): an entry this installation did not write for
that key is ignored and the file audited and rebuilt again, and a kept model is unpickled only after its signature
is checked. Only a passed audit and a model rebuilt after it are remembered; a refused file is refused again by the
full audit. Without a readable signing key nothing is remembered (every load audits and rebuilds).

The folder has a size limit (:data:`LIMIT_BYTES`, ``HEXEVAL_MODEL_AUDITS_LIMIT_MB``): after a model is kept, and
by ``hexeval runs clean``, the least recently used entries beyond it are removed (:func:`prune`). A model whose
pickle alone would take more than a quarter of the limit is not kept (it is rebuilt each time): its pickling stops
at that size, and the file is marked so later loads do not pickle it again.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import pickle
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version

from ..models import file_bounds
from .checkpoints import code_digest
from .explanation_store import PieceStore, store_secret
from .signing import key_path

log = logging.getLogger(__name__)

FOLDER = "model-audits"
#: The bounds of :mod:`.file_bounds` a skops audit checks (their values enter the key).
BOUNDS = ("MAX_MEMBERS", "MAX_RATIO", "JSON_FACTOR", "MAX_CLASSES", "MAX_FEATURES", "MAX_TREE_NODES")
LIMIT_BYTES = 256 * 1024 * 1024
"""Default size limit of the remembered audits and models (``HEXEVAL_MODEL_AUDITS_LIMIT_MB`` overrides it)."""
LIMIT_ENV = "HEXEVAL_MODEL_AUDITS_LIMIT_MB"


def limit() -> int:
    """The folder's size limit in bytes (``HEXEVAL_MODEL_AUDITS_LIMIT_MB``, else :data:`LIMIT_BYTES`)."""
    text = os.environ.get(LIMIT_ENV, "").strip()
    try:
        return int(float(text) * 1024 * 1024) if text else LIMIT_BYTES
    except ValueError:
        log.warning("%s=%r is not a number of megabytes; remembered model audits keep up to %d MB.", LIMIT_ENV,
                    text[:40], LIMIT_BYTES // (1024 * 1024))
        return LIMIT_BYTES


def _store():
    """The signed store of verdicts and models, or None when this installation's key cannot be read."""

    try:
        return PieceStore(key_path().parent / FOLDER, store_secret())
    except OSError as err:
        log.info("Model audits are not remembered: the run-signing key cannot be read (%s).", err)
        return None


@lru_cache(maxsize=1)
def _versions() -> tuple:
    """The installed versions of the libraries that rebuild a skops file (read once per process)."""
    out = []
    for name in ("skops", "scikit-learn", "xgboost"):
        try:
            out.append((name, version(name)))
        except PackageNotFoundError:
            out.append((name, None))
    return tuple(out)


def _key(sha256: str, kind: str = "skops-audit") -> str:
    versions = dict(_versions())
    bounds = {name: getattr(file_bounds, name) for name in BOUNDS}  # as the audit read them (settable in tests)
    parts = {"kind": kind, "sha256": sha256, "versions": versions, "code": code_digest(),
             "ceiling": file_bounds.memory_ceiling(), "bounds": bounds}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()


def remembered(sha256: str) -> list[str] | None:
    """The types a file with these bytes asks for, as a passed audit found them; None when not remembered."""
    store = _store()
    verdict = store.get(_key(sha256)) if store is not None else None
    if not (isinstance(verdict, list) and all(isinstance(t, str) for t in verdict)):
        return None
    return verdict


def remember(sha256: str, types: list[str]) -> None:
    """Remember that the file with these bytes passed the audit, asking for ``types``."""
    store = _store()
    if store is not None:
        store.put(_key(sha256), [str(t) for t in types])


def rebuilt(sha256: str):
    """The model skops rebuilt from a file with these bytes after they passed the audit; None when not kept."""
    store = _store()
    kept = store.get(_key(sha256, "skops-model")) if store is not None else None
    return kept["model"] if isinstance(kept, dict) and "model" in kept else None


def keep_rebuilt(sha256: str, model) -> None:
    """Keep the model skops rebuilt from the file with these bytes (after they passed the audit), then prune the
    folder to its limit. A model that cannot be pickled, or whose pickle would take more than a quarter of the
    limit, is not kept: its pickle stops at that size (no second copy of a large model in memory), and the file is
    marked so later loads do not try again."""
    store = _store()
    cap = limit() // 4
    too_large = _key(sha256, f"skops-model-over-{cap}")  # under another limit it may fit
    if store is None or store.get(too_large) is not None:
        return
    sink = _Bounded(cap)
    try:
        pickle.dump({"model": model}, sink, protocol=pickle.HIGHEST_PROTOCOL)
    except _TooLarge:
        log.info("The rebuilt model is not remembered: its pickle would take more than %d MB (a quarter of %s); it "
                 "is rebuilt from the file each time.", cap // (1024 * 1024), LIMIT_ENV)
        store.put(too_large, True)
        return
    except (pickle.PicklingError, TypeError, AttributeError) as err:
        log.info("The rebuilt model is not remembered (%s: %s); it is rebuilt from the file each time.",
                 type(err).__name__, err)
        return
    store.put_pickled(_key(sha256, "skops-model"), sink.getvalue())
    store.prune(limit())


class _TooLarge(Exception):
    """A pickle grew past its cap (:class:`_Bounded`)."""


class _Bounded(io.BytesIO):
    """An in-memory file that refuses to grow past ``cap`` bytes (raises :class:`_TooLarge`)."""

    def __init__(self, cap: int):
        super().__init__()
        self.cap = cap

    def write(self, chunk) -> int:
        if self.tell() + memoryview(chunk).nbytes > self.cap:
            raise _TooLarge
        return super().write(chunk)


def prune() -> tuple[int, int]:
    """Remove the least recently used remembered audits and models beyond the limit: (entries removed, bytes
    freed)."""
    store = _store()
    return store.prune(limit()) if store is not None else (0, 0)


def size() -> tuple[int, int]:
    """(entries, bytes) the remembered audits and models take."""
    store = _store()
    return (len(store.keys()), store.size()) if store is not None else (0, 0)


class _ModelAudits:
    """What :func:`~hexeval_engine.models.model_loading.load_model` asks (``remembered``, ``remember``,
    ``rebuilt``, ``keep_rebuilt``)."""

    remembered = staticmethod(remembered)
    remember = staticmethod(remember)
    rebuilt = staticmethod(rebuilt)
    keep_rebuilt = staticmethod(keep_rebuilt)


#: The remembered verdicts and models, for ``load_model(..., audits=MODEL_AUDITS)``.
MODEL_AUDITS = _ModelAudits()
