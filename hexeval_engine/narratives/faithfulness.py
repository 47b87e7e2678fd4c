"""Faithfulness of a narrative to the attribution it was written from.

The metrics follow Ichmoukhamedov, Hinns & Martens, "How good is my story? Towards quantitative
metrics for evaluating LLM-generated XAI narratives": features are extracted from the narrative
with the rank, sign and value it gives them, and compared with the attribution table.

* ``rank_agreement`` — share of extracted table features whose stated rank is their rank in the
  table (0 = largest absolute attribution; tied features accept any rank of their tie).
* ``sign_agreement`` — share of extracted table features whose stated direction (towards or away
  from the predicted outcome) is the sign of their attribution.
* ``value_agreement`` — share of extracted features with a stated value where it equals the case's
  value within formatting tolerance (rounding to the digits stated, thousands separators, a
  share written as a percentage).
* ``top_n_mentioned`` — share of the table's features the narrative names.
* ``hallucinated`` — features named that were not in the table (count; their names in
  ``hallucinated_features``).

Each is ``NaN`` when the narrative gives nothing to check (e.g. no stated value). A narrative is
*flagged* when rank or sign agreement is below its threshold, or cannot be computed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..metrics.registry import MetricSpec
from .facts import NarrativeFacts
from .results import Extraction

_SOURCE = ('Ichmoukhamedov, Hinns & Martens (2024), "How good is my story? Towards quantitative metrics for '
           'evaluating LLM-generated XAI narratives"')
NARRATIVE_METRICS: dict[str, MetricSpec] = {s.name: s for s in (
    MetricSpec("rank_agreement", "higher", "Share of the features a narrative names that it ranks as the "
               "attribution does", _SOURCE, ("narrative",), "faithfulness"),
    MetricSpec("sign_agreement", "higher", "Share of the features a narrative names whose direction (towards or "
               "away from the prediction) matches the attribution", _SOURCE, ("narrative",), "faithfulness"),
    MetricSpec("value_agreement", "higher", "Share of the feature values a narrative states that equal the case's "
               "values", _SOURCE, ("narrative",), "faithfulness"),
    MetricSpec("top_n_mentioned", "higher", "Share of the attribution table's features the narrative names",
               _SOURCE, ("narrative",), "faithfulness"),
    MetricSpec("hallucinated", "lower", "Features a narrative names that were not in the attribution table it was "
               "given", _SOURCE, ("narrative",), "faithfulness"),
)}
"""Direction and meaning of each narrative metric (the same :class:`MetricSpec` as the technical metrics)."""


@dataclass(frozen=True)
class FeatureCheck:
    """One feature of a narrative against the table (one row of ``narrative_extractions.csv``)."""

    feature: str
    label: str
    in_table: bool
    mentioned: bool
    true_rank: int | None
    stated_rank: int | None
    rank_ok: bool | None
    true_sign: int | None
    stated_sign: int | None
    sign_ok: bool | None
    true_value: str
    stated_value: str | None
    value_ok: bool | None


@dataclass(frozen=True)
class Faithfulness:
    rank_agreement: float
    sign_agreement: float
    value_agreement: float
    top_n_mentioned: float
    hallucinated: int
    hallucinated_features: tuple[str, ...]
    n_mentioned: int
    checks: tuple[FeatureCheck, ...]

    def as_dict(self) -> dict:
        return {"rank_agreement": self.rank_agreement, "sign_agreement": self.sign_agreement,
                "value_agreement": self.value_agreement, "top_n_mentioned": self.top_n_mentioned,
                "hallucinated": self.hallucinated, "n_mentioned": self.n_mentioned}


def score(extraction: Extraction, truth: NarrativeFacts, raw_values: dict) -> Faithfulness:
    """Compare what a narrative says (``extraction``) with the true attribution table ``truth``.

    ``raw_values`` are the case's raw feature values (for value agreement).
    """
    by_feature = {m.feature: m for m in extraction.mentions}
    labels = {f: label for f, label, _ in truth.case}
    texts = {f: text for f, _, text in truth.case}
    checks = []
    for fact in truth.top:
        m = by_feature.get(fact.feature)
        rank = m.rank if m else None
        sign = m.sign if m else None
        value = m.value if m else None
        checks.append(FeatureCheck(
            fact.feature, fact.label, True, m is not None, fact.rank, rank,
            None if rank is None else fact.rank_low <= rank <= fact.rank_high, fact.sign, sign,
            None if sign is None else sign == fact.sign, fact.value_text, value,
            None if value is None else value_matches(value, raw_values.get(fact.feature), fact.value_text)))
    table = {f.feature for f in truth.top}
    extra = [m for m in extraction.mentions if m.feature not in table]
    for m in extra:
        checks.append(FeatureCheck(
            m.feature, labels.get(m.feature, m.feature), False, True, None, m.rank, None, None, m.sign, None,
            texts.get(m.feature, ""), m.value,
            None if m.value is None else value_matches(m.value, raw_values.get(m.feature), texts.get(m.feature, ""))))
    return Faithfulness(_share([c.rank_ok for c in checks]), _share([c.sign_ok for c in checks]),
                        _share([c.value_ok for c in checks]),
                        sum(c.mentioned for c in checks if c.in_table) / len(truth.top) if truth.top else math.nan,
                        len(extra), tuple(m.feature for m in extra), len(extraction.mentions), tuple(checks))


def flag(faith: Faithfulness | None, *, min_rank: float, min_sign: float) -> tuple[bool, str]:
    """(flagged, reason in words): below a threshold, or impossible to check."""
    if faith is None:
        return True, "its faithfulness could not be checked (the narrative could not be read back)"
    reasons = []
    for name, value, threshold in (("rank", faith.rank_agreement, min_rank), ("sign", faith.sign_agreement, min_sign)):
        if math.isnan(value):
            reasons.append(f"it states no {name} for any feature of the attribution table, so its {name} "
                           "agreement cannot be checked")
        elif value < threshold:
            word = "ranks" if name == "rank" else "directions"
            reasons.append(f"{name} agreement {value:.2f} is below the required {threshold:.2f} (it misstates the "
                           f"{word} of features)")
    return bool(reasons), "; ".join(reasons)


def value_matches(stated: str, raw, shown: str) -> bool:
    """Whether a stated value equals the case's value within formatting tolerance.

    Text values match the label shown to people or the raw value, ignoring case and spacing.
    Numbers match when the true value rounds to the stated one at the stated number of decimals
    (``1.4`` for 1.43), ignoring currency signs and thousands separators; a percentage matches
    a share (``25%`` for 0.25).
    """
    s = stated.strip()
    if _norm(s) in {_norm(shown), _norm(str(raw))}:
        return True
    number = _number(s)
    truth = _as_float(raw)
    if number is None or truth is None:
        return False
    decimals = len(s.split(".")[1].rstrip("%")) if "." in s else 0
    tolerance = 0.5 * 10 ** -decimals + 1e-9
    if abs(number - truth) <= tolerance:
        return True
    return s.endswith("%") and abs(number / 100 - truth) <= tolerance / 100


def _share(flags: list[bool | None]) -> float:
    known = [f for f in flags if f is not None]
    return sum(known) / len(known) if known else math.nan


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().lower()


def _number(text: str) -> float | None:
    cleaned = text.replace(",", "").replace("$", "").replace("%", "").replace("−", "-").strip()
    try:
        return float(cleaned)
    except ValueError:
        return None


def _as_float(value) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out
