"""Per-participant study links: unguessable tokens (``secrets.token_urlsafe``), stored only hashed."""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_BYTES = 24


def new_token() -> str:
    """A fresh URL-safe token (192 random bits)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """The SHA-256 of a token, the only form a study stores."""
    return hashlib.sha256(str(token).encode("utf-8")).hexdigest()


def participant_for(token, participants: dict) -> str | None:
    """The participant id whose stored hash matches ``token`` (compared in constant time), else None."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return None
    digest = token_hash(token)
    found = None
    for pid, record in participants.items():
        if hmac.compare_digest(digest, str(record.get("token_sha256", ""))):
            found = pid
    return found
