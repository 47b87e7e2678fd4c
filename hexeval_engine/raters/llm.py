"""The LLM rater: personas simulated by OpenAI or any OpenAI-compatible server (via the ``openai`` SDK).

* Structured output: each request carries a strict JSON-schema ``response_format``; a server
  that rejects it (HTTP 400/422 naming ``response_format``) is asked again without it, and the
  rater keeps asking plainly from then on. Every answer goes through
  :func:`~hexeval_engine.raters.parsing.parse_rating`; an unusable answer is a failed rating.
* Retries: the SDK retries 408/409/429/5xx, timeouts and connection errors ``max_retries``
  times with exponential backoff, honouring ``Retry-After``/``retry-after-ms``. The rater counts
  every HTTP request it sends (through an ``httpx`` request hook) and reports
  ``calls`` and ``retries`` per rating.
* Concurrency: :meth:`LLMRater.rate_many` runs up to ``concurrency`` requests at once on daemon
  threads (:mod:`~hexeval_engine.raters.workers`); results come back in task order. Ctrl-C or the
  dashboard's Stop drops the queued ratings at once, and no request (or retry) is sent after it.
* Replies are read by :mod:`~hexeval_engine.raters.reply` (size cap, deadline, shape checks) and
  requests carry a completion-token limit, so an HTML page, invalid or huge JSON or a reply of the
  wrong shape is a failed rating with a short reason, never a crash.
* Cache: with ``cache_path`` set, valid answers are kept in a sqlite
  :class:`~hexeval_engine.llm.cache.ResponseCache`; a cached rating sends no request.
* Fatal errors (401/403/404: wrong key, no access, unknown model) stop further requests; the
  remaining ratings fail with that reason instead of repeating it.
* The API key is never logged, never stored on the rater's public attributes and is removed
  from everything the server sends back (answers before they are parsed or cached, error
  messages) by :func:`~hexeval_engine.llm.credentials.redact`.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from typing import Sequence

import httpx
import openai

from ..errors import LLMError
from ..vocabulary import plural
from .base import ProgressFn, Rating, RatingTask, UsageEstimate
from ..llm.cache import CachedAnswer, ResponseCache, cache_key
from ..llm.credentials import is_official_endpoint, redact, resolve_api_key
from .parsing import AnswerError, parse_rating
from .reply import ReplyError, read_reply
from .workers import run_all
from .prompt import COMPLETION_TOKENS_ESTIMATE, build_messages, estimate_prompt_tokens, response_format

log = logging.getLogger(__name__)

MAX_COMPLETION_TOKENS = 600
"""Completion-token limit sent with every request (a rating is about 160 tokens)."""

_FATAL_STATUS = {401: "the API key was rejected", 403: "the API key has no access to this model",
                 404: "the model or endpoint does not exist"}


class LLMRater:
    """Rate explanations with an LLM playing each persona.

    Parameters
    ----------
    model : str
        Chat model name (``gpt-4o-mini`` by default; any model the server serves).
    base_url : str, optional
        OpenAI-compatible endpoint, e.g. ``http://localhost:11434/v1`` (Ollama). ``None``: OpenAI.
    api_key : str, optional
        Overrides ``OPENAI_API_KEY``/``.env`` (the dashboard passes ``st.secrets`` here).
    concurrency : int
        Requests in flight at once.
    timeout : float
        Seconds per request attempt.
    max_retries : int
        Retries per rating on 429/5xx/timeouts (the SDK's backoff, honouring ``Retry-After``).
    temperature : float
        Sampling temperature.
    cache_path : str or Path, optional
        sqlite file (or folder) of the response cache; ``None`` disables caching.
    structured_output : bool
        Send a JSON-schema ``response_format`` (falls back automatically when refused).

    Raises
    ------
    LLMError
        No API key is configured for the official OpenAI endpoint, or a setting is out of range.
    """

    name = kind = "openai"

    def __init__(self, *, model: str = "gpt-4o-mini", base_url: str | None = None, api_key: str | None = None,
                 concurrency: int = 8, timeout: float = 60.0, max_retries: int = 3, temperature: float = 0.2,
                 cache_path=None, structured_output: bool = True):
        if concurrency < 1 or timeout <= 0 or max_retries < 0:
            raise LLMError(f"Invalid LLM rater settings: concurrency={concurrency} (needs >= 1), timeout={timeout} "
                           f"(needs > 0), max_retries={max_retries} (needs >= 0). Fix the personas section.")
        self.model = model
        self.base_url = base_url
        self.concurrency = int(concurrency)
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.temperature = float(temperature)
        self._structured = structured_output
        self._local = threading.local()
        self._lock = threading.Lock()
        self._fatal: str | None = None
        http_client = openai.DefaultHttpxClient(event_hooks={"request": [self._on_request]})
        self._client = openai.OpenAI(api_key=resolve_api_key(api_key, base_url), base_url=base_url,
                                     timeout=self.timeout, max_retries=self.max_retries, http_client=http_client)
        self._cache = ResponseCache(cache_path) if cache_path is not None else None

    def __repr__(self) -> str:
        return (f"LLMRater(model={self.model!r}, base_url={self.base_url!r}, concurrency={self.concurrency}, "
                f"timeout={self.timeout}, max_retries={self.max_retries}, cache={self.cache_path})")

    @property
    def cache_path(self):
        return self._cache.path if self._cache else None

    @property
    def structured_output(self) -> bool:
        """Whether requests still carry ``response_format`` (False after a server refused it)."""
        return self._structured

    # -- public interface --------------------------------------------------------------------------
    def estimate(self, tasks: Sequence[RatingTask]) -> UsageEstimate:
        """Requests and tokens needed for ``tasks`` (ratings already cached need none)."""
        calls = cached = prompt = 0
        for task in tasks:
            messages = build_messages(task)
            if self._cache is not None and self._cache.contains(self._key(task, messages)):
                cached += 1
                continue
            calls += 1
            prompt += estimate_prompt_tokens(messages)
        return UsageEstimate(len(tasks), calls, cached, prompt, calls * COMPLETION_TOKENS_ESTIMATE)

    def rate_many(self, tasks: Sequence[RatingTask], on_progress: ProgressFn | None = None) -> list[Rating]:
        """Rate ``tasks`` with up to ``concurrency`` requests in flight; results in task order.

        While waiting for answers, ``on_progress`` is called again every fraction of a second with
        the unchanged count (so the dashboard can honour Stop). An exception raised by it, or
        Ctrl-C, drops the queued ratings at once, stops retries and propagates.
        """
        total = len(tasks)

        def done(count: int, index: int) -> None:
            if on_progress:
                t = tasks[index]
                on_progress(count, total, f"{t.persona.name} rated {t.explanation.method} "
                                          f"(case {t.case.instance_id}, run {t.run + 1})")

        def waiting(count: int) -> None:
            if on_progress:
                on_progress(count, total, f"Waiting for answers from {self.model} ({count} of {total} rated)")

        return run_all(self._rate, tasks, workers=self.concurrency, on_result=done, on_wait=waiting)

    def rate(self, task: RatingTask) -> Rating:
        """Rate one task (cache first); a failure of any kind is returned as a failed Rating."""
        return self._rate(task, None)

    def _rate(self, task: RatingTask, stop: threading.Event | None) -> Rating:
        messages = build_messages(task)
        key = self._key(task, messages)
        if self._cache is not None and (hit := self._cache.get(key)) is not None:
            rating = self._from_answer(hit, cached=True)
            if rating.ok:
                return rating
        if self._fatal:
            return Rating.failed(f"not sent: an earlier request failed with {self._fatal}")
        self._local.requests = 0
        self._local.retries = 0
        self._local.stop = stop
        start = time.perf_counter()
        try:
            reply = self._complete(messages)
        except (openai.OpenAIError, ReplyError, httpx.HTTPError) as err:
            return Rating.failed(self._describe(err), latency_s=time.perf_counter() - start,
                                 calls=self._local.requests, retries=self._local.retries)
        latency = time.perf_counter() - start
        # Whatever the server sent passes the same redaction as logs before it is parsed, cached or shown.
        answer = CachedAnswer(self._redact(reply.content), reply.prompt_tokens, reply.completion_tokens)
        rating = self._from_answer(answer, cached=False)
        rating.latency_s, rating.calls, rating.retries = latency, self._local.requests, self._local.retries
        if rating.ok and self._cache is not None:
            try:
                self._cache.put(key, self.model, answer)
            except sqlite3.Error as err:  # the rating itself is fine; only the next run will ask again
                log.warning("Could not store an LLM answer in the response cache %s: %s", self._cache.path, err)
                rating.extra["cache_error"] = self._redact(str(err))
        return rating

    def close(self) -> None:
        self._client.close()
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> "LLMRater":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- internals ---------------------------------------------------------------------------------
    def _key(self, task: RatingTask, messages: list[dict]) -> str:
        params = {"endpoint": self.base_url or "openai", "temperature": self.temperature, "run": task.run}
        return cache_key(self.model, messages, params)

    def _on_request(self, request) -> None:
        stop = getattr(self._local, "stop", None)
        if stop is not None and stop.is_set():  # interrupted: no request (and no retry) leaves any more
            raise _Interrupted("the evaluation was interrupted before this request was sent")
        self._local.requests = getattr(self._local, "requests", 0) + 1

    def _create(self, messages: list[dict], structured: bool):
        before = getattr(self._local, "requests", 0)
        kwargs = {"response_format": response_format()} if structured else {}
        create = self._client.chat.completions.with_streaming_response.create
        try:
            with create(model=self.model, messages=messages, temperature=self.temperature,
                        **_length_limit(self.base_url), **kwargs) as response:
                return read_reply(response, deadline=time.monotonic() + self.timeout)
        finally:
            self._local.retries += max(0, self._local.requests - before - 1)

    def _complete(self, messages: list[dict]):
        if self._structured:
            try:
                return self._create(messages, structured=True)
            except (openai.BadRequestError, openai.UnprocessableEntityError) as err:
                if not _refuses_response_format(err):
                    raise
                with self._lock:
                    self._structured = False
                log.warning("The LLM server at %s refused response_format (%s); asking for JSON in the prompt "
                            "instead.", self.base_url or "api.openai.com", err.status_code)
        return self._create(messages, structured=False)

    def _from_answer(self, answer: CachedAnswer, *, cached: bool) -> Rating:
        tokens = {"prompt_tokens": answer.prompt_tokens, "completion_tokens": answer.completion_tokens}
        try:
            payload = parse_rating(answer.content)
        except AnswerError as err:
            return Rating.failed(f"unusable answer from {self.model}: {err}", cached=cached, **tokens)
        return Rating("ok", payload.scores, payload.comment, cached=cached, **tokens)

    def _redact(self, text: str) -> str:
        return redact(text, self._client.api_key)

    def _describe(self, err: Exception) -> str:
        where = self.base_url or "api.openai.com"
        attempts = plural(self._local.requests, "attempt")
        if isinstance(err, ReplyError):
            text = f"unusable reply from {where}: {err}"
        elif isinstance(err, httpx.HTTPError):
            text = f"the connection to {where} broke while the reply was read ({type(err).__name__})"
        elif isinstance(err, openai.APIConnectionError) and isinstance(err.__cause__, _Interrupted):
            text = "not sent: the evaluation was interrupted"
        elif isinstance(err, openai.APITimeoutError):
            text = (f"no answer from {where} within {self.timeout:g} s ({attempts}); raise "
                    "personas.timeout_seconds or check the server")
        elif isinstance(err, openai.APIConnectionError):
            text = f"could not connect to {where} ({attempts}); check personas.base_url and that the server runs"
        elif isinstance(err, openai.APIStatusError):
            text = f"HTTP {err.status_code} from {where} after {attempts}: {_status_message(err)}"
            if err.status_code in _FATAL_STATUS:
                fatal = f"HTTP {err.status_code} ({_FATAL_STATUS[err.status_code]})"
                with self._lock:
                    self._fatal = self._fatal or fatal
                text += f"; {_FATAL_STATUS[err.status_code]}: check the API key, model name '{self.model}' and base_url"
        else:
            text = f"{type(err).__name__} from {where}: {str(err)[:300]}"
        return self._redact(text)


class _Interrupted(Exception):
    """Raised by the request hook once the caller was interrupted (the SDK wraps it in APIConnectionError)."""


def _length_limit(base_url: str | None) -> dict:
    """The completion-token limit in the parameter the endpoint understands.

    OpenAI's current models take ``max_completion_tokens`` (and refuse ``max_tokens`` for
    reasoning models); OpenAI-compatible servers (Ollama, vLLM, LM Studio) take ``max_tokens``.
    """
    name = "max_completion_tokens" if is_official_endpoint(base_url) else "max_tokens"
    return {name: MAX_COMPLETION_TOKENS}


def _status_message(err: openai.APIStatusError) -> str:
    body = err.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    return str(err.message)[:300]


def _refuses_response_format(err: openai.APIStatusError) -> bool:
    text = f"{err.message} {err.body}".lower()
    return any(word in text for word in ("response_format", "json_schema", "structured output"))
