"""What one explanation *shows*, at its own displayed size or cut to a smaller one.

Public interface
----------------
``Shown``  the shown content of one explanation (kind, named features, weights, conditions, changes)
``read_shown(explanation, *, feature_names, top_k) -> (Shown | None, reason | None)``
``common_size(sizes) -> int``  the size every method of a case is compared at

Every question reads an explanation only through :class:`Shown`, built from what a reader is shown
(:func:`hexeval_engine.metrics.claims.named_features` decides which features that is):

* attributions (SHAP, LIME, Random, any method with signed attributions): the ``top_k`` non-zero
  attributions by absolute value with their signed weights, the explained class's probability and, for
  exact linear SHAP, the log-odds scale (``extra["output"] == "log-odds"``);
* a rule (Anchor): its conditions, in the order the rule lists them (the order the search added them:
  Ribeiro et al. 2018 grow an anchor greedily, so the first conditions are the ones that raised
  precision most);
* counterfactuals (DiCE): the changes of the first ``top_k`` counterfactuals shown.

An explanation with none of these (an unknown family, a narrative's text alone) is not read: the caller
records the reason and writes ``NaN``; nothing is guessed.

Cutting to a common size ``m`` (:meth:`Shown.cut`)
-------------------------------------------------
* attributions keep their top ``m`` features (the ones shown first);
* a rule keeps its conditions on its first ``m`` distinct features (a rule can hold several conditions
  on one feature, ``2 < x <= 5``; they stay together);
* counterfactuals keep their ``m`` largest changes: each changed feature is ranked by its largest change
  over the shown counterfactuals, in training standard deviations (a category change counts as one
  deviation), and every counterfactual keeps only its changes of the ``m`` top features (a counterfactual
  left with no change is dropped).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..claims import DISPLAY_TOP_K, named_features

ATTRIBUTION, RULE, COUNTERFACTUAL = "attribution", "rule", "counterfactual"


@dataclass(frozen=True)
class Shown:
    """The shown content of one explanation.

    Attributes
    ----------
    kind : str
        ``"attribution"``, ``"rule"`` or ``"counterfactual"``.
    features : tuple of str
        The distinct features it names, in the order it names them.
    weights : dict
        Attributions: ``{feature: signed weight towards the explained class}`` of the shown features.
    probability : float
        The explained class's probability as shown (the explanation's own units).
    log_odds : bool
        The weights are on the log-odds scale.
    conditions : tuple
        A rule's shown conditions (:class:`hexeval_engine.explanation.Condition`).
    changes : tuple of dict
        Counterfactuals: ``{feature: (old, new)}`` of each shown counterfactual.
    """

    kind: str
    features: tuple
    weights: dict
    probability: float
    log_odds: bool = False
    conditions: tuple = ()
    changes: tuple = ()

    @property
    def size(self) -> int:
        """Number of distinct features shown."""
        return len(self.features)

    @property
    def supporting(self) -> tuple:
        """The shown features the explanation says the answer rests on: an attribution's features with a positive
        weight towards the explained class (one with a negative weight is shown as pushing *against* it), a rule's
        features, the features a counterfactual changes to get the other answer."""
        if self.kind == ATTRIBUTION:
            return tuple(f for f in self.features if self.weights[f] > 0)
        return self.features

    def cut(self, m: int, *, scales: dict) -> "Shown":
        """This explanation cut to at most ``m`` features (see the module docstring); itself when it is no larger.

        ``scales`` maps a numeric feature to its training standard deviation (counterfactual changes are ranked
        in those units).
        """
        m = max(int(m), 0)
        if self.size <= m:
            return self
        if self.kind == ATTRIBUTION:
            kept = self.features[:m]
            return replace(self, features=kept, weights={f: self.weights[f] for f in kept})
        if self.kind == RULE:
            kept = self.features[:m]
            return replace(self, features=kept, conditions=tuple(c for c in self.conditions if c.feature in kept))
        size = {f: max(_change_size(change[f], scales.get(f)) for change in self.changes if f in change)
                for f in self.features}
        order = {f: j for j, f in enumerate(self.features)}
        kept = tuple(sorted(sorted(self.features, key=lambda f: (-size[f], order[f]))[:m], key=order.get))
        changes = tuple(c for c in ({f: v for f, v in change.items() if f in kept} for change in self.changes) if c)
        return replace(self, features=kept, changes=changes)


def _change_size(change: tuple, scale) -> float:
    old, new = change
    try:
        step = abs(float(new) - float(old))
    except (TypeError, ValueError):  # a category: one deviation
        return 1.0
    if not np.isfinite(step):
        return 1.0
    return step / scale if scale else step


def read_shown(explanation, *, feature_names, top_k: int = DISPLAY_TOP_K) -> tuple[Shown | None, str | None]:
    """What ``explanation`` shows, or ``(None, reason)`` when it shows nothing a reader can apply."""
    if explanation.error is not None:
        return None, f"the explanation failed ({explanation.error})"
    features = list(feature_names)
    named = named_features(explanation, feature_names=features, top_k=top_k)
    if named is None:
        return None, (f"the {explanation.method} explanation shows no attributions, rule or counterfactuals, so no "
                      "reader can apply it")
    probability = float(explanation.probability)
    if explanation.attributions is not None:
        weights = {f: float(explanation.attributions[f]) for f in named}
        log_odds = (explanation.extra or {}).get("output") == "log-odds"
        return Shown(ATTRIBUTION, tuple(named), weights, probability, log_odds=log_odds), None
    if explanation.rule is not None:
        columns = set(features)
        conditions = tuple(c for c in explanation.rule.conditions if c.feature in columns)
        return Shown(RULE, tuple(named), {}, probability, conditions=conditions), None
    columns = set(features)
    changes = tuple({f: tuple(v) for f, v in cf.changes.items() if f in columns}
                    for cf in explanation.counterfactuals[: int(top_k)])
    return Shown(COUNTERFACTUAL, tuple(named), {}, probability, changes=tuple(c for c in changes if c)), None


def common_size(sizes) -> int:
    """The smallest positive size among ``sizes`` (the non-baseline methods of one case); 1 when none is positive."""
    positive = [int(s) for s in sizes if int(s) >= 1]
    return min(positive) if positive else 1
