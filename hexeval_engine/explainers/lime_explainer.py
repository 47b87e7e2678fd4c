"""LIME weights per raw feature, towards the class the model predicted.

``lime.lime_tabular.LimeTabularExplainer`` runs on the coded training matrix (categorical
features declared as categorical, with their display labels as names); its ``predict_fn`` decodes
the perturbed rows to raw columns before calling the model, so each raw feature gets one weight.
``explainers.lime.num_features`` keeps its meaning: LIME reports at most that many features;
the others get weight 0. Each instance is explained with its own seed (the explainer's random
state is re-seeded per instance), so results do not depend on order, chunking or backend.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from ..explanation import Explanation
from ..config.schema import LimeSettings
from .spec import MethodSpec
from .base import CodedPredictor, ExplainerSpace, budget_setting, failure_text, log_failure, rows_per_call
from .lime_regression import VectorisedLimeBase
from .lime_sampling import batched_undiscretize
from ..runtime.lockstep import run_lockstep

log = logging.getLogger(__name__)

#: Rows whose LIME samples share one model call (``POOL_SIZE * num_samples`` rows per call), at most:
#: fewer when the call would exceed the memory-aware row cap (:func:`~.base.rows_per_call`).
POOL_SIZE = 128


class LimeExplainer:
    """Explain rows one by one with a shared ``LimeTabularExplainer``.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
    """

    method = "LIME"

    def __init__(self, model, data, config, *, seed: int | None = None):  # seed: the uniform factory (unused)
        from lime.lime_tabular import LimeTabularExplainer  # heavy library: loaded only when LIME runs

        self.model, self.data, self.config = model, data, config
        self.settings = config.evaluation.explainers.lime
        self.space = ExplainerSpace.from_data(data)
        coder = data.coder
        names = {j: [coder.label(col, v) for v in coder.categories[col]]
                 for j, col in enumerate(coder.feature_names) if col in coder.categories}
        self.predictor = CodedPredictor(model, coder, cache=False)  # LIME's samples never repeat
        self._lime = LimeTabularExplainer(
            self.space.train, mode="classification", feature_names=list(coder.feature_names),
            categorical_features=coder.categorical_indices, categorical_names=names,
            class_names=["0", "1"], discretize_continuous=True, random_state=0)
        # Same surrogate fit as the library's, batched (lime_regression); check_random_state keeps the object.
        self._lime.base = VectorisedLimeBase.replacing(self._lime.base)
        # Same draws as the library's bin -> value step, one truncated-normal call for all features (lime_sampling).
        self._lime.discretizer.undiscretize = batched_undiscretize(self._lime.discretizer)

    def explain(self, X_raw: pd.DataFrame, instance_ids, classes, probabilities, seeds, *,
                on_instance=None) -> list[Explanation]:
        """One :class:`Explanation` per row; ``seeds[i]`` seeds the sampling for row ``i``.

        LIME asks the model once per row (``num_samples`` rows); those calls are pooled across
        rows (:func:`~.lockstep.run_lockstep`). The shared random state is re-seeded from the
        row's seed before its sampling and again after its model answer, so nothing a row draws
        depends on the other rows.
        """
        start = time.perf_counter()
        M, filled = self.space.encode(X_raw)
        names = self.data.feature_names
        k = min(self.settings.num_features, len(names))
        rng = self._lime.random_state

        def search(i):
            cls = int(classes[i])

            def run(predict):
                def predict_proba(Z):
                    p1 = predict(Z)
                    rng.seed((int(seeds[i]) + 1) % (2**32))
                    return np.column_stack([1.0 - p1, p1])

                rng.seed(int(seeds[i]) % (2**32))
                return self._lime.explain_instance(M[i], predict_proba, labels=(cls,), num_features=k,
                                                   num_samples=self.settings.num_samples)
            return run

        pool = max(1, min(POOL_SIZE, rows_per_call(len(names)) // self.settings.num_samples))
        results = run_lockstep([search(i) for i in range(len(M))], list(seeds), self.predictor.positive,
                               on_finish=None if on_instance is None else (lambda i: on_instance()),
                               max_together=pool, budget_seconds=self.settings.time_budget_seconds,
                               budget_setting=budget_setting("lime"))
        seconds = (time.perf_counter() - start) / max(len(M), 1)
        return [self._explanation(iid, int(classes[i]), float(probabilities[i]), results[i], filled[i], seconds)
                for i, iid in enumerate(instance_ids)]

    def _explanation(self, iid, cls, probability, result, filled, seconds) -> Explanation:
        base = dict(method=self.method, instance_id=int(iid), predicted_class=cls, probability=probability,
                    algorithm=f"LimeTabularExplainer ({self.settings.num_samples} samples, quartile discretisation)",
                    seconds=seconds)
        if isinstance(result, BaseException):
            log_failure(log, "LIME", iid, result)
            return Explanation(**base, error=failure_text(result))
        names = self.data.feature_names
        weights = dict(result.as_map()[cls])
        attributions = {f: float(weights.get(j, 0.0)) for j, f in enumerate(names)}
        extra = {"intercept": float(result.intercept[cls]), "local_r2": float(result.score),
                 "local_prediction": float(np.ravel(result.local_pred)[0]),
                 "conditions": {names[j]: text for j, text in _condition_texts(result, cls)}}
        if filled:
            extra["filled_for_explainer"] = filled
        return Explanation(**base, attributions=attributions, importance={f: abs(v) for f, v in attributions.items()},
                           extra=extra)


def _condition_texts(result, cls):
    """LIME's own wording of each feature it used (e.g. ``age > 61.00``), by feature index."""
    domain = result.domain_mapper
    names = getattr(domain, "discretized_feature_names", None) or getattr(domain, "feature_names", None)
    if names is None:
        return []
    return [(j, str(names[j])) for j, _ in result.as_map()[cls]]


SPEC = MethodSpec(
    "LIME", "attribution", "local surrogate attributions",
    "A small linear model fitted around this case: each input's weight in that local fit.",
    factory=LimeExplainer, settings_key="lime", settings_model=LimeSettings,
    color="#56B4E9", dash="dot", symbol="square",  # sky blue
    runs_in_helper=True, has_stability=True, seed_reruns=True, linear_in_output=True)
