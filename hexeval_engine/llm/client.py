"""The one LLM client: every request HEXEval sends to OpenAI or an OpenAI-compatible server goes through it.

Persona raters, narrators and extractors build :class:`ChatRequest` objects and hand them to one
:class:`LLMClient`, the only place that constructs ``openai.OpenAI``. It owns every safeguard:

* **Key scoping** — :func:`~hexeval_engine.llm.credentials.resolve_api_key`: the operator's key
  goes only to OpenAI itself or the ``HEXEVAL_LLM_BASE_URLS`` allow-list, whatever URL is passed;
  credentials written into a base URL (``http://user:token@host``) are never shown or stored.
* **Errors** — the SDK's own types (``openai.APIConnectionError``, ``APITimeoutError``,
  ``APIStatusError``); the body is read by :func:`~hexeval_engine.llm.reply.read_reply` (size cap,
  deadline, shape checks) and a connection that breaks while it is read is a recorded failure.
* **Deadlines** — ``timeout`` per attempt (connect and each read), ``call_deadline`` for a whole
  call including the SDK's retries and a trickled body, ``stage_deadline`` for one
  :meth:`LLMClient.complete_many` (requests not yet sent when it passes fail with that reason).
* **Interrupts** — :meth:`LLMClient.complete_many` runs on daemon threads
  (:func:`~hexeval_engine.llm.workers.run_all`): Ctrl-C or the dashboard's Stop returns at once and
  no request or retry leaves after it.
* **Redaction** — every reply passes :func:`~hexeval_engine.llm.credentials.redact` before it is
  checked, cached, shown or saved; so does every error message.
* **Structured output, negotiated once per endpoint** — strict ``json_schema``, then
  ``json_object`` with the schema, then JSON asked for in the prompt (and extracted by
  :func:`~hexeval_engine.llm.json_text.json_object`). A refusal (any HTTP status whose message
  names the response format, e.g. llama-cpp-python's 500 "Input should be 'text' or 'json_object'")
  moves the endpoint to the next mode at once: a refusal is marked not to be retried, so it costs
  one request, not ``max_retries + 1``.
* **One usage record** — calls, retries, tokens and latency per answer (:class:`ChatAnswer`).
* **Cache** — with ``cache_path``, answers that passed their ``check`` are kept in a sqlite
  :class:`~hexeval_engine.llm.cache.ResponseCache`; a cached answer sends no request.

A failure is returned as a :class:`ChatAnswer` with ``error`` set; nothing is invented.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from ..errors import LLMError
from ..plain_values import describe_error
from ..vocabulary import plural
from .cache import CachedAnswer, ResponseCache, cache_key
from .credentials import is_official_endpoint, public_url, redact, resolve_api_key
from .limits import estimate_prompt_tokens
from .reply import ReplyError, read_reply
from .truncation import cut_off_reason, with_more_room
from .workers import run_all

if TYPE_CHECKING:
    import openai

log = logging.getLogger(__name__)


def _sdk():
    """The ``openai`` module, imported on first use: 0.33 s that an offline run (simulated personas, template
    narratives) and every ``hexeval`` command that makes no LLM call would otherwise pay at start-up."""
    import openai  # see the docstring: loaded only when an LLM client is made or one of its errors is read

    return openai

MODES = ("json_schema", "json_object", "prompt")
"""Structured-output modes, tried in this order; the first one an endpoint accepts is remembered."""

RETRY_WAIT_ALLOWANCE = 10.0
"""Seconds allowed per retry for the SDK's backoff (at most 8 s) in the default call deadline."""

_FATAL_STATUS = {401: "the API key was rejected", 403: "the API key has no access to this model",
                 404: "the model or endpoint does not exist"}
_REFUSAL_WORDS = ("response_format", "json_schema", "json_object", "structured output", "response format")

_negotiated: dict[tuple[str, str], str] = {}
_negotiated_lock = threading.Lock()
"""Process-wide memory of which mode each (endpoint, model) accepts, so raters and narrators ask once."""


#: Schema keywords OpenAI's strict structured outputs refuse; the ``json_object`` mode (llama.cpp's grammar) keeps them.
UNSTRICT_KEYWORDS = ("maxLength", "minLength")


