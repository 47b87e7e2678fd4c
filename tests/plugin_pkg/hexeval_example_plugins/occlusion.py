"""Occlusion attributions: how much the predicted class's probability drops, on average, when one input is
replaced by its value in other training rows (a fixed background sample drawn once).

One batched model call per case (the case and one copy per feature and background row). A real, if simple,
attribution method: it follows the model, so it should beat the random baseline on fidelity and change when
the model is randomised.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from hexeval_engine.explainers.spec import MethodSpec
from hexeval_engine.explanation import Explanation


class OcclusionSettings(BaseModel):
    """``evaluation.explainers.occlusion`` in a HEXEval config."""

    enabled: bool = True
    max_instances: int = Field(200, ge=1, description="explain at most this many of the sampled cases")
    background_size: int = Field(20, ge=1, le=500, description="training rows whose values replace an input")


class OcclusionExplainer:
    """Replace one feature at a time by background rows' values and read the change in the predicted class."""

    spec = MethodSpec(
        "Occlusion", "attribution", "occlusion attributions",
        "How much the prediction moves when one input is replaced by the values other people have.",
        settings_key="occlusion", settings_model=OcclusionSettings, color="#117733", dash="dashdot",
        symbol="triangle-up", has_stability=True, instance_cap="max_instances")
    method = "Occlusion"

    def __init__(self, model, data, config, *, seed: int):
        self.model = model
        self.features = list(data.feature_names)
        settings = config.evaluation.explainers.section("occlusion", OcclusionSettings)
        train = data.X_train[self.features]
        size = min(settings.background_size, len(train))
        self.background = train.sample(n=size, random_state=seed).reset_index(drop=True)

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds, **_options) -> list[Explanation]:
        """One explanation per row of ``X_raw`` (raw CSV columns), towards the class in ``classes``."""
        out = []
        for k, (iid, cls, prob) in enumerate(zip(instance_ids, classes, probabilities)):
            start = time.perf_counter()
            row = X_raw.iloc[[k]][self.features]
            b = len(self.background)
            blocks = [row]
            for feature in self.features:  # b copies of the case, this feature taken from the background rows
                block = pd.concat([row] * b, ignore_index=True)
                block[feature] = self.background[feature].to_numpy()
                blocks.append(block)
            proba = np.asarray(self.model.predict_proba(pd.concat(blocks, ignore_index=True)))[:, int(cls)]
            occluded = proba[1:].reshape(len(self.features), b).mean(axis=1)
            attributions = {f: float(proba[0] - occluded[j]) for j, f in enumerate(self.features)}
            out.append(Explanation(
                method=self.method, instance_id=int(iid), predicted_class=int(cls), probability=float(prob),
                attributions=attributions, importance={f: abs(v) for f, v in attributions.items()},
                algorithm="occlusion by background values", seconds=time.perf_counter() - start))
        return out
