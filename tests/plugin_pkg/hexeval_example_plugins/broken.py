"""Plugins that are broken on purpose: HEXEval must name each, say the fix, and run without it."""

from __future__ import annotations

from hexeval_engine.explainers.spec import MethodSpec


class NoSpec:
    """An explainer class without its ``spec``."""

    method = "No spec"

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds, **_options):
        return []


class RaisesMidRun:
    """Builds, then raises on its first explain() call."""

    spec = MethodSpec("Raises", "attribution", "nothing", "Raises an error when asked to explain.")
    method = "Raises"

    def __init__(self, model, data, config, *, seed: int):
        self.features = list(data.feature_names)

    def explain(self, X_raw, instance_ids, classes, probabilities, seeds, **_options):
        raise RuntimeError("the plugin's own code failed")
