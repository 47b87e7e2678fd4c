"""An explainer that ignores the model: the same weights for every case (column order). It is there to be caught."""

from __future__ import annotations

from hexeval_engine.explainers.spec import MethodSpec
from hexeval_engine.explanation import Explanation


class ConstantExplainer:
    spec = MethodSpec("Constant", "attribution", "fixed weights by column order",
                      "The same weights for every case, whatever the model says.", color="#D55E00")
    method = "Constant"

    def __init__(self, model, data, config, *, seed=None):
        self.features = list(data.feature_names)

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds) -> list[Explanation]:
        weights = {f: 1.0 / (i + 1) for i, f in enumerate(self.features)}
        return [Explanation(method=self.method, instance_id=int(i), predicted_class=int(c), probability=float(p),
                            attributions=dict(weights), algorithm="constant")
                for i, c, p in zip(instance_ids, classes, probabilities)]
