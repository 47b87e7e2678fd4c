"""What a narrative is written from: the case, the prediction and the truncated attribution table.

:class:`NarrativeFacts` is built from one attribution explanation (SHAP or LIME) of one case;
the narrator writes from it and the faithfulness metrics check the narrative against it.
:func:`permuted` builds the manipulated facts of the validation check (Ichmoukhamedov, Hinns &
Martens, "How good is my story? Towards quantitative metrics for evaluating LLM-generated XAI
narratives"): the attribution values are shuffled among the top-n features, so a narrator that
follows its input faithfully tells a story the model did not tell.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..config.schema import Domain
from ..explanation import Explanation
from . import wording


@dataclass(frozen=True)
class FeatureFact:
    """One row of the attribution table a narrator sees.

    ``rank`` is 0 for the largest absolute attribution; ``rank_low``/``rank_high`` span the ranks
    of features whose absolute attribution ties with this one (equal to ``rank`` without ties).
    ``sign`` is +1 when the feature pushes towards the predicted outcome, -1 away from it.
    """

    feature: str
    label: str
    value: object
    value_text: str
    attribution: float
    rank: int
    rank_low: int
    rank_high: int
    sign: int


@dataclass(frozen=True)
class NarrativeFacts:
    """Everything one narrative is written from (and checked against)."""

    instance_id: int
    source_method: str
    audience: str  # "lay" | "professional"
    predicted_class: int
    probability: float  # of the predicted class
    outcome: str
    other_outcome: str
    top: tuple[FeatureFact, ...]  # in rank order
    case: tuple[tuple[str, str, str], ...]  # (feature, label, value text) for every feature
    domain: Domain
    manipulated: bool = False

    @property
    def features(self) -> list[str]:
        return [f for f, _, _ in self.case]

    def fact(self, feature: str) -> FeatureFact | None:
        return next((f for f in self.top if f.feature == feature), None)


def build_facts(explanation: Explanation, row: dict, data, domain: Domain, *, audience: str,
                top_n: int) -> NarrativeFacts:
    """The facts of one attribution explanation of one case.

    Parameters
    ----------
    explanation : Explanation
        A successful SHAP or LIME explanation (``attributions`` signed towards the predicted class).
    row : dict
        The case's raw values (feature -> value).
    data : Dataset
        Its ``coder`` words the values.
    domain : Domain
        Feature descriptions and outcome wording.
    audience : {"lay", "professional"}
    top_n : int
        Rows of the attribution table (features with a zero attribution are left out).
    """
    if explanation.attributions is None:
        raise ValueError(f"{explanation.method} explanation of case {explanation.instance_id} has no attributions "
                         "to narrate; narratives.source must be SHAP or LIME.")
    ranked = sorted(((f, float(v)) for f, v in explanation.attributions.items() if float(v) != 0.0),
                    key=lambda kv: -abs(kv[1]))[:top_n]
    top = _table(ranked, row, data, domain)
    case = tuple((f, wording.feature_label(f, domain), wording.value_text(f, row.get(f), data.coder))
                 for f in data.feature_names)
    view = explanation.extra.get("class_view")
    value = explanation.extra.get("value_view")
    if value:  # a regressor: the prediction, explained on one side of its band (technical.class_groups)
        outcome, probability = value["prediction_text"], float("nan")
        other = f"{value['quantity']} {'below' if value['direction'] > 0 else 'above'} the band"
    elif view:  # a multi-class model: the explained class against its rivals (technical.class_groups)
        outcome, other, probability = view["name"], view["rivals"], float(view["probability"])
    else:
        outcome = wording.outcome_text(explanation.predicted_class, domain)
        other = wording.outcome_text(1 - explanation.predicted_class, domain)
        probability = float(explanation.probability)
    return NarrativeFacts(int(explanation.instance_id), explanation.method, audience, int(explanation.predicted_class),
                          probability, outcome, other, top, case, domain)


def permuted(facts: NarrativeFacts, rng: np.random.Generator) -> NarrativeFacts:
    """``facts`` with the attribution values shuffled among the top features (never the identity order).

    The features and their values stay; which attribution belongs to which feature changes, so
    ranks and signs move. With fewer than two features, or all attributions equal, nothing can be
    permuted and the facts are returned unchanged (``manipulated`` stays False).
    """
    n = len(facts.top)
    values = [f.attribution for f in facts.top]
    if n < 2 or all(np.isclose(v, values[0], rtol=1e-9, atol=0) for v in values):
        return facts
    while True:
        order = rng.permutation(n)
        shuffled = [values[i] for i in order]
        if _changes_story(values, shuffled):
            break
    moved = [(f.feature, v) for f, v in zip(facts.top, shuffled)]
    moved.sort(key=lambda kv: -abs(kv[1]))
    by_feature = {f.feature: f for f in facts.top}
    top = []
    for fact in _ranks(moved):
        base = by_feature[fact[0]]
        top.append(replace(base, attribution=fact[1], rank=fact[2], rank_low=fact[3], rank_high=fact[4],
                           sign=1 if fact[1] > 0 else -1))
    return replace(facts, top=tuple(top), manipulated=True)


def _changes_story(values: list[float], shuffled: list[float]) -> bool:
    """True when some feature gets an attribution of a different size or sign."""
    return any(not np.isclose(a, b, rtol=1e-9, atol=0) for a, b in zip(values, shuffled))


def _table(ranked, row, data, domain) -> tuple[FeatureFact, ...]:
    out = []
    for feature, value, rank, low, high in _ranks(ranked):
        raw = row.get(feature)
        out.append(FeatureFact(feature, wording.feature_label(feature, domain), raw,
                               wording.value_text(feature, raw, data.coder), value, rank, low, high,
                               1 if value > 0 else -1))
    return tuple(out)


def _ranks(ranked: list[tuple[str, float]]):
    """(feature, value, rank, rank_low, rank_high) with tied absolute values sharing a rank span."""
    sizes = [abs(v) for _, v in ranked]
    for i, (feature, value) in enumerate(ranked):
        tied = [j for j, s in enumerate(sizes) if np.isclose(s, sizes[i], rtol=1e-9, atol=0)]
        yield feature, value, i, min(tied), max(tied)
