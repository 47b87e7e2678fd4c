"""A method that never looks at the model: the same attributions for every case (first feature largest).

It is named in a config (``evaluation.explainers.plugins``), has no settings, and must fail HEXEval's
model-randomisation check: its explanation of a randomised model is the explanation of the real one.
"""

from __future__ import annotations

from hexeval_engine.explainers.spec import MethodSpec
from hexeval_engine.explanation import Explanation


class FixedOrderExplainer:
    """Attributions ``1/1, 1/2, 1/3 …`` in column order, whatever the model and the case."""

    spec = MethodSpec("Fixed order", "attribution", "fixed attributions",
                      "The same weights for every case, in column order: ignores the model.")
    method = "Fixed order"

    def __init__(self, model, data, config, *, seed: int):
        self.features = list(data.feature_names)

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds, **_options) -> list[Explanation]:
        weights = {f: 1.0 / (j + 1) for j, f in enumerate(self.features)}
        return [Explanation(method=self.method, instance_id=int(iid), predicted_class=int(cls),
                            probability=float(prob), attributions=dict(weights), importance=dict(weights),
                            algorithm="fixed weights in column order")
                for iid, cls, prob in zip(instance_ids, classes, probabilities)]
