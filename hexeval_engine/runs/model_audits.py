"""Remembered verdicts of the skops file audit, so a model file already audited is not audited again.

:func:`~hexeval_engine.inputs.load_inputs` (every evaluation) hands :data:`MODEL_AUDITS` to
:func:`~hexeval_engine.models.model_loading.load_model`; other callers audit every time.

Before a skops file is loaded, its declared sizes are bounded (:func:`~.file_bounds.check_skops_archive`) and the
types it asks for are listed and checked against the allow-list (``model_loading``): 0.1-0.2 s on the bundled
models, paid again by every run of the same file. The verdict (the types the file asks for, all trusted) is
remembered under a key of

* the SHA-256 of the file's exact bytes: the loader reads the file once and both hashes and loads those bytes,
  so the bytes loaded are the bytes audited, whatever happens to the file meanwhile;
* everything else the verdict depends on: the versions of skops, scikit-learn and XGBoost, HEXEval's own code (the
  allow-list is in it), the bounds and the memory ceiling the file was checked against.

Verdicts are kept in the folder of this installation's run-signing key (``model-audits/``), signed like stored
pieces (:class:`~hexeval_engine.runs.explanation_store.PieceStore`): an entry this installation did not write for
that key is ignored and the file audited again. Only a passed audit is remembered; a refused file is refused
again by the full audit. Without a readable signing key nothing is remembered (every load audits).
"""

from __future__ import annotations

import hashlib
import json
import logging
from importlib.metadata import PackageNotFoundError, version

from ..models import file_bounds
from .checkpoints import code_digest
from .explanation_store import PieceStore, store_secret
from .signing import key_path

log = logging.getLogger(__name__)

FOLDER = "model-audits"
#: The bounds of :mod:`.file_bounds` a skops audit checks (their values enter the key).
BOUNDS = ("MAX_MEMBERS", "MAX_RATIO", "JSON_FACTOR", "MAX_CLASSES", "MAX_FEATURES", "MAX_TREE_NODES")


def _store():
    """The signed store of verdicts, or None when this installation's key cannot be read."""

    try:
        return PieceStore(key_path().parent / FOLDER, store_secret())
    except OSError as err:
        log.info("Model audits are not remembered: the run-signing key cannot be read (%s).", err)
        return None


def _key(sha256: str) -> str:

    versions = {}
    for name in ("skops", "scikit-learn", "xgboost"):
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = None
    bounds = {name: getattr(file_bounds, name) for name in BOUNDS}  # as the audit read them (settable in tests)
    parts = {"kind": "skops-audit", "sha256": sha256, "versions": versions, "code": code_digest(),
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


class _ModelAudits:
    """What :func:`~hexeval_engine.models.model_loading.load_model` asks (``remembered``, ``remember``)."""

    remembered = staticmethod(remembered)
    remember = staticmethod(remember)


#: The remembered verdicts, for ``load_model(..., audits=MODEL_AUDITS)``.
MODEL_AUDITS = _ModelAudits()
