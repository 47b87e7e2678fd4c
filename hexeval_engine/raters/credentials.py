"""Find the API key for an OpenAI-compatible endpoint without ever logging or storing it."""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlparse

from dotenv import dotenv_values

from ..errors import LLMError
from ..paths import project_root

LOCAL_PLACEHOLDER_KEY = "not-needed"
"""Sent to OpenAI-compatible servers that need no key (Ollama, vLLM, LM Studio)."""

_SECRET = re.compile(r"sk-[A-Za-z0-9_\-]{6,}")


def resolve_api_key(api_key: str | None, base_url: str | None) -> str:
    """The key to use: ``api_key``, else ``OPENAI_API_KEY`` from the environment, else from ``.env``.

    ``.env`` is read (not loaded into the environment) from the working directory, then the
    project root. A custom ``base_url`` other than api.openai.com may run without a key: a
    placeholder is used then.

    Raises
    ------
    LLMError
        No key is configured for the official OpenAI endpoint.
    """
    for candidate in (api_key, os.environ.get("OPENAI_API_KEY"), _from_dotenv()):
        if candidate and candidate.strip():
            return candidate.strip()
    if base_url and not is_official_endpoint(base_url):
        return LOCAL_PLACEHOLDER_KEY
    raise LLMError("No OpenAI API key is configured for the LLM rater. Set OPENAI_API_KEY in the environment or "
                   "in a .env file, add OPENAI_API_KEY to .streamlit/secrets.toml for the dashboard, or pass "
                   "api_key=...; for a local OpenAI-compatible server set personas.base_url; or use "
                   "personas.rater: simulated.")


def is_official_endpoint(base_url: str | None) -> bool:
    host = urlparse(base_url).hostname if base_url else "api.openai.com"
    return bool(host) and host.endswith("openai.com")


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` and anything shaped like an OpenAI key replaced by ``***``."""
    if secret and secret != LOCAL_PLACEHOLDER_KEY and len(secret) >= 4:
        text = text.replace(secret, "***")
    return _SECRET.sub("sk-***", text)


def _from_dotenv() -> str | None:
    for folder in (Path.cwd(), project_root()):
        env = folder / ".env"
        if env.is_file():
            value = dotenv_values(env).get("OPENAI_API_KEY")
            if value:
                return value
    return None
