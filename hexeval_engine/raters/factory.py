"""``make_rater``: the one way to obtain a rater, by name or from a config."""

from __future__ import annotations

from pathlib import Path

from ..config.schema import HexevalConfig
from ..errors import ConfigError
from ..paths import configured_outputs_root
from .base import Rater
from ..llm.cache import CACHE_FILE
from .llm import LLMRater
from .simulated import SimulatedRater

RATER_KINDS = ("simulated", "openai")


def make_rater(kind: str = "simulated", **options) -> Rater:
    """Create a rater.

    Parameters
    ----------
    kind : {"simulated", "openai"}
        ``"simulated"``: the deterministic built-in simulator (option: ``top_k``).
        ``"openai"``: an LLM via the ``openai`` SDK, against OpenAI or any OpenAI-compatible server
        (options: ``model``, ``base_url``, ``api_key``, ``concurrency``, ``timeout``,
        ``max_retries``, ``temperature``, ``cache_path``, ``structured_output``; see
        :class:`~hexeval_engine.raters.llm.LLMRater`).

    Raises
    ------
    ConfigError
        Unknown kind or option.
    LLMError
        ``"openai"`` without an API key for the official endpoint.
    """
    makers = {"simulated": SimulatedRater, "openai": LLMRater}
    if kind not in makers:
        raise ConfigError(f"Unknown rater '{kind}'. Use one of {', '.join(RATER_KINDS)} (personas.rater).")
    try:
        return makers[kind](**options)
    except TypeError as err:
        raise ConfigError(f"Invalid option for the {kind} rater: {err}. See make_rater's documentation.") from err


def rater_from_config(config: HexevalConfig, *, api_key: str | None = None, cache_dir=None,
                      operator_key: bool = False, allowed_urls: str | None = None) -> Rater:
    """The rater ``config.personas`` describes.

    ``api_key`` overrides the environment (the dashboard passes ``st.secrets`` here, with
    ``operator_key=True``: then it is scoped like the environment's key). The response
    cache lives in ``cache_dir`` (default: the outputs folder, ``config.output.dir``) when
    ``personas.cache`` is on.
    """
    p = config.personas
    if p.rater not in RATER_KINDS:
        raise ConfigError(f"Unknown rater '{p.rater}'. Use one of {', '.join(RATER_KINDS)} (personas.rater).")
    if p.rater == "simulated":
        return make_rater("simulated", top_k=p.top_k_features)
    folder = Path(cache_dir) if cache_dir is not None else configured_outputs_root(config.output.dir)
    return make_rater("openai", model=p.llm_model, base_url=p.base_url, api_key=api_key, concurrency=p.concurrency,
                      timeout=p.timeout_seconds, max_retries=p.max_retries, temperature=p.temperature,
                      cache_path=folder / CACHE_FILE if p.cache else None, call_deadline=p.call_deadline_seconds,
                      stage_deadline=p.stage_deadline_seconds, operator_key=operator_key,
                      allowed_urls=allowed_urls)
