"""The one JSON extractor for LLM answers: a bare object, a fenced one, or the first object within prose.

Servers without structured output wrap JSON in prose or Markdown code fences; servers with it send
bare JSON. :func:`find_object` handles both in time linear in the answer's length (at most
:data:`MAX_CANDIDATES` embedded ``{`` positions are tried); raters and narrators use it alike.
"""

from __future__ import annotations

import json
import re

MAX_CANDIDATES = 20
"""How many ``{`` positions of a prose answer are tried as the start of the object."""


def find_object(text: str) -> dict | None:
    """The JSON object in ``text`` (bare, fenced, or the first one within prose), else ``None``.

    Raises
    ------
    RecursionError
        The JSON nests too deeply for the decoder (callers turn this into their own message).
    """
    stripped = unfence((text or "").strip())
    try:
        value = json.loads(stripped, strict=False)  # a raw line break inside a string (small models write them)
        if isinstance(value, dict):
            return value
    except json.JSONDecodeError:
        pass  # not bare JSON: look for an object embedded in prose below
    decoder = json.JSONDecoder(strict=False)
    for tried, match in enumerate(re.finditer(r"\{", text or "")):
        if tried >= MAX_CANDIDATES:
            break
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def unfence(text: str) -> str:
    """``text`` without a surrounding Markdown code fence (string operations only: linear time)."""
    if text.startswith("```"):
        newline = text.find("\n")
        text = text[newline + 1:] if newline >= 0 else text[3:]
    if text.endswith("```"):
        text = text[:-3]
    return text.strip()


def excerpt(text: str, limit: int = 80) -> str:
    """A short, quoted, one-line start of ``text`` for error messages ('the answer was empty' when blank)."""
    text = " ".join((text or "")[:limit * 4].split())
    return f"answer began: {text[:limit]!r}" if text else "the answer was empty"