def strict_schema(schema):
    """``schema`` without :data:`UNSTRICT_KEYWORDS`, at every depth, for strict ``json_schema`` mode."""
    if isinstance(schema, dict):
        return {k: strict_schema(v) for k, v in schema.items() if k not in UNSTRICT_KEYWORDS}
    if isinstance(schema, list):
        return [strict_schema(v) for v in schema]
    return schema


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion: messages, an optional JSON schema, the answer-length cap and cache parameters.

    ``cache_params`` (with the model, messages and endpoint) make the cache key; raters add the
    temperature and run index, narrators the purpose and schema name.
    """

    messages: list[dict]
    schema_name: str = ""
    schema: dict | None = None
    temperature: float = 0.0
    max_tokens: int = 600
    cache_params: dict = field(default_factory=dict)


@dataclass
class ChatAnswer:
    """An answer (``content`` redacted) or a failure (``error``), with its usage record."""

    content: str = ""
    error: str = ""
    cached: bool = False
    calls: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    mode: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


class _Stopped(Exception):
    """Raised by the request hook once the caller was interrupted or a deadline passed (no request leaves)."""


class LLMClient:
    """Cached, concurrent, deadline-bound chat completions against OpenAI or an OpenAI-compatible server.

    Parameters
    ----------
    model : str
        Chat model name.
    base_url : str, optional
        OpenAI-compatible endpoint (``None``: OpenAI).
    api_key : str, optional
        A key typed in with this URL, or the operator's key (scoped by :func:`resolve_api_key`).
    concurrency : int
        Requests in flight at once in :meth:`complete_many`.
    timeout : float
        Seconds per attempt (connect, and each wait for bytes).
    max_retries : int
        Retries on 429/5xx/timeouts (the SDK's backoff, honouring ``Retry-After``).
    cache_path : str or Path, optional
        sqlite file (or folder) of the answer cache; ``None``: no cache.
    call_deadline : float, optional
        Seconds one call may take in all (retries, their waits and a slow body included); default
        ``timeout × (max_retries + 1) + 10 × max_retries`` (:data:`RETRY_WAIT_ALLOWANCE` per retry).
    stage_deadline : float, optional
        Seconds one :meth:`complete_many` may take; ``None``: no limit.
    structured_output : bool
        Negotiate ``response_format`` (``False``: JSON asked for in the prompt only).
    setting : str
        The config section named in messages (``personas`` or ``narratives``).
    operator_key : bool
        ``api_key`` is the operator's own (e.g. the dashboard's ``st.secrets``): scoped to OpenAI
        and the allow-list like the ``OPENAI_API_KEY`` environment setting.
    allowed_urls : str, optional
        More allow-list entries (the dashboard's ``st.secrets`` value of ``HEXEVAL_LLM_BASE_URLS``).

    Raises
    ------
    LLMError
        No API key for the official endpoint, or a setting out of range.
    """

    def __init__(self, *, model: str, base_url: str | None = None, api_key: str | None = None, concurrency: int = 8,
                 timeout: float = 60.0, max_retries: int = 3, cache_path=None, call_deadline: float | None = None,
                 stage_deadline: float | None = None, structured_output: bool = True, setting: str = "personas",
                 operator_key: bool = False, allowed_urls: str | None = None):
        bad = [f"{name}={value}" for name, value, ok in (
            ("concurrency", concurrency, concurrency >= 1), ("timeout_seconds", timeout, timeout > 0),
            ("max_retries", max_retries, max_retries >= 0),
            ("call_deadline_seconds", call_deadline, call_deadline is None or call_deadline > 0),
            ("stage_deadline_seconds", stage_deadline, stage_deadline is None or stage_deadline > 0)) if not ok]
        if bad:
            raise LLMError(f"Invalid LLM settings in the {setting} section: {', '.join(bad)}. concurrency needs to be "
                           "at least 1, retries at least 0, the timeout and deadlines above 0.")
        self.model, self.base_url, self.setting = model, base_url, setting
        self.concurrency, self.timeout, self.max_retries = int(concurrency), float(timeout), int(max_retries)
        self.call_deadline = (float(call_deadline) if call_deadline else
                              self.timeout * (self.max_retries + 1) + RETRY_WAIT_ALLOWANCE * self.max_retries)
        self.stage_deadline = float(stage_deadline) if stage_deadline else None
        self.where = public_url(base_url) if base_url else "api.openai.com"
        self._endpoint = (public_url(base_url) if base_url else "openai", model)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._fatal = ""
        self._stage_end: float | None = None
        if not structured_output:
            with _negotiated_lock:
                _negotiated[self._endpoint] = "prompt"
        http = _sdk().DefaultHttpxClient(event_hooks={"request": [self._on_request], "response": [self._on_response]})
        self._client = _sdk().OpenAI(api_key=resolve_api_key(api_key, base_url, operator_key=operator_key,
                                                                     allowed_urls=allowed_urls), base_url=base_url,
                                     timeout=self.timeout, max_retries=self.max_retries, http_client=http)
        self._cache = ResponseCache(cache_path) if cache_path is not None else None

    def __repr__(self) -> str:
        return f"LLMClient(model={self.model!r}, endpoint={self.where!r})"

    @property
    def cache_path(self):
        return self._cache.path if self._cache else None

    @property
    def mode(self) -> str:
        """The structured-output mode the endpoint accepts (or is being tried with)."""
        with _negotiated_lock:
            return _negotiated.get(self._endpoint, MODES[0])

    # -- public interface --------------------------------------------------------------------------
    def is_cached(self, request: ChatRequest) -> bool:
        return self._cache is not None and self._cache.contains(self.key(request))

    def estimate(self, requests: Sequence[ChatRequest], completion_tokens: int) -> dict:
        """Requests still to send, those the cache answers, and their approximate tokens."""
        calls = cached = prompt = 0
        for r in requests:
            if self.is_cached(r):
                cached += 1
            else:
                calls += 1
                prompt += estimate_prompt_tokens(r.messages)
        return {"requests": len(requests), "calls": calls, "cached": cached, "prompt_tokens": prompt,
                "completion_tokens": calls * completion_tokens}

    def complete_many(self, requests: Sequence[ChatRequest], check, on_done: Callable[[int, int], None] | None = None,
                      on_wait: Callable[[int], None] | None = None) -> list[ChatAnswer]:
        """Answer ``requests`` (in request order) with up to ``concurrency`` in flight.

        ``check`` (one callable, or one per request) raises ``ValueError`` for an unusable answer:
        that answer becomes a failure and is not cached. ``on_done(done, index)`` follows each
        answer, ``on_wait(done)`` every fraction of a second without one; an exception from either,
        or Ctrl-C, drops the queued requests at once and propagates.
        """
        if not requests:
            return []
        checks = list(check) if isinstance(check, (list, tuple)) else [check] * len(requests)
        self._stage_end = time.monotonic() + self.stage_deadline if self.stage_deadline else None
        pairs = list(zip(requests, checks))
        return run_all(lambda pair, stop: self.complete(pair[0], pair[1], stop=stop), pairs,
                       workers=self.concurrency, on_result=on_done, on_wait=on_wait)

    def complete(self, request: ChatRequest, check: Callable[[str], object], *,
                 stop: threading.Event | None = None) -> ChatAnswer:
        """One answer (the cache first); a failure of any kind is returned with ``error`` set."""
        key = self.key(request)
        if self._cache is not None and (hit := self._cache.get(key)) is not None:
            try:
                check(hit.content)
                return ChatAnswer(hit.content, cached=True, prompt_tokens=hit.prompt_tokens,
                                  completion_tokens=hit.completion_tokens)
            except ValueError:
                pass  # an old entry that no longer passes: ask again
        if self._fatal:
            return ChatAnswer(error=f"not sent: an earlier request failed with {self._fatal}")
        if self._stage_end is not None and time.monotonic() > self._stage_end:
            return ChatAnswer(error=f"not sent: the stage deadline of {self.stage_deadline:g} s had passed; raise "
                                    f"{self.setting}.stage_deadline_seconds or send fewer requests")
        self._local.requests, self._local.retries, self._local.downgrades, self._local.stop = 0, 0, 0, stop
        start = time.monotonic()
        self._local.call_end = start + self.call_deadline
        sent, retried_for_length, used = request, False, (0, 0)
        while True:
            try:
                reply, mode = self._negotiate(sent)
            except (_sdk().OpenAIError, ReplyError) as err:
                return ChatAnswer(error=self._describe(err), calls=self._local.requests,
                                  retries=self._local.retries, latency_s=time.monotonic() - start)
            used = (used[0] + reply.prompt_tokens, used[1] + reply.completion_tokens)
            # Whatever the server sent is redacted before it is checked, cached, shown or saved.
            content = self._redact(reply.content)
            answer = ChatAnswer(content, calls=self._local.requests, retries=self._local.retries,
                                prompt_tokens=used[0], completion_tokens=used[1],
                                latency_s=time.monotonic() - start, mode=mode)
            try:
                check(content)
            except ValueError as err:
                if reply.finish_reason == "length" and not retried_for_length:
                    sent, retried_for_length = with_more_room(request), True  # once, with room and a shorter ask
                    continue
                answer.error = self._redact(f"unusable answer from {self.model}: "
                                            + (cut_off_reason(sent, retried_for_length, self.setting)
                                               if reply.finish_reason == "length" else str(err)))
                return answer
            break
        if self._cache is not None:
            try:
                self._cache.put(key, self.model, CachedAnswer(content, answer.prompt_tokens, answer.completion_tokens))
            except sqlite3.Error as err:  # the answer is fine; only a re-run will ask again
                log.warning("Could not store an LLM answer in the response cache: %s", self._redact(str(err)))
        return answer

    def key(self, r: ChatRequest) -> str:
        return cache_key(self.model, r.messages, {"endpoint": self.base_url or "openai", **r.cache_params})

    def close(self) -> None:
        self._client.close()
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> "LLMClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ---------------------------------------------------------------------------------
    def _on_request(self, request) -> None:
        stop = getattr(self._local, "stop", None)
        if stop is not None and stop.is_set():
            raise _Stopped("the evaluation was interrupted before this request was sent")
        call_end = getattr(self._local, "call_end", None)
        if call_end is not None and time.monotonic() > call_end:
            raise _Stopped(f"the call deadline of {self.call_deadline:g} s had passed")
        self._local.requests = getattr(self._local, "requests", 0) + 1

    def _negotiate(self, r: ChatRequest):
        while True:
            mode = self.mode if r.schema is not None else "prompt"
            try:
                return self._send(r, mode), mode
            except _sdk().APIStatusError as err:
                if mode == "prompt" or not _refuses_format(err):
                    raise
                self._downgrade(mode, err)
                self._local.downgrades += 1

    def _on_response(self, response) -> None:
        """Mark a refused response format as not worth retrying (the SDK obeys ``x-should-retry``).

        llama-cpp-python refuses ``json_schema`` with HTTP 500, which the SDK would retry
        ``max_retries`` times; the first refusal is enough to move to the next format.
        """
        if response.status_code < 400 or b"response_format" not in (response.request.content or b""):
            return
        response.read()
        if any(word in response.text.lower() for word in _REFUSAL_WORDS):
            response.headers["x-should-retry"] = "false"

    def _downgrade(self, mode: str, err: openai.APIStatusError) -> None:
        following = MODES[MODES.index(mode) + 1]
        with _negotiated_lock:
            if _negotiated.get(self._endpoint, MODES[0]) == mode:
                _negotiated[self._endpoint] = following
                log.warning("The LLM server at %s refused response_format %s (HTTP %s); using %s from now on.",
                            self.where, mode, err.status_code, following)

    def _send(self, r: ChatRequest, mode: str):
        kwargs = {"temperature": r.temperature, **_length_limit(self.base_url, r.max_tokens)}
        if mode == "json_schema":
            kwargs["response_format"] = {"type": "json_schema",
                                         "json_schema": {"name": r.schema_name or "answer", "strict": True,
                                                         "schema": strict_schema(r.schema)}}
        elif mode == "json_object":
            kwargs["response_format"] = {"type": "json_object", "schema": r.schema}
        create = self._client.chat.completions.with_streaming_response.create
        try:
            with create(model=self.model, messages=r.messages, **kwargs) as response:
                deadline = min(time.monotonic() + self.timeout, self._local.call_end)
                return read_reply(response, deadline=deadline)
        finally:  # every request after the first is a retry, except a resend in the next format
            self._local.retries = max(0, self._local.requests - 1 - self._local.downgrades)

    def _redact(self, text: str) -> str:
        return redact(text, self._client.api_key)

    def _describe(self, err: Exception) -> str:
        where = self.where
        attempts = plural(self._local.requests, "attempt")
        if isinstance(err, ReplyError):
            text = f"unusable reply from {where}: {err}"
        elif isinstance(err, _sdk().APIConnectionError) and isinstance(err.__cause__, _Stopped):
            text = f"not sent: {err.__cause__}"
        elif isinstance(err, _sdk().APITimeoutError):
            text = (f"no answer from {where} within {self.timeout:g} s ({attempts}); raise "
                    f"{self.setting}.timeout_seconds or check the server")
        elif isinstance(err, _sdk().APIConnectionError):
            text = f"could not connect to {where} ({attempts}); check {self.setting}.base_url and that the server runs"
        elif isinstance(err, _sdk().APIStatusError):
            text = f"HTTP {err.status_code} from {where} after {attempts}: {_status_message(err)}"
            if err.status_code in _FATAL_STATUS:
                with self._lock:
                    self._fatal = self._fatal or f"HTTP {err.status_code} ({_FATAL_STATUS[err.status_code]})"
                text += (f"; {_FATAL_STATUS[err.status_code]}: check the API key, the model name '{self.model}' "
                         "and the base URL")
        else:
            text = f"unexpected failure talking to {where}: {describe_error(err)}"
        return self._redact(text)


ChatClient = LLMClient
"""The narrator's earlier name for the client."""


def _length_limit(base_url: str | None, limit: int) -> dict:
    """The completion-token limit in the parameter the endpoint understands.

    OpenAI's current models take ``max_completion_tokens`` (and refuse ``max_tokens`` for
    reasoning models); OpenAI-compatible servers (Ollama, vLLM, LM Studio, llama.cpp) take ``max_tokens``.
    """
    return {"max_completion_tokens" if is_official_endpoint(base_url) else "max_tokens": int(limit)}


def _status_message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
        if isinstance(inner, str):
            return inner[:300]
    return str(err.message)[:300]


def _refuses_format(err: openai.APIStatusError) -> bool:
    """Whether an error of any status says the request's response format is not accepted."""
    text = f"{err.message} {err.body}".lower()
    return err.status_code >= 400 and any(word in text for word in _REFUSAL_WORDS)
