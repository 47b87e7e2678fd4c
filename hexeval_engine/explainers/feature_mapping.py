"""Map the columns a pipeline's final estimator sees back to the raw CSV columns they come from.

Public interface
----------------
``output_to_raw(model, feature_names) -> ndarray | None``
    For each column of ``model.transform(X)``, the index of its raw feature; ``None`` when the
    preprocessing cannot be traced (then attributions must be computed over the raw columns).
``sum_to_raw(values, mapping, p) -> ndarray``
    Sum per-output-column attributions into per-raw-feature attributions.

Tracing uses ``get_feature_names_out`` of the preprocessing: a ``ColumnTransformer`` prefixes
each output with its transformer's name (``categorical__loan_grade_D``, ``numeric__loan_amnt``);
after stripping that prefix, an output belongs to the raw feature whose name it equals or starts
with followed by ``_`` (the longest such name wins, so ``cp`` never captures ``cp_extra_3``).
One-hot columns of a feature therefore add up to that feature's attribution.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)


def dense_matrix(M) -> np.ndarray:
    """A transformed matrix (sparse, DataFrame or array) as a dense float array."""
    if hasattr(M, "toarray"):
        M = M.toarray()
    if isinstance(M, pd.DataFrame):
        M = M.to_numpy()
    return np.asarray(M, dtype=float)


def output_to_raw(model, feature_names: list[str]) -> np.ndarray | None:
    """Index of the raw feature behind each column the final estimator sees, or ``None``."""
    names = _output_names(model)
    if names is None:
        return None
    by_length = sorted(range(len(feature_names)), key=lambda j: -len(feature_names[j]))
    mapping = np.empty(len(names), dtype=int)
    for k, name in enumerate(names):
        candidates = [name.split("__", 1)[1], name] if "__" in name else [name]
        found = next((j for c in candidates for j in by_length
                      if c == feature_names[j] or c.startswith(feature_names[j] + "_")), None)
        if found is None:
            log.info("Output column %r of the preprocessing matches no raw feature; using a model-agnostic explainer.",
                     name)
            return None
        mapping[k] = found
    return mapping


def sum_to_raw(values: np.ndarray, mapping: np.ndarray, p: int) -> np.ndarray:
    """``(n, n_outputs)`` attributions -> ``(n, p)`` by summing the outputs of each raw feature."""
    out = np.zeros((values.shape[0], p))
    np.add.at(out.T, mapping, values.T)
    return out


def _output_names(model) -> list[str] | None:
    if getattr(model.final_estimator, "opaque_graph", False):
        log.info("The model is a compiled graph (ONNX): its internals are not visible; using a model-agnostic explainer.")
        return None
    pre = model.preprocessor
    if pre is None:
        steps = getattr(model.estimator, "steps", None)
        if not steps:
            return list(model.feature_names) if model.feature_names is not None else None
        if len(steps) == 1:
            return list(model.feature_names) if model.feature_names is not None else None
        from sklearn.pipeline import Pipeline  # only multi-step pipelines reach this line

        pre = Pipeline(steps[:-1])
    try:
        return [str(n) for n in pre.get_feature_names_out()]
    except (AttributeError, ValueError, TypeError) as err:
        log.info("The preprocessing (%s) cannot name its output columns (%s); using a model-agnostic explainer.",
                 type(pre).__name__, err)
        return None
