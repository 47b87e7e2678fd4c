"""Which narrator and extractor a config asks for (built early, so a missing key fails before any work)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config.schema import HexevalConfig
from ..errors import ConfigError
from ..explainers.registry import enabled_methods
from ..paths import configured_outputs_root
from .offline_extractor import OfflineExtractor
from .template import TemplateNarrator


@dataclass
class NarrativeTools:
    narrator: object  # TemplateNarrator | LLMNarrator
    extractor: object  # OfflineExtractor | LLMExtractor

    @property
    def offline(self) -> bool:
        """Whether both are HEXEval's own offline ones (no LLM: what they write is a function of their input)."""
        return isinstance(self.narrator, TemplateNarrator) and isinstance(self.extractor, OfflineExtractor)

    def close(self) -> None:
        self.narrator.close()
        if self.extractor is not self.narrator:
            self.extractor.close()


def check_narratives_config(config: HexevalConfig) -> None:
    """``ConfigError`` when narratives are on but their source method is switched off."""
    n = config.narratives
    if n.enabled and n.source not in enabled_methods(config):
        raise ConfigError(f"narratives.source is {n.source}, but {n.source} is switched off "
                          f"(evaluation.explainers.{n.source.lower()}.enabled: false). Enable it, set "
                          "narratives.source to an enabled attribution method (SHAP or LIME), or turn narratives "
                          "off (narratives.enabled: false; --no-narratives).")


def narrative_tools(config: HexevalConfig, data=None, *, api_key: str | None = None, cache_dir=None,
                    operator_key: bool = False, allowed_urls: str | None = None) -> NarrativeTools:
    """The narrator and extractor of ``config.narratives``.

    The LLM ones use the persona rater's connection settings (model and server unless
    ``narratives.llm_model``/``base_url`` override them; timeout, retries, concurrency and the
    answer cache in ``cache_dir``, default the outputs folder). ``data`` supplies the category
    labels the offline extractor recognises as stated values.

    Raises
    ------
    ConfigError
        The source method is switched off.
    LLMError
        An LLM is asked for but no API key is configured for the official endpoint.
    """
    check_narratives_config(config)
    n, p = config.narratives, config.personas
    categories = {}
    if data is not None:
        categories = {f: [data.coder.label(f, v) for v in values] for f, values in data.coder.categories.items()}
    offline = OfflineExtractor(categories)
    use_llm_extractor = n.extractor == "openai" or (n.extractor == "auto" and n.narrator == "openai")
    if n.narrator == "simulated" and not use_llm_extractor:
        return NarrativeTools(TemplateNarrator(), offline)
    from .llm import LLMExtractor, LLMNarrator  # the LLM narrator loads only when an LLM narrates
    from ..llm.client import LLMClient  # the LLM client loads only when an LLM narrates

    folder = Path(cache_dir) if cache_dir is not None else configured_outputs_root(config.output.dir)
    client = LLMClient(model=n.llm_model or p.llm_model, base_url=n.base_url or p.base_url, api_key=api_key,
                       concurrency=p.concurrency, timeout=p.timeout_seconds, max_retries=p.max_retries,
                       cache_path=folder if p.cache else None, call_deadline=p.call_deadline_seconds,
                       stage_deadline=p.stage_deadline_seconds, setting="narratives", operator_key=operator_key,
                       allowed_urls=allowed_urls)
    narrator = LLMNarrator(client, temperature=n.temperature) if n.narrator == "openai" else TemplateNarrator()
    extractor = LLMExtractor(client) if use_llm_extractor else offline
    return NarrativeTools(narrator, extractor)
