"""Measurable properties of one explanation, as the simulated rater sees them.

Everything here is read from the :class:`~hexeval_engine.explanation.Explanation` itself (its
structure and its plain-language ``text``); nothing is guessed. See ``docs/simulated_rater.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..explanation import METHOD_FAMILY, Explanation
from .base import Case

JARGON = ("shap", "shapley", "lime", "attribution", "log-odds", "logit", "coefficient", "weight", "baseline",
          "base value", "expected value", "perturbation", "surrogate", "local model", "precision", "coverage",
          "counterfactual", "anchor", "marginal", "intercept", "kernel", "contribution")
"""Terms a non-technical reader does not know (matched as whole words, case-insensitive)."""

_NUMBER = re.compile(r"(?<![A-Za-z_])[-+]?\d+(?:[.,]\d+)?%?")


@dataclass(frozen=True)
class ExplanationProperties:
    """What the simulated rater measures.

    Attributes
    ----------
    family : {"attribution", "rule", "counterfactual"}
    items : tuple of str
        The concrete points the reader must take in: features (attributions), conditions (rule),
        changes (counterfactuals), in the order shown.
    features : tuple of str
        Distinct raw features the explanation speaks about.
    breadth : float
        ``len(features) / number of case features``.
    mass_covered : float or None
        Attributions only: share of total absolute attribution carried by the features shown.
    consistent : bool
        Attributions only: the shown attributions push towards the predicted class on balance.
    precision, coverage : float or None
        Rule only.
    cf_total, cf_valid : int
        Counterfactuals shown, and how many of them flip the prediction.
    actions : tuple of str
        Changes from the valid counterfactuals, e.g. "maximum heart rate from 150 to 172".
    words, numbers : int
        Words and numeric tokens in ``text``.
    jargon : tuple of str
        :data:`JARGON` terms found in ``text``.
    quality : float
        Evidence quality in [0, 1]: ``mass_covered`` for attributions (times 0.6 when not
        ``consistent``), ``precision`` for rules, ``cf_valid / cf_total`` for counterfactuals.
    """

    family: str
    items: tuple[str, ...]
    features: tuple[str, ...]
    breadth: float
    mass_covered: float | None
    consistent: bool
    precision: float | None
    coverage: float | None
    cf_total: int
    cf_valid: int
    actions: tuple[str, ...]
    words: int
    numbers: int
    jargon: tuple[str, ...]
    quality: float

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def validity(self) -> float:
        return self.cf_valid / self.cf_total if self.cf_total else 0.0


def measure(explanation: Explanation, case: Case, *, top_k: int = 5,
            value_labels: dict | None = None) -> ExplanationProperties:
    """Measure ``explanation`` of ``case``.

    ``top_k`` is used only when the text names none of the attributed features (then the
    ``top_k`` largest attributions are taken as shown). ``value_labels`` (the domain's
    ``{feature: {raw value: label}}``) words counterfactual changes.
    """
    text = explanation.text or ""
    family = METHOD_FAMILY.get(explanation.method, "attribution")
    common = dict(words=len(text.split()), numbers=len(_NUMBER.findall(text)), jargon=_jargon(text))
    n_features = max(1, len(case.features))
    if family == "rule" and explanation.rule is not None:
        conds = explanation.rule.conditions
        feats = tuple(dict.fromkeys(c.feature for c in conds))
        return ExplanationProperties(family, tuple(c.text for c in conds), feats, len(feats) / n_features, None, True,
                                     float(explanation.rule.precision), float(explanation.rule.coverage), 0, 0, (),
                                     quality=float(explanation.rule.precision), **common)
    if family == "counterfactual":
        return _counterfactual(explanation, case, n_features, common, value_labels or {})
    return _attribution(explanation, case, text, top_k, n_features, common)


def _attribution(explanation, case, text, top_k, n_features, common) -> ExplanationProperties:
    # a narrative tells its source's top attributions (it earns no attributions of its own)
    attributions = explanation.attributions or explanation.extra.get("source_attributions") or {}
    ranked = sorted(attributions.items(), key=lambda kv: -abs(kv[1]))
    lowered = text.lower()
    shown = [(f, v) for f, v in ranked if _mentions(lowered, f, case.description_of(f))]
    if not shown:
        shown = [(f, v) for f, v in ranked[:top_k] if v != 0]
    total = sum(abs(v) for v in attributions.values())
    mass = sum(abs(v) for _, v in shown) / total if total > 0 else 0.0
    consistent = sum(v for _, v in shown) > 0
    feats = tuple(f for f, _ in shown)
    quality = mass * (1.0 if consistent else 0.6)
    return ExplanationProperties("attribution", tuple(case.description_of(f) for f in feats), feats,
                                 len(feats) / n_features, mass, consistent, None, None, 0, 0, (),
                                 quality=quality, **common)


def _counterfactual(explanation, case, n_features, common, labels) -> ExplanationProperties:
    cfs = explanation.counterfactuals or []
    valid = [cf for cf in cfs if cf.flips]
    items, actions, feats = [], [], []
    for cf in cfs:
        for feature, (old, new) in cf.changes.items():
            vocab = labels.get(feature)
            change = f"{case.description_of(feature)} from {_fmt(old, vocab)} to {_fmt(new, vocab)}"
            items.append(change)
            feats.append(feature)
            if cf.flips:
                actions.append(change)
    feats = tuple(dict.fromkeys(feats))
    validity = len(valid) / len(cfs) if cfs else 0.0
    return ExplanationProperties("counterfactual", tuple(items), feats, len(feats) / n_features, None, True, None,
                                 None, len(cfs), len(valid), tuple(actions), quality=validity, **common)


def _mentions(lowered_text: str, feature: str, description: str) -> bool:
    names = {feature.lower(), description.lower(), description.split("(")[0].strip().lower()}
    return any(n and re.search(rf"(?<![a-z0-9_]){re.escape(n)}(?![a-z0-9_])", lowered_text) for n in names)


def _jargon(text: str) -> tuple[str, ...]:
    lowered = text.lower()
    return tuple(t for t in JARGON if re.search(rf"(?<![a-z]){re.escape(t)}s?(?![a-z])", lowered))


def _fmt(value, labels: dict | None) -> str:
    keys = [str(value)]
    if isinstance(value, float) and value.is_integer():
        keys.append(str(int(value)))
    for key in keys:
        if labels and key in labels:
            return str(labels[key])
    return f"{value:.4g}" if isinstance(value, float) else str(value)
