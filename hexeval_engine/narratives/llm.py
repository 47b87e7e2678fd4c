"""The LLM narrator and the LLM extractor (structured output), through the one :class:`~hexeval_engine.llm.client.LLMClient`."""

from __future__ import annotations

from .facts import NarrativeFacts
from ..llm.client import ChatRequest, LLMClient
from .llm_prompts import (EXTRACT_COMPLETION_TOKENS, NARRATE_COMPLETION_TOKENS, NARRATIVE_SCHEMA, check_narrative,
                          extract_messages, extraction_schema, narrate_messages, parse_extraction)
from .results import Extraction, Narration


class LLMNarrator:
    """Narratives written by an LLM from the attribution table (one request per narrative, cached)."""

    kind = "openai"
    name = "openai"

    def __init__(self, client: LLMClient, *, temperature: float = 0.2):
        self.client, self.temperature = client, float(temperature)
        self.model = client.model
        self.label = f"LLM narrator ({client.model})"

    def requests(self, facts: list[NarrativeFacts]) -> list[ChatRequest]:
        return [ChatRequest(narrate_messages(f), "narrative", NARRATIVE_SCHEMA, self.temperature,
                            NARRATE_COMPLETION_TOKENS * 2, _params("narrate", "narrative", self.temperature))
                for f in facts]

    def estimate(self, facts: list[NarrativeFacts]) -> dict:
        return self.client.estimate(self.requests(facts), NARRATE_COMPLETION_TOKENS)

    def narrate_many(self, facts: list[NarrativeFacts], on_progress=None) -> list[Narration]:
        done, wait = _progress(on_progress, len(facts), "Narratives written")
        answers = self.client.complete_many(self.requests(facts), check_narrative, done, wait)
        return [Narration(text=check_narrative(a.content) if a.ok else "", error=a.error, cached=a.cached,
                          calls=a.calls, retries=a.retries, prompt_tokens=a.prompt_tokens,
                          completion_tokens=a.completion_tokens, latency_s=a.latency_s) for a in answers]

    def close(self) -> None:
        self.client.close()


class LLMExtractor:
    """Read back a narrative's features with an LLM (structured output, temperature 0, cached)."""

    def __init__(self, client: LLMClient):
        self.client = client
        self.name = f"openai:{client.model}"

    def requests(self, texts: list[str], facts: list[NarrativeFacts]) -> list[ChatRequest]:
        return [ChatRequest(extract_messages(t, f), "narrative_extraction", extraction_schema(f.features), 0.0,
                            EXTRACT_COMPLETION_TOKENS * 3, _params("extract", "narrative_extraction", 0.0))
                for t, f in zip(texts, facts)]

    def estimate(self, texts: list[str], facts: list[NarrativeFacts]) -> dict:
        return self.client.estimate(self.requests(texts, facts), EXTRACT_COMPLETION_TOKENS)

    def extract_many(self, texts: list[str], facts: list[NarrativeFacts], on_progress=None) -> list[Extraction]:
        done, wait = _progress(on_progress, len(facts), "Narratives read back")
        checks = [(lambda content, f=f: parse_extraction(content, f)) for f in facts]  # each against its case
        answers = self.client.complete_many(self.requests(texts, facts), checks, done, wait)
        out = []
        for a, f in zip(answers, facts):
            mentions = parse_extraction(a.content, f) if a.ok else ()
            out.append(Extraction(mentions, extractor=self.name, error=a.error, cached=a.cached, calls=a.calls,
                                  prompt_tokens=a.prompt_tokens, completion_tokens=a.completion_tokens))
        return out

    def close(self) -> None:
        self.client.close()


def _params(purpose: str, schema_name: str, temperature: float) -> dict:
    """Cache parameters of a narrative request (unchanged since the narrator had its own client)."""
    return {"temperature": temperature, "purpose": purpose, "schema": schema_name}


def _progress(on_progress, total: int, what: str):
    """``on_done``/``on_wait`` for the client from a stage's ``on_progress(done, total, message)``.

    ``on_wait`` lets the dashboard's Stop and Ctrl-C through while no answer arrives.
    """
    if on_progress is None:
        return None, None
    return ((lambda done, _index: on_progress(done, total, f"{what}: {done} of {total}")),
            (lambda done: on_progress(done, total, f"{what}: {done} of {total} (waiting for the server)")))
