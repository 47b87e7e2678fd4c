"""Which persona rater the sidebar selects, described for the status line and built for a run."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from hexeval_engine.llm.credentials import ALLOWED_URLS_SETTING, operator_key_allowed

from . import state
from .settings import operator_api_key, operator_setting

RATER_LABELS = {
    state.RATER_SIMULATED: "Simulated (offline)",
    state.RATER_OPENAI: "OpenAI",
    state.RATER_COMPATIBLE: "OpenAI-compatible server",
}


@dataclass(frozen=True)
class RaterChoice:
    kind: str  # one of state.RATER_*
    model: str | None
    base_url: str | None
    key_source: str | None  # "typed in", "operator" or None (no key)

    @property
    def uses_llm(self) -> bool:
        return self.kind != state.RATER_SIMULATED

    @property
    def engine_name(self) -> str:
        """The rater name the engine knows (both LLM choices use the OpenAI SDK)."""
        return "simulated" if not self.uses_llm else "openai"

    def status_line(self) -> str:
        if not self.uses_llm:
            return "Simulated rater: deterministic, offline; ratings are labelled *simulated*."
        where = "api.openai.com" if self.kind == state.RATER_OPENAI else (self.base_url or "no base URL set")
        key = {"typed in": "key entered here", "operator": "server's key"}.get(self.key_source, "no API key")
        return f"LLM rater: `{self.model}` at {where} ({key})."

    @property
    def endpoint(self) -> str | None:
        """The base URL requests go to (None: the official OpenAI API)."""
        return self.base_url if self.kind == state.RATER_COMPATIBLE else None

    def problem(self) -> str | None:
        """Why this choice cannot run as it stands, or None."""
        if not self.uses_llm:
            return None
        if not self.model:
            return "Enter the model name the server should use."
        if self.kind == state.RATER_COMPATIBLE and not self.base_url:
            return "Enter the server's base URL, e.g. http://localhost:11434/v1."
        if self.kind == state.RATER_OPENAI and self.key_source is None:
            return "OpenAI needs an API key: enter one here or ask the operator to set OPENAI_API_KEY."
        return None


def current_choice() -> RaterChoice:
    ss = st.session_state
    kind = ss[state.RATER_KIND]
    if kind == state.RATER_SIMULATED:
        return RaterChoice(kind, None, None, None)
    base_url = (ss[state.LLM_BASE_URL].strip() or None) if kind == state.RATER_COMPATIBLE else None
    key_source = "typed in" if ss[state.LLM_API_KEY] else ("operator" if operator_key_usable(kind, base_url) else None)
    return RaterChoice(kind, ss[state.LLM_MODEL].strip(), base_url, key_source)


def operator_key_usable(kind: str, base_url: str | None) -> bool:
    """Whether the operator's key may go to this endpoint: OpenAI itself, or a base URL the operator allowed.

    A base URL typed into the sidebar is someone else's server unless the operator listed it in
    ``HEXEVAL_LLM_BASE_URLS``; it never receives the operator's key.
    """
    if kind == state.RATER_SIMULATED or operator_api_key() is None:
        return False
    endpoint = base_url if kind == state.RATER_COMPATIBLE else None
    if kind == state.RATER_COMPATIBLE and not base_url:
        return False
    return operator_key_allowed(endpoint, operator_setting(ALLOWED_URLS_SETTING))


def api_key_for(choice: RaterChoice) -> str | None:
    """The API key to hand to ``evaluate`` for ``choice`` (None for the simulated rater).

    A key typed into the sidebar goes with the endpoint chosen in the same session. The operator's
    key goes only to an endpoint the operator allowed (:func:`operator_key_usable`); for any other
    URL the engine sends a placeholder. Keys are never stored or shown.
    """
    if not choice.uses_llm:
        return None
    typed = st.session_state[state.LLM_API_KEY]
    if typed:
        return typed
    return operator_api_key() if operator_key_usable(choice.kind, choice.base_url) else None


def key_settings(choice: RaterChoice) -> dict:
    """``evaluate``'s key arguments for ``choice``: the key, whether it is the operator's, and the allow-list.

    The operator's key is marked as such, so the engine scopes it for *every* URL a config names
    (``personas.base_url``, ``narratives.base_url``), not only the one chosen here.
    """
    key = api_key_for(choice)
    operators = bool(key) and not st.session_state[state.LLM_API_KEY]
    return {"api_key": key, "operator_key": operators, "allowed_urls": operator_setting(ALLOWED_URLS_SETTING)}
