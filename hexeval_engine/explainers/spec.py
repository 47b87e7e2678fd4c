"""What a method is: one specification every stage, chart, form and check reads.

Public interface (stable)
-------------------------
``MethodSpec``                 name, family, what it shows, settings, factory, look, capabilities
``FAMILIES``                   the method families, in display order
``QUESTIONS``                  the four stakeholder questions a method can answer

A built-in explainer's module defines its ``SPEC`` beside the class; a plugin's explainer class carries its
spec as the class attribute ``spec`` (see ``docs/plugins.md``). Nothing else in the engine names a method:
stages ask the spec (``spec.runs_in_helper``, ``spec.has_stability`` …), never ``method == "DiCE"``.

This module imports no explainer library: charts and forms read specs without loading shap or lime.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

#: Method families, in display order. ``baseline`` methods exist to be beaten and are never recommended.
FAMILIES = ("attribution", "rule", "counterfactual", "example", "narrative", "baseline")
#: The questions a stakeholder asks of an explanation (docs/metrics.md, "Evidence per question").
QUESTIONS = ("why", "what_if", "will_it_hold", "how_to_change")


@dataclass(frozen=True)
class MethodSpec:
    """One explanation method, as every part of HEXEval sees it.

    Attributes
    ----------
    name : str
        The method's name in every table (``"SHAP"``); unique, case-sensitive.
    family : str
        One of :data:`FAMILIES`. Metrics and readers read an explanation's structure (attributions, a rule,
        counterfactuals, similar cases), never its method's name.
    shows : str
        What a reader sees, as a noun phrase ("feature attributions (Shapley values)").
    blurb : str
        One sentence for the settings form and the documentation.
    factory : str or callable or None
        ``"package.module:Class"`` (imported when first built) or a callable; called as
        ``factory(model, data, config, *, seed)`` and returning an object with ``method`` and
        ``explain(X_raw, instance_ids, classes, probabilities, seeds) -> list[Explanation]``. ``None``: the
        method is made by another stage (narratives).
    settings_key : str or None
        The key of its settings under ``evaluation.explainers`` (``shap``); ``None``: no settings.
    settings_model : type or None
        The pydantic model of those settings; it has an ``enabled`` field.
    color, dash, symbol : str
        Its colour (hex), line dash and marker in every chart.
    runs_in_helper : bool
        Its explanations may be computed in the helper process (GIL-bound Python, slow enough to be worth it).
    pools_model_calls : bool
        It pools its model calls over all the cases of a call (lock-step searches), so a helper job takes its
        cases whole rather than in chunks.
    in_process_only : bool
        Explains a whole batch faster in this process than shipped anywhere (a vectorised C routine): the
        loky and dask backends keep it here.
    has_stability : bool
        Cheap enough to re-explain noisy copies of a case (stability metrics).
    seed_reruns : bool
        Draws at random per case: re-explaining with other seeds measures its seed agreement.
    randomisable : bool
        Takes part in the model-randomisation check (its explanation should change with the model).
    linear_in_output : bool
        Its explanation of an affine transform of the model's output is that transform of the explanation
        (Shapley values, a weighted ridge surrogate): one explanation serves every regression band view.
    aims_at_target : bool
        Explains how to reach another outcome, so it explains the counterfactual view of a case (the class or
        range aimed for) rather than the prediction's.
    pooled_over_classes : bool
        A multi-class model's cases of every class group are explained in one pooled search
        (``explain(..., explained=classes)``).
    bounded_reruns : bool
        Its re-run on the randomised model (the sanity check) is bounded by the real search's own model requests
        (``explain(..., request_caps=...)``), and says when it stopped there (``extra["stopped_at_request_cap"]``).
    instance_cap : str or None
        The name of its settings field that caps how many cases it explains (``max_instances``).
    recommendable : bool
        Can be recommended to a stakeholder (``False`` for baselines).
    plugin : str or None
        Where a plugin came from (``"pkg.module:Class"`` or ``"entry point name (pkg)"``); ``None`` built in.
    """

    name: str
    family: str
    shows: str
    blurb: str
    factory: str | Callable | None = None
    settings_key: str | None = None
    settings_model: type | None = None
    color: str = "#999999"
    dash: str = "solid"
    symbol: str = "circle"
    runs_in_helper: bool = False
    pools_model_calls: bool = False
    in_process_only: bool = False
    has_stability: bool = False
    seed_reruns: bool = False
    randomisable: bool = True
    linear_in_output: bool = False
    aims_at_target: bool = False
    pooled_over_classes: bool = False
    bounded_reruns: bool = False
    instance_cap: str | None = None
    recommendable: bool = True
    plugin: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def build(self, model, data, config, *, seed: int):
        """The method's explainer for ``model`` on ``data`` (its ``factory`` called uniformly)."""
        return resolve(self.factory)(model, data, config, seed=seed)

    def settings(self, config):
        """Its settings section in ``config`` (``None`` when it has none)."""
        if self.settings_key is None:
            return None
        return config.evaluation.explainers.section(self.settings_key, self.settings_model)

    def cap(self, config, n: int) -> int:
        """How many of ``n`` sampled cases it explains (its ``instance_cap`` setting, if any)."""
        settings = self.settings(config)
        if self.instance_cap is None or settings is None:
            return n
        return min(n, int(getattr(settings, self.instance_cap)))


def resolve(target: str | Callable) -> Callable:
    """A ``"package.module:attribute"`` string imported, or the callable itself."""
    if callable(target):
        return target
    module, _, attribute = str(target).partition(":")
    return getattr(importlib.import_module(module), attribute)
