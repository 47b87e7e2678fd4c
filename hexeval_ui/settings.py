"""Operator settings: environment variables, the project's ``.env`` and ``st.secrets``.

Only the server operator controls these. A remote user of the dashboard cannot switch pickle
uploads on, and never sees an API key that the operator configured.
"""

from __future__ import annotations

import os

import streamlit as st
from dotenv import load_dotenv
from streamlit.errors import StreamlitSecretNotFoundError

from hexeval_engine.paths import project_root

ALLOW_PICKLE_SETTING = "HEXEVAL_ALLOW_PICKLE_UPLOADS"
API_KEY_SETTING = "OPENAI_API_KEY"
_TRUE = {"1", "true", "yes", "on"}


def load_operator_env() -> None:
    """Read the project's ``.env`` into the environment (existing variables win)."""
    load_dotenv(project_root() / ".env", override=False)


def operator_setting(name: str) -> str | None:
    """The value of ``name`` from the environment, else from ``st.secrets``; None if unset."""
    value = os.environ.get(name)
    if value:
        return value
    try:
        found = st.secrets.get(name)
    except StreamlitSecretNotFoundError:
        # No secrets.toml on this server: the setting is simply not configured.
        return None
    return str(found) if found not in (None, "") else None


def pickle_uploads_allowed() -> bool:
    value = operator_setting(ALLOW_PICKLE_SETTING)
    return value is not None and value.strip().lower() in _TRUE


def operator_api_key() -> str | None:
    return operator_setting(API_KEY_SETTING)
