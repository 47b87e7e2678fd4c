"""Tamper evidence: which files of a saved run changed since HEXEval wrote them.

:func:`~hexeval_engine.runs.store.save_run` records in ``run.json`` a SHA-256 of every file it
writes into the run folder (``"files": {relpath: sha256}``, ``run.json`` itself excluded) and an
empty ``"amendments"`` list. HEXEval's own later additions (a study's answers, for example) go
through :func:`~hexeval_engine.runs.amendments.record_amendment`, which appends an amendment with
the new files' hashes; a file's expected hash is its last listing among the amendments, else its
listing in ``files``. Any other change — a value edited in a table, a file removed, a table the
loader reads added by hand — makes the run "edited after the run".

The hashes alone are not keyed (whoever edits a table can update its hash), so the manifest is signed
(:mod:`~hexeval_engine.runs.signing`): a failing signature lists ``run.json`` itself as edited. Runs saved
before hashes were recorded (no ``files`` key), before runs were signed, or signed by another installation
are *not verifiable*, which is said as such wherever "as written" would be, and never reported as edited
unless a recorded hash disagrees.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .signing import check_signature
from .amendments import finish_pending

MANIFEST = "run.json"

READ_BY_HEXEVAL = ("technical_metrics.csv", "technical_metrics_long.csv", "instance_metrics.csv",
                   "instance_metrics_unshared.csv", "persona_ratings.csv", "narratives.csv",
                   "narrative_extractions.csv", "recommendations.json", "explanations.jsonl")
"""Files the loader reads: one present but never recorded was added after the run."""


@dataclass(frozen=True)
class Integrity:
    """What the hashes and the signature of a run's manifest say about its files.

    ``verifiable`` is True only when the manifest records its files' hashes *and* its signature can be
    checked here (:mod:`~hexeval_engine.runs.signing`): a run saved before hashes or signatures, or signed by
    another installation, is not verifiable — an edit made together with its hash would not show.
    ``edited`` lists the relative paths whose bytes differ from the recorded hash, that are missing, that the
    loader reads but the run never recorded, and ``run.json`` itself when its signature fails (``problem``
    says why). ``signature`` is the signature's state (see :class:`~hexeval_engine.runs.signing.SignatureCheck`).
    """

    verifiable: bool
    edited: list[str] = field(default_factory=list)
    signature: str = "unsigned"
    problem: str = ""
    signer: str = ""

    @property
    def state(self) -> str:
        """One word for listings: ``"edited"``, ``"not verifiable"`` or ``"as written"``."""
        if self.edited:
            return "edited"
        return "as written" if self.verifiable else "not verifiable"

    @property
    def warning(self) -> str:
        """One sentence for people: empty only when the run is verified as written."""
        if self.edited:
            why = f" ({self.problem})" if self.problem else ""
            return (f"Edited after the run: {', '.join(self.edited)}{why}. Its results may not be what HEXEval "
                    "computed.")
        if self.verifiable:
            return ""
        return "Not verifiable: " + _NOT_VERIFIABLE.get(self.signature, _NOT_VERIFIABLE["unsigned"]).format(
            signer=self.signer or "unknown")


_NOT_VERIFIABLE = {
    "no_hashes": "this run was saved before HEXEval recorded file hashes, so whether its files were edited cannot "
                 "be verified.",
    "unsigned": "this run was saved before HEXEval signed its runs, so an edit made together with the hashes it "
                "records would not show; whether its files were edited cannot be verified.",
    "other_key": "this run was signed by another HEXEval installation (key {signer}), whose key this one does not "
                 "hold, so an edit made together with the hashes it records would not show here.",
    "no_key": "this installation has no run-signing key yet (it has saved no run), so the run's signature "
              "(key {signer}) cannot be checked and an edit made together with its hashes would not show.",
}


def sha256_file(path) -> str:
    """The hex SHA-256 of the file at ``path``, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def hash_folder(folder) -> dict[str, str]:
    """``{relpath: sha256}`` of every file under ``folder`` except ``run.json`` (POSIX relative paths, sorted)."""
    folder = Path(folder)
    hashes = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.relative_to(folder) != Path(MANIFEST):
            hashes[path.relative_to(folder).as_posix()] = sha256_file(path)
    return hashes


def expected_hashes(manifest: dict) -> dict[str, str] | None:
    """The hash each file should have (``files``, overridden by later amendments), None if not recorded."""
    files = manifest.get("files")
    if not isinstance(files, dict):
        return None
    expected = {str(k): str(v) for k, v in files.items()}
    for amendment in manifest.get("amendments") or []:
        if isinstance(amendment, dict) and isinstance(amendment.get("files"), dict):
            expected.update({str(k): str(v) for k, v in amendment["files"].items()})
    return expected


def check_integrity(run_dir, manifest: dict | None = None) -> Integrity:
    """Compare a run's files with the hashes its manifest records.

    Parameters
    ----------
    run_dir : str or Path
        The run folder.
    manifest : dict, optional
        Its ``run.json`` content when already read (read from ``run_dir`` otherwise).

    Returns
    -------
    Integrity
        Not verifiable when the manifest records no ``files`` or its signature cannot be checked here; the
        edited files, sorted (``run.json`` among them when its signature fails).
    """
    run_dir = Path(run_dir)
    if finish_pending(run_dir):  # an amendment a killed process journaled lands whole before the check
        manifest = None
    if manifest is None:
        manifest = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    expected = expected_hashes(manifest)
    if expected is None:
        return Integrity(verifiable=False, signature="no_hashes")
    signature = check_signature(manifest)
    edited = ["run.json"] if signature.state == "invalid" else []
    for relpath, digest in expected.items():
        path = _inside(run_dir, relpath)
        if path is None or not path.is_file() or sha256_file(path) != digest:
            edited.append(relpath)
    edited += [name for name in READ_BY_HEXEVAL if name not in expected and (run_dir / name).exists()]
    return Integrity(verifiable=signature.checkable, edited=sorted(edited), signature=signature.state,
                     problem=signature.problem, signer=signature.signer)


def edited_files(run_dir) -> list[str]:
    """Relative paths of ``run_dir``'s files that changed, went missing or were added since the run was written.

    Runs from before hashes were recorded give ``[]``: use :func:`check_integrity` to tell them apart.
    """
    return check_integrity(run_dir).edited


def _inside(run_dir: Path, relpath: str) -> Path | None:
    """``run_dir / relpath`` when ``relpath`` is a plain relative path inside the folder, else None."""
    pure = PurePosixPath(relpath)
    if pure.is_absolute() or ".." in pure.parts or not pure.parts:
        return None
    return run_dir.joinpath(*pure.parts)
