"""Which methods exist, which a config enables, and how each is built: all read from the methods' specs.

Public interface
----------------
``builtin_specs() -> tuple[MethodSpec, ...]``          the built-in methods, in display order (Random last)
``method_specs(config=None) -> list[MethodSpec]``       built-ins, then the config's and installed plugins, Random last
``spec_of(method, config=None) -> MethodSpec``          one method's spec (``ConfigError`` for an unknown name)
``plugin_failures(config) -> list[PluginFailure]``      plugins that could not be used
``enabled_methods(config, methods=None) -> list``       methods to run, in display order, then ``Random``
``build_explainer(method, model, data, config, *, seed) -> explainer``
``EXPLAINERS``                                          built-in method name -> explainer class

Every explainer has ``method`` and
``explain(X_raw, instance_ids, classes, probabilities, seeds) -> list[Explanation]``.
"""

from __future__ import annotations

import functools
import importlib
import sys

from ..errors import ConfigError
from ..explanation import BASELINE_METHOD
from .plugins import PluginFailure, load_plugins
from .spec import MethodSpec

#: The modules of the built-in methods (each defines ``SPEC``), in display order; the baseline comes last.
BUILTIN_MODULES = ("shap_explainer", "lime_explainer", "anchor_explainer", "dice_explainer")
BASELINE_MODULE = "random_baseline"


@functools.lru_cache(maxsize=1)
def builtin_specs() -> tuple[MethodSpec, ...]:
    """The built-in methods' specs, the ``Random`` baseline last."""
    return tuple(importlib.import_module(f"{__package__}.{m}").SPEC for m in (*BUILTIN_MODULES, BASELINE_MODULE))


def _plugins(config) -> tuple[list[MethodSpec], list[PluginFailure]]:
    names = tuple(config.evaluation.explainers.plugins) if config is not None else ()
    return _resolved(names, tuple(sys.path))


@functools.lru_cache(maxsize=16)
def _resolved(names: tuple, path: tuple) -> tuple[list[MethodSpec], list[PluginFailure]]:
    specs, failures = load_plugins(names)
    taken = {s.name for s in builtin_specs()}
    clash = [s for s in specs if s.name in taken]
    failures = failures + [PluginFailure(s.plugin or s.name, f"the explainer plugin {s.plugin} names its method "
                                         f"{s.name!r}, which a built-in method already uses. Give it another name.")
                           for s in clash]
    return [s for s in specs if s.name not in taken], failures


def method_specs(config=None) -> list[MethodSpec]:
    """Every method a run with ``config`` can use: built-ins, plugins, then the ``Random`` baseline."""
    *builtins, baseline = builtin_specs()
    return [*builtins, *_plugins(config)[0], baseline]


def plugin_failures(config) -> list[PluginFailure]:
    """The plugins named in ``config`` or installed that could not be used (each names the fix)."""
    return _plugins(config)[1]


def spec_of(method: str, config=None) -> MethodSpec:
    """The spec of ``method``; ``ConfigError`` naming the known methods for any other name."""
    for spec in builtin_specs():  # the common case, without resolving plugins
        if spec.name == method:
            return spec
    specs = method_specs(config)
    for spec in specs:
        if spec.name == method:
            return spec
    raise ConfigError(f"Unknown explanation method {method!r}. Choose from {', '.join(s.name for s in specs)} "
                      "(case matters).")


def _check_settings_keys(config, specs: list[MethodSpec]) -> None:
    claimed = {s.settings_key for s in specs if s.settings_key}
    unknown = [k for k in config.evaluation.explainers.extra_keys() if k not in claimed]
    if unknown:
        raise ConfigError(f"evaluation.explainers has settings for {', '.join(map(repr, unknown))}, which no built-in "
                          f"method or loaded plugin uses. Check the spelling (known: "
                          f"{', '.join(sorted(claimed))}), or name the plugin in evaluation.explainers.plugins.")


def enabled_methods(config, methods=None) -> list[str]:
    """The methods to run: ``methods`` if given (validated), else those enabled in the config.

    Without ``methods``, the ``Random`` sanity baseline is always added after the enabled methods:
    every comparison is made against it (it is cheap: no model call).
    """
    specs = method_specs(config)
    if methods is None:
        _check_settings_keys(config, specs)
        chosen = [s.name for s in specs if s.settings_key is not None and s.settings(config).enabled]
        return chosen + [BASELINE_METHOD] if chosen else []
    names = [s.name for s in specs]
    unknown = [m for m in methods if m not in names]
    if unknown:
        raise ConfigError(f"Unknown explanation method(s) {', '.join(map(str, unknown))}. "
                          f"Choose from {', '.join(names)} (case matters).")
    return [m for m in names if m in methods]


def build_explainer(method: str, model, data, config, *, seed: int):
    """An explainer for ``method``; ``seed`` seeds what the explainer draws once (e.g. SHAP's background)."""
    return spec_of(method, config).build(model, data, config, seed=seed)


def __getattr__(name: str):
    if name == "EXPLAINERS":  # built-in name -> class, for code written before the specs
        return {s.name: s.factory for s in builtin_specs()}
    raise AttributeError(name)
