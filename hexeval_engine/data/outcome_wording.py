"""Wording the config leaves unset, read from the data: units from column names, outcomes from the target's labels.

``units_from_names(config, data)``  names and units from undescribed column names (``area_m2``: "area", m²)
``name_outcomes(config, data)``     the outcome wording from the target's own labels ("status churned")
``outcome_words(target, label)``    one class's name when nobody named it ("class 1 of diagnosis")
"""

from __future__ import annotations

import re

from ..config import HexevalConfig
from ..vocabulary import humanise
from .column_units import wording_from_names
from .dataset import Dataset


def _is_code(label) -> bool:
    """A class label that is a bare number or boolean (``0``, ``1.0``, ``True``), not a word."""
    return bool(re.fullmatch(r"[-+]?\d+(\.\d+)?|true|false", str(label).strip(), re.IGNORECASE))


def outcome_words(target: str, label) -> str:
    """How a class is named when nobody named it: a text label after the target's name ("status churned"), a bare
    code as a class of the target ("class 1 of malignant or benign"), never "The model predicts: 1"."""
    return f"class {label} of {target}" if _is_code(label) else f"{target} {label}"


def units_from_names(config: HexevalConfig, data: Dataset) -> HexevalConfig:
    """Names and units read from column names the domain leaves undescribed (``area_m2``: "area", m²)."""
    domain = config.domain
    numeric = set(data.numeric_features) | ({data.target} if data.is_regression else set())
    descriptions, units = wording_from_names(data.feature_names, data.target, numeric,
                                             domain.feature_descriptions, domain.units)
    if not descriptions and not units:
        return config
    return config.model_copy(update={"domain": domain.model_copy(update={
        "feature_descriptions": {**domain.feature_descriptions, **descriptions}, "units": {**domain.units, **units}})})


def name_outcomes(config: HexevalConfig, data: Dataset) -> HexevalConfig:
    """Outcome wording the config leaves unset becomes the target's own labels (``status churned``),
    so explanations, persona prompts and reports say what the model predicts instead of "positive outcome"."""
    domain = config.domain
    target = (domain.feature_descriptions.get(data.target) or humanise(data.target)).lower()
    if data.is_regression:  # each explanation names its case's prediction and band (technical.class_groups)
        words = {key: text for key, text in (("positive_outcome", f"{target} stays at the predicted level"),
                                             ("negative_outcome", f"{target} moves beyond the band"))
                 if key not in domain.model_fields_set}
        return config.model_copy(update={"domain": domain.model_copy(update=words)}) if words else config
    if data.n_classes > 2:  # each explanation names its own class (technical.class_groups)
        words = {key: text for key, text in (("positive_outcome", f"{target} is the class the explanation is for"),
                                             ("negative_outcome", f"{target} is another class"))
                 if key not in domain.model_fields_set}
        return config.model_copy(update={"domain": domain.model_copy(update=words)}) if words else config
    negative, positive = data.class_labels
    words = {key: outcome_words(target, label)
             for key, label in (("positive_outcome", positive), ("negative_outcome", negative))
             if key not in domain.model_fields_set}
    if not words:
        return config
    return config.model_copy(update={"domain": domain.model_copy(update=words)})
