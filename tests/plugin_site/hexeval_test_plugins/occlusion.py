"""Occlusion attributions: how far the explained class's probability falls when one input takes other cases' values.

For each case and input, the input is replaced by its value in ``draws`` training rows (the rest of the case kept)
and the attribution is the case's probability of the explained class minus the mean over those rows (Zeiler &
Fergus 2014, occlusion; with values drawn from the data as in Covert, Lundberg & Lee 2021). One model call per case.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

from hexeval_engine.explainers.spec import MethodSpec
from hexeval_engine.explanation import Explanation


class OcclusionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    draws: int = Field(16, ge=1, le=500)


class OcclusionExplainer:
    """Occlusion with values drawn from the training rows."""

    spec = MethodSpec("Occlusion", "attribution", "occlusion attributions",
                      "How far the prediction falls when one input takes other cases' values.",
                      settings_key="occlusion", settings_model=OcclusionSettings, color="#0072B2", dash="dot",
                      symbol="pentagon")
    method = "Occlusion"

    def __init__(self, model, data, config, *, seed=None):
        self.model, self.data = model, data
        self.settings = self.spec.settings(config)
        self.seed = 0 if seed is None else int(seed)

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds) -> list[Explanation]:
        features = list(self.data.feature_names)
        train = self.data.X_train[features].reset_index(drop=True)
        out = []
        for k, iid in enumerate(instance_ids):
            start = time.perf_counter()
            rng = np.random.default_rng(int(seeds[k]))
            picks = train.iloc[rng.integers(0, len(train), self.settings.draws)].reset_index(drop=True)
            case = X_raw.iloc[[k]][features]
            rows = []
            for f in features:
                block = pd.concat([case] * len(picks), ignore_index=True)
                block[f] = picks[f].to_numpy()
                rows.append(block)
            proba = self.model.predict_proba(pd.concat(rows, ignore_index=True))[:, int(classes[k])]
            moved = proba.reshape(len(features), len(picks)).mean(axis=1)
            weights = {f: float(probabilities[k] - m) for f, m in zip(features, moved)}
            out.append(Explanation(method=self.method, instance_id=int(iid), predicted_class=int(classes[k]),
                                   probability=float(probabilities[k]), attributions=weights,
                                   algorithm="occlusion (training-row draws)", seconds=time.perf_counter() - start))
        return out
