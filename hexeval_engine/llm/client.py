"""A small cached chat client for the LLM narrator and extractor, on the LLM rater's machinery.

It reuses what the rater uses — the ``openai`` SDK (retries on 429/5xx/timeouts with its
backoff, honouring ``Retry-After``), the API-key lookup that never stores or logs the key
(:func:`~hexeval_engine.llm.credentials.resolve_api_key`, :func:`~...credentials.redact`), the
sqlite answer cache and its key (:class:`~hexeval_engine.llm.cache.ResponseCache`,
:func:`~...cache.cache_key`) and the token estimate (:func:`~...prompt.estimate_prompt_tokens`) —
and adds only what narratives need: any JSON schema as ``response_format`` (with a plain retry when
a server refuses it), a per-answer ``check`` so only usable answers are cached, and a thread pool.
A failure is returned as a :class:`ChatAnswer` with ``error`` set; nothing is invented.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Sequence

import openai

from ..errors import LLMError
from .cache import CachedAnswer, ResponseCache, cache_key
from .credentials import redact, resolve_api_key
from ..raters.prompt import estimate_prompt_tokens
from ..vocabulary import plural

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion to make: messages, an optional JSON schema, and a purpose for the cache key."""

    messages: list[dict]
    purpose: str  # "narrate" | "extract"; part of the cache key
    schema_name: str = ""
    schema: dict | None = None
    temperature: float = 0.0


@dataclass
class ChatAnswer:
    content: str = ""
    error: str = ""
    cached: bool = False
    calls: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.error


