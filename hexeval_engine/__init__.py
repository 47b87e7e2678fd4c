"""HEXEval engine: which explanation method should each stakeholder see?

The engine never imports streamlit; the dashboard, the CLI and Python users call the same functions.

The names below are loaded on first use (PEP 562), not when the package is imported: ``from hexeval_engine
import evaluate`` works as before, while ``hexeval evaluate`` can start the helper's forkserver before the
engine's ~2 s of imports (scikit-learn, pandas, the LLM SDK), which then overlap them
(:mod:`hexeval_engine.runtime.forkserver_start`).
"""

from __future__ import annotations

import importlib
import sys
import types

#: public name -> the module that defines it (relative to this package)
_EXPORTS = {
    "HexevalConfig": ".config", "load_config": ".config",
    "Dataset": ".data.dataset", "load_data": ".data.dataset",
    "ConfigError": ".errors", "DataError": ".errors", "HexevalError": ".errors", "LLMError": ".errors",
    "ModelError": ".errors", "RunError": ".errors",
    "EvaluationResult": ".evaluate", "evaluate": ".evaluate",
    "explain_instances": ".runtime.explain",
    "METHODS": ".explanation", "Explanation": ".explanation",
    "METRICS": ".metrics", "compute_instance_metrics": ".metrics", "get_spec": ".metrics",
    "make_baseline": ".metrics", "summarise": ".metrics",
    "validate_model_data_compatibility": ".models.compatibility",
    "load_model": ".models.model_loading",
    "HexevalModel": ".models.model_wrapper",
    "estimate_persona_evaluation": ".raters.run", "run_persona_evaluation": ".raters.run",
    "Persona": ".personas", "load_personas": ".personas",
    "Rating": ".raters", "make_rater": ".raters", "rater_from_config": ".raters",
    "canonical_method": ".recommend.recommender", "generate_recommendations": ".recommend.recommender",
    "write_report": ".report.html",
    "TechnicalResult": ".technical.run", "run_technical_evaluation": ".technical.run",
    "UseCase": ".usecases", "get_usecase": ".usecases", "list_usecases": ".usecases",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


class _Package(types.ModuleType):
    """This package as a module object that keeps ``hexeval_engine.evaluate`` the function.

    Loading a submodule binds it as an attribute of its package, and ``evaluate`` is both a submodule and the
    function it defines. The eager package rebound the name to the function right after; a lazy one must not
    let the submodule's first import (by the CLI, say) hide the function from ``from hexeval_engine import
    evaluate``.
    """

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, types.ModuleType) and _EXPORTS.get(name) == "." + name and hasattr(value, name):
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
