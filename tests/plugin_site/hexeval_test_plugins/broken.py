"""Plugins that fail: one breaks the interface (no spec), one raises while it explains."""

from __future__ import annotations

from hexeval_engine.explainers.spec import MethodSpec


class NoSpec:
    """Has ``explain`` but no ``spec``: refused when loaded."""

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds):
        return []


class Raising:
    spec = MethodSpec("Raising", "attribution", "nothing", "Raises while it explains.")
    method = "Raising"

    def __init__(self, model, data, config, *, seed=None):
        pass

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds):
        raise RuntimeError("the plugin's own bug")