class ChatClient:
    """Cached, concurrent chat completions against OpenAI or any OpenAI-compatible server.

    Parameters
    ----------
    model, base_url, api_key, concurrency, timeout, max_retries, cache_path
        As for :class:`~hexeval_engine.raters.llm.LLMRater` (``personas`` settings by default).

    Raises
    ------
    LLMError
        No API key for the official endpoint, or a setting out of range.
    """

    def __init__(self, *, model: str, base_url: str | None = None, api_key: str | None = None, concurrency: int = 8,
                 timeout: float = 60.0, max_retries: int = 3, cache_path=None):
        if concurrency < 1 or timeout <= 0 or max_retries < 0:
            raise LLMError(f"Invalid LLM settings for narratives: concurrency={concurrency} (needs >= 1), "
                           f"timeout={timeout} (needs > 0), max_retries={max_retries} (needs >= 0). Fix the personas "
                           "section.")
        self.model, self.base_url = model, base_url
        self.concurrency, self.timeout = int(concurrency), float(timeout)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._structured = True
        self._fatal = ""
        http = openai.DefaultHttpxClient(event_hooks={"request": [self._on_request]})
        self._client = openai.OpenAI(api_key=resolve_api_key(api_key, base_url), base_url=base_url,
                                     timeout=self.timeout, max_retries=int(max_retries), http_client=http)
        self._cache = ResponseCache(cache_path) if cache_path is not None else None

    def __repr__(self) -> str:
        return f"ChatClient(model={self.model!r}, base_url={self.base_url!r})"

    def estimate(self, requests: Sequence[ChatRequest], completion_tokens: int) -> dict:
        """Requests still to send, those the cache answers, and their approximate tokens."""
        calls = cached = prompt = 0
        for r in requests:
            if self._cache is not None and self._cache.contains(self._key(r)):
                cached += 1
            else:
                calls += 1
                prompt += estimate_prompt_tokens(r.messages)
        return {"requests": len(requests), "calls": calls, "cached": cached, "prompt_tokens": prompt,
                "completion_tokens": calls * completion_tokens}

    def complete_many(self, requests: Sequence[ChatRequest], check, on_done: Callable[[int, int], None] | None = None
                      ) -> list[ChatAnswer]:
        """Answer ``requests`` (results in request order) with up to ``concurrency`` in flight.

        ``check(content)`` (one callable, or one per request) raises ``ValueError`` for an unusable
        answer: that answer becomes a failure and is not cached.
        """
        if not requests:
            return []
        checks = list(check) if isinstance(check, (list, tuple)) else [check] * len(requests)
        results: list[ChatAnswer | None] = [None] * len(requests)
        done = 0
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests)),
                                thread_name_prefix="hexeval-narrative") as pool:
            futures = [pool.submit(self.complete, r, c) for r, c in zip(requests, checks)]
            for i, future in enumerate(futures):
                results[i] = future.result()
                done += 1
                if on_done:
                    on_done(done, len(requests))
        return results

    def complete(self, request: ChatRequest, check: Callable[[str], None]) -> ChatAnswer:
        key = self._key(request)
        if self._cache is not None and (hit := self._cache.get(key)) is not None:
            try:
                check(hit.content)
                return ChatAnswer(hit.content, cached=True, prompt_tokens=hit.prompt_tokens,
                                  completion_tokens=hit.completion_tokens)
            except ValueError:
                pass  # an old entry that no longer passes: ask again
        if self._fatal:
            return ChatAnswer(error=f"not sent: an earlier request failed with {self._fatal}")
        self._local.requests = 0
        start = time.perf_counter()
        try:
            completion = self._send(request)
        except openai.OpenAIError as err:
            return ChatAnswer(error=self._describe(err), calls=self._local.requests,
                              retries=max(0, self._local.requests - 1), latency_s=time.perf_counter() - start)
        usage = completion.usage
        content = (completion.choices[0].message.content or "") if completion.choices else ""
        answer = ChatAnswer(content, calls=self._local.requests, retries=max(0, self._local.requests - 1),
                            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                            latency_s=time.perf_counter() - start)
        try:
            check(content)
        except ValueError as err:
            answer.error = f"unusable answer from {self.model}: {err}"
            return answer
        if self._cache is not None:
            try:
                self._cache.put(key, self.model, CachedAnswer(content, answer.prompt_tokens, answer.completion_tokens))
            except sqlite3.Error as err:  # the answer is fine; only a re-run will ask again
                log.warning("Could not store an LLM answer in the response cache %s: %s", self._cache.path, err)
        return answer

    def close(self) -> None:
        self._client.close()
        if self._cache is not None:
            self._cache.close()

    # -- internals ---------------------------------------------------------------------------------
    def _key(self, r: ChatRequest) -> str:
        params = {"endpoint": self.base_url or "openai", "temperature": r.temperature, "purpose": r.purpose,
                  "schema": r.schema_name}
        return cache_key(self.model, r.messages, params)

    def _on_request(self, request) -> None:
        self._local.requests = getattr(self._local, "requests", 0) + 1

    def _send(self, r: ChatRequest):
        kwargs = {}
        if r.schema is not None and self._structured:
            kwargs["response_format"] = {"type": "json_schema",
                                         "json_schema": {"name": r.schema_name, "strict": True, "schema": r.schema}}
        try:
            return self._client.chat.completions.create(model=self.model, messages=r.messages,
                                                        temperature=r.temperature, **kwargs)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as err:
            text = f"{err.message} {err.body}".lower()
            if not kwargs or not any(w in text for w in ("response_format", "json_schema", "structured output")):
                raise
            with self._lock:
                self._structured = False
            log.warning("The LLM server at %s refused response_format; asking for JSON in the prompt instead.",
                        self.base_url or "api.openai.com")
            return self._client.chat.completions.create(model=self.model, messages=r.messages,
                                                        temperature=r.temperature)

    def _describe(self, err: openai.OpenAIError) -> str:
        where = self.base_url or "api.openai.com"
        attempts = plural(self._local.requests, "attempt")
        if isinstance(err, openai.APITimeoutError):
            text = f"no answer from {where} within {self.timeout:g} s ({attempts}); raise personas.timeout_seconds"
        elif isinstance(err, openai.APIConnectionError):
            text = f"could not connect to {where} ({attempts}); check narratives.base_url and that the server runs"
        elif isinstance(err, openai.APIStatusError):
            message = err.body.get("error", err.body) if isinstance(err.body, dict) else err.message
            message = message.get("message", message) if isinstance(message, dict) else message
            text = f"HTTP {err.status_code} from {where} after {attempts}: {str(message)[:300]}"
            if err.status_code in (401, 403, 404):
                with self._lock:
                    self._fatal = self._fatal or f"HTTP {err.status_code}"
                text += f"; check the API key, the model name '{self.model}' and the server address"
        else:
            text = f"{type(err).__name__} from {where}: {err}"
        return redact(text, self._client.api_key)
