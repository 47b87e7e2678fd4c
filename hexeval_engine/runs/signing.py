"""Signed run manifests: an edit made together with its recorded hash is still detected.

The hashes in ``run.json`` (:mod:`~hexeval_engine.runs.integrity`) are not keyed: whoever edits a table
can update its hash too. So HEXEval signs each manifest with a secret key of this installation:
``run.json`` gets ``"signature": {"scheme": "HMAC-SHA256", "key_id", "value", "sealed"}``, where
``value`` is the HMAC-SHA256 of the manifest's canonical JSON (sorted keys, no spaces, ``signature``
itself left out) and ``sealed`` is the value it had when the run was saved. Every amendment HEXEval
records later (:mod:`~hexeval_engine.runs.amendments`) is chained: it carries ``previous`` (the
``mac`` of the amendment before it, ``sealed`` for the first) and its own ``mac`` over the entry, and
the manifest is signed again (:func:`add_signed_amendment`; only a run whose signature held before). A table edited with its hash updated, a hash list changed, a fake or
removed amendment entry: each breaks the signature or the chain.

The key
-------
32 random bytes (hex) in ``~/.config/hexeval/run-signing.key`` (``$XDG_CONFIG_HOME`` honoured; the
``HEXEVAL_SIGNING_KEY`` variable names another file), created on first use with mode 0600 in a folder
of mode 0700, and never inside the runs folder: a key beside the runs would sign any edit. Only saving
and amending create it; reading and verifying never do.

What it protects, and what not
------------------------------
It detects any change to a run made by someone who cannot read the key file: edited tables, edited
hashes, edited settings or verdicts in ``run.json``, fake amendments. It does *not* protect against
whoever can read the key (the account HEXEval runs as, an administrator): they can sign anything. It
does not stop a whole run folder from being replaced by an older signed copy of the same run (a
rollback), nor a run from being deleted. A run signed by another installation cannot be checked here
(HMAC is symmetric: its reader would need the writer's key); it is said to be *not verifiable here*,
as are runs saved before HEXEval signed them. Nothing here is a secret for the reader: the signature
proves who wrote a run only to the installation that holds the key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

log = logging.getLogger(__name__)

SCHEME = "HMAC-SHA256"
KEY_ENV = "HEXEVAL_SIGNING_KEY"
_KEY_BYTES = 32


def key_path() -> Path:
    """Where this installation's signing key is kept (``HEXEVAL_SIGNING_KEY``, else the user's config folder)."""
    named = os.environ.get(KEY_ENV)
    if named:
        return Path(named).expanduser()
    config_home = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(config_home) / "hexeval" / "run-signing.key"


def read_key() -> bytes | None:
    """This installation's key, or None when it has none yet (or it cannot be read: logged)."""
    path = key_path()
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        log.warning("The run-signing key %s cannot be read (%s): runs cannot be verified.", path, err)
        return None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        log.warning("The run-signing key %s is not hex text: runs cannot be verified.", path)
        return None
    return key if len(key) >= 16 else None


