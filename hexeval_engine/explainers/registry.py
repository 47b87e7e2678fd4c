"""Which explainer class serves which method, and which methods a config enables.

Public interface
----------------
``EXPLAINERS``                                   method name -> explainer class
``enabled_methods(config, methods=None) -> list`` methods to run, in ``METHODS`` order, then ``Random``
``build_explainer(method, model, data, config, *, seed) -> explainer``

Every explainer class has ``method`` and
``explain(X_raw, instance_ids, classes, probabilities, seeds) -> list[Explanation]``.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..explanation import BASELINE_METHOD, METHODS
from .anchor_explainer import AnchorExplainer
from .dice_explainer import DiceExplainer
from .lime_explainer import LimeExplainer
from .random_baseline import RandomExplainer
from .shap_explainer import ShapExplainer

EXPLAINERS = {"SHAP": ShapExplainer, "LIME": LimeExplainer, "Anchor": AnchorExplainer, "DiCE": DiceExplainer,
              BASELINE_METHOD: RandomExplainer}
_SETTINGS = {"SHAP": "shap", "LIME": "lime", "Anchor": "anchor", "DiCE": "dice"}


def enabled_methods(config, methods=None) -> list[str]:
    """The methods to run: ``methods`` if given (validated), else those enabled in the config.

    Without ``methods``, the ``Random`` sanity baseline is always added after the enabled methods:
    every comparison is made against it (it is cheap: no model call).
    """
    if methods is None:
        explainers = config.evaluation.explainers
        chosen = [m for m in METHODS if getattr(explainers, _SETTINGS[m]).enabled]
        return chosen + [BASELINE_METHOD] if chosen else []
    unknown = [m for m in methods if m not in EXPLAINERS]
    if unknown:
        raise ConfigError(f"Unknown explanation method(s) {', '.join(map(str, unknown))}. "
                          f"Choose from {', '.join(EXPLAINERS)} (case matters).")
    return [m for m in EXPLAINERS if m in methods]


def build_explainer(method: str, model, data, config, *, seed: int):
    """An explainer for ``method``; ``seed`` seeds what the explainer draws once (e.g. SHAP's background)."""
    cls = EXPLAINERS[method]
    if cls is ShapExplainer:
        return cls(model, data, config, seed=seed)
    return cls(model, data, config)
