"""Explainers from the operator's own packages: ``explainers.plugins`` in the config and the entry-point group.

Public interface (stable)
-------------------------
``ENTRY_POINT_GROUP``                              ``"hexeval.explainers"``
``PluginFailure(source, message)``                 a plugin that could not be used, and the fix
``load_plugins(names) -> (specs, failures)``        the specs of the named plugins and of the entry points
``loaded_spec(name) -> MethodSpec | None``          a plugin method's spec, if loaded in this process (or installed)

A plugin is an explainer class (``"package.module:Class"``) whose class attribute ``spec`` is a
:class:`~hexeval_engine.explainers.spec.MethodSpec`; its ``factory`` may be left out (the class is then called
as ``Class(model, data, config, *, seed)``). Only the operator names plugins (config files on their disk,
packages they installed): an uploaded file never brings code. A plugin that fails to import or breaks the
interface is left out with a :class:`PluginFailure` that names it and the fix; the run goes on without it.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.metadata
import logging
import sys
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from ..plain_values import describe_error
from .spec import FAMILIES, MethodSpec

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "hexeval.explainers"
#: Families a plugin may declare (narratives are told by another stage; the baseline is HEXEval's own).
PLUGIN_FAMILIES = tuple(f for f in FAMILIES if f not in ("narrative", "baseline"))


@dataclass(frozen=True)
class PluginFailure:
    """A plugin HEXEval could not use: where it came from and a message naming the problem and the fix."""

    source: str
    message: str

    def as_warning(self) -> dict:
        """The run warning (``EvaluationResult.warnings``, the manifest): shown where results are read."""
        return {"code": "plugin_failed", "severity": "warning", "stage": "explainers", "plugin": self.source,
                "message": self.message[0].upper() + self.message[1:]}


def load_plugins(names: tuple[str, ...] | list[str] = ()) -> tuple[list[MethodSpec], list[PluginFailure]]:
    """The specs of the plugins named in the config and declared by installed packages, and the failures.

    Loaded once per process for the same names (imports are not repeated). Names that repeat a method
    already loaded (a package both named and declared) count once.
    """
    return _load(tuple(str(n) for n in names), _points_on(tuple(sys.path)))


def read_entry_points() -> int:
    """Read the installed packages' plugin entry points (their names and targets; nothing is imported), as the
    first run would: the start-up warm-up calls it. Returns how many there are."""
    return len(_points_on(tuple(sys.path)))


@functools.lru_cache(maxsize=8)
def _points_on(path: tuple) -> tuple:
    """The group's entry points as ``(name, value)``, read once per import path (a package added to the path since
    is seen; reading them costs milliseconds, and the specs are asked for in every loop)."""
    return tuple((ep.name, ep.value) for ep in _entry_points())


def loaded_spec(name: str) -> MethodSpec | None:
    """The spec of the plugin method ``name`` loaded in this process (named in a config, or installed), or ``None``.

    Charts read a plugin's colour, dash and marker here; the installed entry points are loaded if need be.
    """
    if name not in _SEEN:
        load_plugins(())
    return _SEEN.get(name)


#: Every plugin spec loaded in this process, by method name.
_SEEN: dict[str, MethodSpec] = {}


@functools.lru_cache(maxsize=16)
def _load(names: tuple[str, ...], points: tuple) -> tuple[list[MethodSpec], list[PluginFailure]]:
    specs: list[MethodSpec] = []
    failures: list[PluginFailure] = []
    sources = [(name, functools.partial(_import_target, name)) for name in names]
    sources += [(f"entry point {name!r} ({value})", functools.partial(_import_target, value)) for name, value in points]
    for source, load in sources:
        try:
            spec = _checked_spec(load(), source)
        except _PluginError as err:
            failures.append(PluginFailure(source, str(err)))
            log.warning("Explainer plugin %s left out: %s", source, err)
            continue
        except Exception as err:  # importing someone's module can raise anything: recorded, never fatal
            message = (f"the explainer plugin {source} could not be imported ({describe_error(err)}). Check that its "
                       "package is installed in this environment and the name is 'package.module:Class'.")
            failures.append(PluginFailure(source, message))
            log.warning("Explainer plugin %s left out: %s", source, message)
            continue
        if any(s.name == spec.name for s in specs):
            continue
        specs.append(spec)
    _SEEN.update({s.name: s for s in specs})
    return specs, failures


class PluginSettings(BaseModel):
    """The settings of a plugin that declares none: it can be switched off (``evaluation.explainers.<key>``)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True


class _PluginError(ValueError):
    """A plugin that loads but does not meet the interface."""


def _entry_points():
    return list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def _import_target(name: str):
    module, sep, attribute = name.partition(":")
    if not sep or not module or not attribute:
        raise _PluginError(f"the explainer plugin name {name!r} is not of the form 'package.module:Class'. "
                           "Write the module path, a colon and the class name.")
    return getattr(importlib.import_module(module), attribute)


def _checked_spec(target, source: str) -> MethodSpec:
    """The plugin's spec, checked against the interface, with its factory and origin filled in."""
    spec = getattr(target, "spec", None)
    if not isinstance(spec, MethodSpec):
        raise _PluginError(f"the explainer plugin {source} has no 'spec' attribute holding a MethodSpec "
                           "(hexeval_engine.explainers.spec). Add one: see docs/plugins.md.")
    if not callable(getattr(target, "explain", None)) and spec.factory is None:
        raise _PluginError(f"the explainer plugin {source} has no explain(X_raw, instance_ids, classes, "
                           "probabilities, seeds) method. Add it: see docs/plugins.md.")
    if not spec.name or not spec.name.replace("_", "").replace("-", "").replace(" ", "").isalnum():
        raise _PluginError(f"the explainer plugin {source} names its method {spec.name!r}: use letters, digits, "
                           "spaces, '-' or '_'.")
    if spec.family not in PLUGIN_FAMILIES:
        raise _PluginError(f"the explainer plugin {source} declares the family {spec.family!r}; choose one of "
                           f"{', '.join(PLUGIN_FAMILIES)}.")
    model = spec.settings_model
    if model is not None and "enabled" not in getattr(model, "model_fields", {}):
        raise _PluginError(f"the settings model of the explainer plugin {source} has no 'enabled' field. Give it "
                           "'enabled: bool = True'.")
    if spec.settings_key is None:
        spec = dataclasses.replace(spec, settings_key=_key_of(spec.name))
    if spec.settings_model is None:
        spec = dataclasses.replace(spec, settings_model=PluginSettings)
    return dataclasses.replace(spec, factory=spec.factory or target, plugin=source)


def _key_of(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name.lower())
