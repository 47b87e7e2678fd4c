"""The LLM rater: personas simulated by OpenAI or any OpenAI-compatible server, through the one LLM client.

Every safeguard lives in :class:`~hexeval_engine.llm.client.LLMClient` (key scoping, the SDK's own
error types, deadlines per call and per stage, redaction before parsing or caching, structured
output negotiated once per endpoint, interrupts within a fraction of a second, the answer cache).
This module only turns a :class:`~hexeval_engine.raters.base.RatingTask` into a request and an
answer into a :class:`~hexeval_engine.raters.base.Rating`: every answer goes through
:func:`~hexeval_engine.raters.parsing.parse_rating`, an unusable one is a failed rating, and a
failed call stays a failure (nothing is invented).
"""

from __future__ import annotations

import threading
from typing import Sequence

from ..llm.client import MODES, ChatAnswer, ChatRequest, LLMClient
from .base import ProgressFn, Rating, RatingTask, UsageEstimate
from .parsing import parse_rating
from .prompt import COMPLETION_TOKENS_ESTIMATE, build_messages, estimate_prompt_tokens, rating_json_schema

MAX_COMPLETION_TOKENS = 600
"""Completion-token limit sent with every request (a rating is about 160 tokens)."""


class LLMRater:
    """Rate explanations with an LLM playing each persona.

    Parameters
    ----------
    model : str
        Chat model name (``gpt-4o-mini`` by default; any model the server serves).
    base_url : str, optional
        OpenAI-compatible endpoint, e.g. ``http://localhost:11434/v1`` (Ollama). ``None``: OpenAI.
    api_key : str, optional
        A key typed in for this endpoint, or the operator's key (scoped: it goes only to OpenAI or
        the operator's allow-list, see :func:`~hexeval_engine.llm.credentials.resolve_api_key`).
    concurrency, timeout, max_retries, cache_path, call_deadline, stage_deadline
        As for :class:`~hexeval_engine.llm.client.LLMClient`.
    temperature : float
        Sampling temperature.
    structured_output : bool
        Negotiate ``response_format`` (falls back automatically when refused).
    operator_key : bool
        ``api_key`` is the operator's (the dashboard's ``st.secrets``), not one typed in.
    allowed_urls : str, optional
        More allow-list entries for the operator's key (the dashboard's ``st.secrets``).

    Raises
    ------
    LLMError
        No API key is configured for the official OpenAI endpoint, or a setting is out of range.
    """

    name = kind = "openai"

    def __init__(self, *, model: str = "gpt-4o-mini", base_url: str | None = None, api_key: str | None = None,
                 concurrency: int = 8, timeout: float = 60.0, max_retries: int = 3, temperature: float = 0.2,
                 cache_path=None, structured_output: bool = True, call_deadline: float | None = None,
                 stage_deadline: float | None = None, operator_key: bool = False, allowed_urls: str | None = None):
        self.client = LLMClient(model=model, base_url=base_url, api_key=api_key, concurrency=concurrency,
                                timeout=timeout, max_retries=max_retries, cache_path=cache_path,
                                call_deadline=call_deadline, stage_deadline=stage_deadline,
                                structured_output=structured_output, setting="personas", operator_key=operator_key,
                                allowed_urls=allowed_urls)
        self.model, self.base_url = model, base_url
        self.concurrency, self.timeout, self.max_retries = self.client.concurrency, self.client.timeout, int(max_retries)
        self.temperature = float(temperature)

    def __repr__(self) -> str:
        return (f"LLMRater(model={self.model!r}, endpoint={self.client.where!r}, concurrency={self.concurrency}, "
                f"timeout={self.timeout}, max_retries={self.max_retries}, cache={self.cache_path})")

    @property
    def cache_path(self):
        return self.client.cache_path

    @property
    def structured_output(self) -> bool:
        """Whether requests still carry a ``response_format`` (False once the server refused every kind)."""
        return self.client.mode != MODES[-1]

    # -- public interface --------------------------------------------------------------------------
    def request(self, task: RatingTask) -> ChatRequest:
        """The chat request for ``task`` (its cache key is the model, messages, endpoint, temperature and run)."""
        return ChatRequest(build_messages(task), "explanation_rating", rating_json_schema(), self.temperature,
                           MAX_COMPLETION_TOKENS, {"temperature": self.temperature, "run": task.run})

    def estimate(self, tasks: Sequence[RatingTask]) -> UsageEstimate:
        """Requests and tokens needed for ``tasks`` (ratings already cached need none)."""
        calls = cached = prompt = 0
        for task in tasks:
            request = self.request(task)
            if self.client.is_cached(request):
                cached += 1
                continue
            calls += 1
            prompt += estimate_prompt_tokens(request.messages)
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

        answers = self.client.complete_many([self.request(t) for t in tasks], parse_rating, done, waiting)
        return [_rating(a) for a in answers]

    def rate(self, task: RatingTask) -> Rating:
        """Rate one task (cache first); a failure of any kind is returned as a failed Rating."""
        return self._rate(task, None)

    def _rate(self, task: RatingTask, stop: threading.Event | None) -> Rating:
        return _rating(self.client.complete(self.request(task), parse_rating, stop=stop))

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> "LLMRater":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _rating(answer: ChatAnswer) -> Rating:
    usage = {"cached": answer.cached, "prompt_tokens": answer.prompt_tokens,
             "completion_tokens": answer.completion_tokens}
    if not answer.ok:
        rating = Rating.failed(answer.error, **usage)
    else:
        payload = parse_rating(answer.content)
        rating = Rating("ok", payload.scores, payload.comment, **usage)
    if not answer.cached:
        rating.latency_s, rating.calls, rating.retries = answer.latency_s, answer.calls, answer.retries
    return rating
