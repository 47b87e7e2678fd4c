"""Read an OpenAI-compatible server's HTTP reply defensively: bounded size and time, checked shape.

The ``openai`` SDK trusts the server: an HTML page with status 200 (a wrong base URL) comes back
as a string and breaks attribute access, an invalid JSON body raises ``JSONDecodeError``, a
deeply nested one ``RecursionError``, and a huge one is read whole. The LLM rater therefore reads
the body itself through :func:`read_reply` and every way the reply can be wrong becomes a
:class:`ReplyError` with a short reason, which the rater records as a failed rating.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass

from ..plain_values import kind_of

log = logging.getLogger(__name__)

MAX_REPLY_BYTES = 1_000_000
"""Largest reply body read (1 MB; a rating's completion is about 1 KB)."""


class ReplyError(ValueError):
    """The server's reply is not a usable chat completion (the message says why, briefly)."""


@dataclass(frozen=True)
class Reply:
    content: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str = ""  # "length": the server cut the answer off at the completion-token limit


def read_reply(response, *, deadline: float) -> Reply:
    """Read and check a streamed ``openai`` API response.

    Parameters
    ----------
    response : openai APIResponse
        From ``client.chat.completions.with_streaming_response.create(...)``.
    deadline : float
        ``time.monotonic()`` value after which reading stops (a server trickling bytes cannot hold
        a rating longer than its timeout).

    Raises
    ------
    ReplyError
        Too large, too slow, not JSON, nested too deeply, or not shaped like a chat completion.
    """
    body = bytearray()
    chunks = response.iter_bytes()
    while True:
        try:
            chunk = next(chunks, None)
        except Exception as err:  # the SDK leaves body errors to its transport (httpx2 today): any is a failure
            raise ReplyError(f"the connection broke while the reply was read ({_reason(err)}); "
                             f"{len(body):,} bytes had arrived") from err
        if chunk is None:
            break
        body += chunk
        if len(body) > MAX_REPLY_BYTES:
            raise ReplyError(f"the reply is larger than {MAX_REPLY_BYTES:,} bytes; an answer is a few KB")
        if time.monotonic() > deadline:
            raise ReplyError("the reply did not finish arriving within the deadline (the server sent it too slowly)")
    return parse_completion(bytes(body), response.headers.get("content-type", ""))


def parse_completion(body: bytes, content_type: str = "") -> Reply:
    """The message text and token counts of a chat-completion body, or a :class:`ReplyError`."""
    try:
        data = json.loads(body)
    except RecursionError as err:
        raise ReplyError("the reply nests JSON too deeply to be a chat completion") from err
    except ValueError as err:  # JSONDecodeError and UnicodeDecodeError
        raise ReplyError(f"the reply is {_kind(body, content_type)}, not a JSON chat completion; check that "
                         "the base URL is the server's API address (it usually ends in /v1)") from err
    if not isinstance(data, dict):
        raise ReplyError(f"the reply is {kind_of(data)} of JSON, not a chat-completion object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ReplyError("the reply has no 'choices' list with a first choice")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ReplyError("the reply's first choice has no 'message' object")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ReplyError(f"the reply's message content is {kind_of(content)}, not text")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    finish = choices[0].get("finish_reason")
    return Reply(content or "", _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")),
                 finish if isinstance(finish, str) else "")


def _reason(err: Exception) -> str:
    """Why the reply broke off, in words (the error's type name goes to the log only), without addresses or paths."""
    name = type(err).__name__
    log.info("The reply broke off: %s", name)
    if "timeout" in name.lower():
        return "no bytes arrived within the timeout"
    return "the server closed the connection or sent incomplete data"


def _count(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _kind(body: bytes, content_type: str) -> str:
    head = body[:200].lstrip().lower()
    if "html" in content_type.lower() or head.startswith((b"<!doctype", b"<html", b"<")):
        return "an HTML page"
    if not body.strip():
        return "empty"
    return "not valid JSON"
