"""Find the API key for an OpenAI-compatible endpoint without ever logging, storing or leaking it.

The operator's key (``OPENAI_API_KEY`` in the environment or ``.env``) goes only to endpoints the
operator chose: the official OpenAI API, or a base URL listed in :data:`ALLOWED_URLS_SETTING`
(environment, ``.env`` or, for the dashboard, ``st.secrets``). Any other base URL — one typed into
the dashboard, or a config file's ``personas.base_url`` — gets only a key passed explicitly with
it (typed in the same session), else a placeholder. :func:`redact` removes keys from any text a
server sends back before it is stored or shown.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from urllib.parse import urlparse

from dotenv import dotenv_values

from ..errors import LLMError
from ..paths import project_root

log = logging.getLogger(__name__)

LOCAL_PLACEHOLDER_KEY = "not-needed"
"""Sent to OpenAI-compatible servers that need no key (Ollama, vLLM, LM Studio)."""

API_KEY_SETTING = "OPENAI_API_KEY"
ALLOWED_URLS_SETTING = "HEXEVAL_LLM_BASE_URLS"
"""Operator setting: base URLs (comma- or space-separated) that may receive the operator's key."""

_SECRET = re.compile(r"(?<![A-Za-z0-9_\-])sk-[A-Za-z0-9_\-]{6,}")  # a word starting "sk-", never "risk-averse"
_BEARER = re.compile(r"(Bearer\s+)(?=\S*\d)[A-Za-z0-9._~+/=\-]{8,}")  # a token: long, with a digit


def resolve_api_key(api_key: str | None, base_url: str | None, *, operator_key: bool = False,
                    allowed_urls: str | None = None) -> str:
    """The key to send to ``base_url``.

    ``api_key`` when given and typed in with this URL. If ``api_key`` *is* the operator's key
    (``OPENAI_API_KEY`` in the environment or ``.env``, or passed with ``operator_key=True``, as the
    dashboard does with ``st.secrets``), it is scoped like the operator's key: whatever URL a config
    names, it goes only where :func:`operator_key_allowed` allows. Otherwise the operator's ``OPENAI_API_KEY``
    (environment, then ``.env`` in the working directory, then in the project root) — only when
    :func:`operator_key_allowed` says ``base_url`` may have it. Any other custom ``base_url`` gets a
    placeholder (local servers need no key).

    Raises
    ------
    LLMError
        No key is configured for the official OpenAI endpoint.
    """
    allowed = " ".join(u for u in (allowed_urls, _operator_setting(ALLOWED_URLS_SETTING)) if u)
    env_key = _operator_setting(API_KEY_SETTING)
    if api_key and api_key.strip():
        if not operator_key and (not env_key or api_key.strip() != env_key.strip()):
            return api_key.strip()  # a key typed in with this URL
        if operator_key_allowed(base_url, allowed):
            return api_key.strip()
        log.info("The operator's API key is not sent to %s: that base URL is not in %s.", public_url(base_url),
                 ALLOWED_URLS_SETTING)
        return LOCAL_PLACEHOLDER_KEY
    operator_key = env_key
    if operator_key and operator_key_allowed(base_url, allowed):
        return operator_key.strip()
    if base_url and not is_official_endpoint(base_url):
        if operator_key:
            log.info("The operator's API key is not sent to %s: that base URL is not in %s.", public_url(base_url),
                     ALLOWED_URLS_SETTING)
        return LOCAL_PLACEHOLDER_KEY
    raise LLMError("No OpenAI API key is configured for the LLM rater. Set OPENAI_API_KEY in the environment or "
                   "in a .env file, add OPENAI_API_KEY to .streamlit/secrets.toml for the dashboard, or pass "
                   "api_key=...; for a local OpenAI-compatible server set personas.base_url; or use "
                   "personas.rater: simulated.")


def operator_key_allowed(base_url: str | None, allowed_urls: str | None) -> bool:
    """Whether the operator's key may be sent to ``base_url``.

    Yes for the official OpenAI API (``base_url`` None or an https URL on ``api.openai.com``) and for
    a base URL listed in ``allowed_urls`` (the operator's :data:`ALLOWED_URLS_SETTING`; compared
    without a trailing slash, scheme and host case-insensitively). No for anything else.
    """
    if is_official_endpoint(base_url):
        return True
    if not base_url or not allowed_urls:
        return False
    wanted = _normal(base_url)
    return any(_normal(url) == wanted for url in re.split(r"[\s,]+", allowed_urls) if url)


def is_official_endpoint(base_url: str | None) -> bool:
    """``None`` (the SDK's default) or an https URL whose host is ``api.openai.com`` or another ``*.openai.com``."""
    if not base_url:
        return True
    parts = urlparse(base_url)
    host = (parts.hostname or "").lower()
    return parts.scheme == "https" and (host == "openai.com" or host.endswith(".openai.com"))


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret``, the operator's key, bearer tokens and anything shaped like an OpenAI key replaced by ``***``."""
    for key in {secret, os.environ.get(API_KEY_SETTING)}:
        if key and key != LOCAL_PLACEHOLDER_KEY and len(key.strip()) >= 4:
            text = text.replace(key.strip(), "***")
    text = _BEARER.sub(r"\1***", text)
    return _SECRET.sub("sk-***", text)


def _operator_setting(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value and value.strip() else _from_dotenv(name)


def _normal(url: str) -> str:
    return public_url(url).lower().rstrip("/")


def public_url(url: str | None) -> str:
    """``url`` without credentials (``http://user:token@host/v1`` → ``http://host/v1``), query or fragment.

    Used for everything shown, logged or stored (run.json, report, messages).
    """
    if not url:
        return ""
    parts = urlparse(str(url).strip())
    if not parts.scheme or not parts.hostname:
        return redact(str(url).split("@")[-1], None)
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a port that is not a number: leave it out
        port = ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _from_dotenv(name: str) -> str | None:
    for folder in (Path.cwd(), project_root()):
        env = folder / ".env"
        if env.is_file():
            value = dotenv_values(env).get(name)
            if value:
                return value
    return None
