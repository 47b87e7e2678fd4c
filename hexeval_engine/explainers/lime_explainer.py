"""LIME weights per raw feature, towards the class the model predicted.

``lime.lime_tabular.LimeTabularExplainer`` runs on the coded training matrix (categorical
features declared as categorical, with their display labels as names); its ``predict_fn`` decodes
the perturbed rows to raw columns before calling the model, so each raw feature gets one weight.
``explainers.lime.num_features`` keeps its meaning: LIME reports at most that many features;
the others get weight 0. Each instance is explained with its own seed (the explainer's random
state is re-seeded per instance), so results do not depend on order, chunking or backend.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..explanation import Explanation
from .base import CodedPredictor, ExplainerSpace


class LimeExplainer:
    """Explain rows one by one with a shared ``LimeTabularExplainer``.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
    """

    method = "LIME"

    def __init__(self, model, data, config):
        from lime.lime_tabular import LimeTabularExplainer

        self.model, self.data, self.config = model, data, config
        self.settings = config.evaluation.explainers.lime
        self.space = ExplainerSpace.from_data(data)
        coder = data.coder
        names = {j: [coder.label(col, v) for v in coder.categories[col]]
                 for j, col in enumerate(coder.feature_names) if col in coder.categories}
        self.predictor = CodedPredictor(model, coder, max_cached_rows=20_000)
        self._lime = LimeTabularExplainer(
            self.space.train, mode="classification", feature_names=list(coder.feature_names),
            categorical_features=coder.categorical_indices, categorical_names=names,
            class_names=["0", "1"], discretize_continuous=True, random_state=0)

    def explain(self, X_raw: pd.DataFrame, instance_ids, classes, probabilities, seeds, *,
                on_instance=None) -> list[Explanation]:
        """One :class:`Explanation` per row; ``seeds[i]`` seeds the sampling for row ``i``."""
        M, filled = self.space.encode(X_raw)
        names = self.data.feature_names
        k = min(self.settings.num_features, len(names))
        out = []
        for i, iid in enumerate(instance_ids):
            start = time.perf_counter()
            cls = int(classes[i])
            self._lime.random_state.seed(int(seeds[i]) % (2**32))
            result = self._lime.explain_instance(M[i], self.predictor.proba, labels=(cls,), num_features=k,
                                                 num_samples=self.settings.num_samples)
            weights = dict(result.as_map()[cls])
            attributions = {f: float(weights.get(j, 0.0)) for j, f in enumerate(names)}
            extra = {"intercept": float(result.intercept[cls]), "local_r2": float(result.score),
                     "local_prediction": float(np.ravel(result.local_pred)[0]),
                     "conditions": {names[j]: text for j, text in _condition_texts(result, cls)}}
            if filled[i]:
                extra["filled_for_explainer"] = filled[i]
            out.append(Explanation(
                method=self.method, instance_id=int(iid), predicted_class=cls, probability=float(probabilities[i]),
                attributions=attributions, importance={f: abs(v) for f, v in attributions.items()},
                algorithm=f"LimeTabularExplainer ({self.settings.num_samples} samples, quartile discretisation)",
                seconds=time.perf_counter() - start, extra=extra))
            if on_instance is not None:
                on_instance()
        return out


def _condition_texts(result, cls):
    """LIME's own wording of each feature it used (e.g. ``age > 61.00``), by feature index."""
    domain = result.domain_mapper
    names = getattr(domain, "discretized_feature_names", None) or getattr(domain, "feature_names", None)
    if names is None:
        return []
    return [(j, str(names[j])) for j, _ in result.as_map()[cls]]
