"""The LLM narrator and the LLM extractor (structured output), through :class:`ChatClient`."""

from __future__ import annotations

from .facts import NarrativeFacts
from ..llm.client import ChatClient, ChatRequest
from .llm_prompts import (EXTRACT_COMPLETION_TOKENS, NARRATE_COMPLETION_TOKENS, NARRATIVE_SCHEMA, check_narrative,
                          extract_messages, extraction_schema, narrate_messages, parse_extraction)
from .results import Extraction, Narration


class LLMNarrator:
    """Narratives written by an LLM from the attribution table (one request per narrative, cached)."""

    kind = "openai"
    name = "openai"

    def __init__(self, client: ChatClient, *, temperature: float = 0.2):
        self.client, self.temperature = client, float(temperature)
        self.model = client.model
        self.label = f"LLM narrator ({client.model})"

    def requests(self, facts: list[NarrativeFacts]) -> list[ChatRequest]:
        return [ChatRequest(narrate_messages(f), "narrate", "narrative", NARRATIVE_SCHEMA, self.temperature)
                for f in facts]

    def estimate(self, facts: list[NarrativeFacts]) -> dict:
        return self.client.estimate(self.requests(facts), NARRATE_COMPLETION_TOKENS)

    def narrate_many(self, facts: list[NarrativeFacts], on_progress=None) -> list[Narration]:
        done = (lambda d, t: on_progress(d, t, f"Narratives written: {d} of {t}")) if on_progress else None
        answers = self.client.complete_many(self.requests(facts), check_narrative, done)
        return [Narration(text=check_narrative(a.content) if a.ok else "", error=a.error, cached=a.cached,
                          calls=a.calls, retries=a.retries, prompt_tokens=a.prompt_tokens,
                          completion_tokens=a.completion_tokens, latency_s=a.latency_s) for a in answers]

    def close(self) -> None:
        self.client.close()


class LLMExtractor:
    """Read back a narrative's features with an LLM (structured output, temperature 0, cached)."""

    def __init__(self, client: ChatClient):
        self.client = client
        self.name = f"openai:{client.model}"

    def requests(self, texts: list[str], facts: list[NarrativeFacts]) -> list[ChatRequest]:
        return [ChatRequest(extract_messages(t, f), "extract", "narrative_extraction", extraction_schema(f.features),
                            0.0) for t, f in zip(texts, facts)]

    def estimate(self, texts: list[str], facts: list[NarrativeFacts]) -> dict:
        return self.client.estimate(self.requests(texts, facts), EXTRACT_COMPLETION_TOKENS)

    def extract_many(self, texts: list[str], facts: list[NarrativeFacts], on_progress=None) -> list[Extraction]:
        done = (lambda d, t: on_progress(d, t, f"Narratives read back: {d} of {t}")) if on_progress else None
        checks = [(lambda content, f=f: parse_extraction(content, f)) for f in facts]  # each against its case
        answers = self.client.complete_many(self.requests(texts, facts), checks, done)
        out = []
        for a, f in zip(answers, facts):
            mentions = parse_extraction(a.content, f) if a.ok else ()
            out.append(Extraction(mentions, extractor=self.name, error=a.error, cached=a.cached, calls=a.calls,
                                  prompt_tokens=a.prompt_tokens, completion_tokens=a.completion_tokens))
        return out

    def close(self) -> None:
        self.client.close()
