"""Explain rows with the chosen methods, through the runner (sequential, helper process or dask).

Public interface
----------------
``explain_instances(model, data, config, instance_ids, methods=None, *, seed=None) -> list[Explanation]``
"""

from __future__ import annotations

import logging
import traceback

import numpy as np

from ..errors import DataError
from ..explanation import Explanation
from ..plain_values import describe_error
from ..explainers.base import explained_classes, instance_seed
from ..explainers.registry import enabled_methods
from .parallel import ExplainRunner

log = logging.getLogger(__name__)


def explain_instances(model, data, config, instance_ids, methods=None, *, seed: int | None = None) -> list[Explanation]:
    """Explain rows of ``data.X_test`` with each method, for the class the model predicts.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
        Explainer settings (``evaluation.explainers``) and wording (``domain``, ``personas.top_k_features``).
    instance_ids : sequence of int
        Row positions in ``data.X_test``.
    methods : sequence of str, optional
        Any of ``"SHAP"``, ``"LIME"``, ``"Anchor"``, ``"DiCE"``; default: those enabled in ``config``.
    seed : int, optional
        Base seed; default ``evaluation.random_state``. Each instance's seed is derived from it and
        the instance id, so an instance gets the same explanation whatever else is explained with it.

    Returns
    -------
    list of Explanation
        Grouped by method (in ``METHODS`` order), then in ``instance_ids`` order. A method that
        fails yields explanations whose ``error`` says why; the other methods are unaffected.
    """
    ids = [int(i) for i in instance_ids]
    bad = [i for i in ids if not 0 <= i < len(data.X_test)]
    if bad:
        raise DataError(f"instance_ids {bad[:10]} are not rows of the test set (it has {len(data.X_test)} rows, "
                        f"positions 0..{len(data.X_test) - 1}). Pick ids in that range.")
    methods = enabled_methods(config, methods)
    base_seed = config.evaluation.random_state if seed is None else int(seed)
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = explained_classes(model, X) if ids else (np.array([], int), np.array([]))
    out: list[Explanation] = []
    with ExplainRunner(model, data, config) as runner:
        for method in methods:
            seeds = [instance_seed(base_seed, i, method) for i in ids]
            try:
                out.extend(runner.explain(method, X, ids, classes, probabilities, seeds))
            except Exception as err:  # one failing method must not sink the others
                log.exception("%s failed while explaining instances %s", method, ids[:10])
                message = describe_error(err)
                out.extend(Explanation(method=method, instance_id=i, predicted_class=int(c), probability=float(p),
                                       error=message, extra={"traceback": traceback.format_exc(limit=5)})
                           for i, c, p in zip(ids, classes, probabilities))
    return out
