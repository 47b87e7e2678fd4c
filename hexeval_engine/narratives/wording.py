"""How narratives name features, values and outcomes — the one place to switch to the vocabulary layer.

Narrator, extractor and faithfulness checks all take their words from here, so the text a
narrator writes and the text the offline extractor looks for can never drift apart.
"""

from __future__ import annotations

from ..config.schema import Domain
from ..vocabulary import without_note

AUDIENCES = ("lay", "professional")
AUDIENCE_LABELS = {"lay": "lay readers (the person the decision is about)",
                   "professional": "professionals (the people who make the decision)"}


def audience_of_persona(persona_audience: str) -> str:
    """The narrative audience for a persona's ``audience`` (``end_user`` reads the lay narrative)."""
    return "lay" if persona_audience == "end_user" else "professional"


def feature_label(feature: str, domain: Domain) -> str:
    """The feature's description without its units: ``"resting blood pressure"`` for ``trestbps``."""
    return without_note(domain.feature_descriptions.get(feature, feature))


def feature_names_for_matching(feature: str, domain: Domain) -> list[str]:
    """Every way a text may name ``feature``, longest first (full description, short label, column)."""
    description = domain.feature_descriptions.get(feature, feature)
    names = {description, feature_label(feature, domain), feature, feature.replace("_", " ")}
    return sorted((n for n in names if n.strip()), key=len, reverse=True)


def value_text(feature: str, value, coder) -> str:
    """A raw value as people read it (value labels, integers without ``.0``, ``missing``)."""
    return coder.label(feature, value)


def outcome_text(predicted_class: int, domain: Domain) -> str:
    return domain.positive_outcome if predicted_class == 1 else domain.negative_outcome


def probability_text(probability: float) -> str:
    return f"{probability:.0%}"
