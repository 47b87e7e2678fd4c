"""Input limits for everything sent to an LLM: a cap per free-text value, a cap per prompt, a token estimate.

A text column of 100,000-character values must not turn each request into half a megabyte (memory,
money, and the server's context window). Every value placed in a prompt passes :func:`clip_value`
(at most :data:`MAX_VALUE_CHARS` characters) and every message :func:`clip_prompt` (at most
:data:`MAX_PROMPT_CHARS`); both say that they cut. The token estimate is the one the persona stage
compares with ``personas.max_prompt_tokens`` before sending anything.
"""

from __future__ import annotations

MAX_VALUE_CHARS = 200
"""Longest feature value (characters) shown in a prompt or an explanation text; longer ones are cut with '…'."""

MAX_PROMPT_CHARS = 24_000
"""Longest single message (characters, about 6,000 tokens) sent to an LLM; longer ones are cut with a note."""

_CUT_NOTE = "\n[... cut: this message was longer than {limit:,} characters]"


def clip_value(text: str, *, limit: int = MAX_VALUE_CHARS) -> str:
    """``text`` cut to ``limit`` characters (ending in '…' when cut)."""
    text = str(text)
    return text if len(text) <= limit else text[:max(1, limit - 1)] + "…"


def clip_prompt(text: str, *, limit: int = MAX_PROMPT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a note saying so."""
    if len(text) <= limit:
        return text
    note = _CUT_NOTE.format(limit=limit)
    return text[:max(0, limit - len(note))] + note


def clip_messages(messages: list[dict], *, limit: int = MAX_PROMPT_CHARS) -> list[dict]:
    """``messages`` with each content passed through :func:`clip_prompt`."""
    return [{**m, "content": clip_prompt(str(m.get("content", "")), limit=limit)} for m in messages]


def estimate_prompt_tokens(messages: list[dict]) -> int:
    """A rough token count (about four characters per token plus per-message overhead)."""
    return sum(len(m["content"]) // 4 + 4 for m in messages) + 3
