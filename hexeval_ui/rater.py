"""Which persona rater the sidebar selects, described for the status line and built for a run."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from . import state
from .settings import operator_api_key

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
    key_source = "typed in" if ss[state.LLM_API_KEY] else ("operator" if operator_api_key() else None)
    base_url = ss[state.LLM_BASE_URL].strip() if kind == state.RATER_COMPATIBLE else None
    return RaterChoice(kind, ss[state.LLM_MODEL].strip(), base_url or None, key_source)


def api_key_for(choice: RaterChoice) -> str | None:
    """The API key to hand to ``evaluate`` for ``choice`` (None for the simulated rater).

    A key typed into the sidebar or configured by the operator is passed to the engine, never
    stored or shown; without one the engine looks in the environment and ``.env`` itself.
    """
    if not choice.uses_llm:
        return None
    return st.session_state[state.LLM_API_KEY] or operator_api_key() or None
