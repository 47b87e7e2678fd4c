"""Raters: personas rate explanations, by LLM (``openai``) or by the built-in simulator (``simulated``)."""

from .agreement import rating_agreement
from .base import DIMENSIONS, Case, CaseFeature, Rater, Rating, RatingTask, UsageEstimate
from ..llm.cache import ResponseCache
from .factory import RATER_KINDS, make_rater, rater_from_config
from .llm import LLMRater
from .simulated import SIMULATED_MODEL, SimulatedRater

__all__ = ["DIMENSIONS", "RATER_KINDS", "SIMULATED_MODEL", "Case", "CaseFeature", "LLMRater", "Rater", "Rating",
           "RatingTask", "ResponseCache", "SimulatedRater", "UsageEstimate", "make_rater", "rater_from_config",
           "rating_agreement"]
