"""Answers the server cut off at the completion-token limit (``finish_reason == "length"``).

A small model (Gemma 3 270M through llama-cpp-python's server) often writes a long comment and is cut
off mid-JSON; the answer then "holds no JSON object", which said nothing about why (issue 36, item 14).
:class:`~hexeval_engine.llm.client.LLMClient` asks once more, with twice the room (at most
:data:`MAX_ROOM` tokens) and a request for a shorter comment (:func:`with_more_room`); an answer cut off
again is a failure whose reason says so (:func:`cut_off_reason`).
"""

from __future__ import annotations

import dataclasses

MAX_ROOM = 4096
"""Most completion tokens a retry asks for."""

SHORTER = ("Your previous answer was cut off before it ended. Answer again with the complete JSON object "
           "only, and keep every free-text field short: two sentences at most.")


def with_more_room(request):
    """``request`` (a :class:`~hexeval_engine.llm.client.ChatRequest`) with more room and a shorter-answer request."""
    room = min(max(2 * request.max_tokens, request.max_tokens + 256), MAX_ROOM)
    return dataclasses.replace(request, max_tokens=room,
                               messages=[*request.messages, {"role": "user", "content": SHORTER}])


def cut_off_reason(sent, retried: bool, setting: str) -> str:
    """Why an answer cut off at the length limit is unusable, and what to do about it."""
    again = (" also when asked again with more room and for a shorter comment" if retried else "")
    return (f"the answer was cut off at the length limit of {sent.max_tokens} tokens (the server reported "
            f"finish_reason 'length'){again}, so it is incomplete JSON. The model writes more than the answer "
            f"needs: a larger or instruction-tuned model usually fits (check {setting}.llm_model), or raise the "
            "server's own output limit if it has one.")
