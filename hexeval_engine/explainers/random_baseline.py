"""The ``Random`` sanity baseline: attributions drawn at random, independent of the model.

A baseline that *should lose* (Adebayo et al. 2018, *Sanity Checks for Saliency Maps*; Quantus'
``RandomLogit`` idea). It is measured with exactly the same metrics as every method, on the same
cases, so each method's fidelity can be reported as a paired difference from it; it is never
recommendable (family ``baseline``).

Each instance gets signed attributions ``z_j ~ N(0, 1)`` drawn from the instance's own seed
(:func:`~hexeval_engine.explainers.base.instance_seed`), rescaled so that the absolute values sum to
0.5 (a scale comparable to probability-unit attributions; every metric HEXEval computes is
scale-free). The draw never looks at the model, so:

* its deletion/insertion curves are those of a random feature ordering;
* a noisy copy of an instance gets a fresh draw (its own seed), so it is unstable by design;
* re-explaining the same instance of a *different* model gives the same vector, which the
  model-randomisation check must flag.
"""

from __future__ import annotations

import time

import numpy as np

from ..explanation import BASELINE_METHOD, Explanation
from .spec import MethodSpec

#: Sum of absolute random attributions per instance.
ATTRIBUTION_MASS = 0.5


class RandomExplainer:
    """Explainer interface (``method``, ``explain``) for the random-attribution baseline.

    Parameters
    ----------
    model, data, config
        As for every explainer; only ``data.feature_names`` is used.
    """

    method = BASELINE_METHOD

    def __init__(self, model, data, config, *, seed: int | None = None):  # seed: the uniform factory (unused)
        self.features = list(data.feature_names)

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds, *, on_instance=None) -> list[Explanation]:
        """One random attribution vector per row, from that row's seed."""
        out = []
        for iid, cls, prob, seed in zip(instance_ids, classes, probabilities, seeds):
            start = time.perf_counter()
            z = np.random.default_rng(int(seed)).standard_normal(len(self.features))
            total = float(np.abs(z).sum())
            z = z * (ATTRIBUTION_MASS / total) if total > 0 else z
            attributions = {f: float(v) for f, v in zip(self.features, z)}
            out.append(Explanation(
                method=self.method, instance_id=int(iid), predicted_class=int(cls), probability=float(prob),
                attributions=attributions, importance={f: abs(v) for f, v in attributions.items()},
                algorithm="random normal attributions (sanity baseline)",
                seconds=time.perf_counter() - start))
            if on_instance is not None:
                on_instance()
        return out


SPEC = MethodSpec(
    BASELINE_METHOD, "baseline", "random attributions (a sanity baseline)",
    "Attributions drawn at random, ignoring the model: every method must beat it.",
    factory=RandomExplainer, color="#8C8C8C", dash="dash", symbol="x",  # grey: a reference, never a contender
    has_stability=True, recommendable=False)