def installation_key() -> bytes:
    """This installation's key, created on first use (0600, in a 0700 folder; two processes agree on one).

    Raises
    ------
    OSError
        The key file cannot be created or read.
    """
    key = read_key()
    if key is not None:
        return key
    path = key_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it a moment ago: use theirs
        key = read_key()
        if key is None:
            raise OSError(f"the key file {path} exists but holds no usable key") from None
        return key
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(secrets.token_hex(_KEY_BYTES) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    log.info("Created this installation's run-signing key at %s.", path)
    key = read_key()
    if key is None:
        raise OSError(f"the key file {path} was written but cannot be read back")
    return key


def check_key_outside(runs_root) -> None:
    """Refuse a key file inside the runs folder (whoever can edit runs could then sign their edits).

    Raises
    ------
    ConfigError
        ``HEXEVAL_SIGNING_KEY`` (or the default place) lies inside ``runs_root``.
    """
    key = key_path().resolve()
    root = Path(runs_root).resolve()
    if key == root or root in key.parents:
        raise ConfigError(f"The run-signing key {key} is inside the runs folder {root}, where whoever can edit a "
                          f"run could also read it and sign the edit. Set {KEY_ENV} to a file outside the runs "
                          "folder (or unset it to use ~/.config/hexeval/run-signing.key). Nothing was evaluated.")


def key_id(key: bytes) -> str:
    """A short public name of ``key`` (16 hex digits), telling which installation signed a run."""
    return hashlib.sha256(b"hexeval run-signing key id\0" + key).hexdigest()[:16]


def canonical(obj) -> bytes:
    """The bytes that are signed: JSON with sorted keys, no spaces, ASCII only."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _mac(key: bytes, obj) -> str:
    return hmac.new(key, canonical(obj), hashlib.sha256).hexdigest()


def _unsigned(manifest: dict) -> dict:
    return {k: v for k, v in manifest.items() if k != "signature"}


def sign_new_manifest(manifest: dict, key: bytes) -> dict:
    """Sign a run's manifest as it is saved (in place; returned). ``manifest`` must be JSON as read back."""
    value = _mac(key, _unsigned(manifest))
    manifest["signature"] = {"scheme": SCHEME, "key_id": key_id(key), "value": value, "sealed": value}
    return manifest


def add_signed_amendment(manifest: dict, entry: dict) -> dict:
    """Append ``entry`` to the manifest's ``amendments``, chained, and sign the manifest again (in place).

    Only a manifest whose signature holds with this installation's key before the amendment is signed
    again: an unsigned run, one signed elsewhere or one already edited stays as verifiable as it was (signing
    it now would vouch for content this installation never checked). Its entry is still appended.
    """
    key = read_key()
    valid = key is not None and check_signature(manifest, key).state == "valid"
    amendments = manifest.get("amendments") if isinstance(manifest.get("amendments"), list) else []
    if valid:
        previous = amendments[-1]["mac"] if amendments else manifest["signature"]["sealed"]
        entry["previous"] = str(previous)
        entry["mac"] = _mac(key, {k: v for k, v in entry.items() if k != "mac"})
    manifest["amendments"] = [*amendments, entry]
    if valid:
        manifest["signature"] = {**manifest["signature"], "value": _mac(key, _unsigned(manifest))}
    return entry


def seal_new_run(manifest: dict) -> dict:
    """Sign a run's manifest as it is saved (in place; returned), creating this installation's key on first use.

    ``manifest`` must be the JSON as it will be read back. When the key cannot be created or read the run
    is saved unsigned and the failure logged: the run then shows as not verifiable wherever it is read,
    which is what it is; nothing computed is lost.
    """
    try:
        key = installation_key()
    except OSError as err:
        log.warning("Run %s is saved unsigned: the run-signing key %s cannot be created or read (%s).",
                    manifest.get("run_id"), key_path(), err)
        return manifest
    return sign_new_manifest(manifest, key)


@dataclass(frozen=True)
class SignatureCheck:
    """What the signature of a manifest says.

    ``state`` is ``"valid"``, ``"invalid"`` (the manifest or its amendments changed after signing),
    ``"unsigned"`` (saved before HEXEval signed runs, or signing failed), ``"other_key"`` (signed by
    another installation) or ``"no_key"`` (this installation has no key, so it signed nothing).
    ``problem`` says in words what is wrong when ``state == "invalid"``.
    """

    state: str
    problem: str = ""
    signer: str = ""

    @property
    def checkable(self) -> bool:
        return self.state in ("valid", "invalid")


def check_signature(manifest: dict, key: bytes | None = None) -> SignatureCheck:
    """Check ``manifest``'s signature and its amendments' chain with this installation's key.

    Parameters
    ----------
    manifest : dict
        ``run.json`` as read.
    key : bytes, optional
        The key to check with (default: this installation's, never created here).
    """
    signature = manifest.get("signature")
    if signature is None:
        return SignatureCheck("unsigned")
    if not isinstance(signature, dict) or signature.get("scheme") != SCHEME:
        return SignatureCheck("invalid", "its signature is not one HEXEval writes")
    key = read_key() if key is None else key
    signer = str(signature.get("key_id", ""))[:16]
    if key is None:
        return SignatureCheck("no_key", signer=signer)
    if signer != key_id(key):
        return SignatureCheck("other_key", signer=signer)
    if not hmac.compare_digest(str(signature.get("value", "")), _mac(key, _unsigned(manifest))):
        return SignatureCheck("invalid", "run.json was changed after HEXEval signed it", signer)
    problem = _chain_problem(manifest, signature, key)
    return SignatureCheck("invalid" if problem else "valid", problem, signer)


def _chain_problem(manifest: dict, signature: dict, key: bytes) -> str:
    """Why the amendments' chain does not hold ("" when it does)."""
    amendments = manifest.get("amendments") or []
    if not isinstance(amendments, list):
        return "its list of amendments is not one HEXEval writes"
    previous = str(signature.get("sealed", ""))
    for n, entry in enumerate(amendments, 1):
        if not isinstance(entry, dict) or "mac" not in entry:
            return f"amendment {n} was not recorded by HEXEval"
        expected = _mac(key, {k: v for k, v in entry.items() if k != "mac"})
        if not hmac.compare_digest(str(entry["mac"]), expected):
            return f"amendment {n} ({str(entry.get('what', ''))[:80]}) was not recorded by HEXEval"
        if str(entry.get("previous", "")) != previous:
            return f"amendment {n} does not follow the one before it (an amendment was removed or reordered)"
        previous = str(entry["mac"])
    return ""
