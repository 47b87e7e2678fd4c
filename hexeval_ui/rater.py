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


def build_rater(choice: RaterChoice, config):
    """The engine's rater for ``config.personas`` (already overridden with ``choice``).

    A key typed into the sidebar or configured by the operator is passed to the engine, never
    stored or shown; without one the engine looks in the environment and ``.env`` itself.
    """
    from hexeval_engine.raters import rater_from_config

    key = (st.session_state[state.LLM_API_KEY] or operator_api_key()) if choice.uses_llm else None
    return rater_from_config(config, api_key=key or None)
