"""Explain rows in-process or spread over joblib workers (loky processes or a dask cluster).

Public interface
----------------
``ExplainRunner(model, data, config)``  context manager; ``runner.explain(method, X_raw, ids, classes,
probabilities, seeds) -> list[Explanation]``; ``runner.worker_rows`` / ``worker_calls`` count the
model work done in other processes.

``evaluation.parallel.backend``:

* ``sequential`` — one explainer per method, built once and reused (Anchor and DiCE pool the
  model calls of all instances, see :mod:`.lockstep`).
* ``loky`` — the rows are split into ``n_jobs`` chunks, each explained in a local worker process.
* ``dask`` — the same chunks go to an existing ``dask.distributed`` cluster
  (``scheduler_address``), submitted through a ``distributed.Client``.

Each row's randomness comes from its own seed (:func:`~.base.instance_seed`), never from the
order or grouping of rows, so every backend gives the same explanations. SHAP always runs
in-process: tree SHAP on a whole batch is faster than shipping it anywhere.
"""

from __future__ import annotations

import logging

import numpy as np

from ..errors import ConfigError
from ..models.model_wrapper import HexevalModel
from .base import instance_seed
from .registry import build_explainer
from .render import render_into, row_dicts

log = logging.getLogger(__name__)


class ExplainRunner:
    """Runs explainers with the configured backend; reuses in-process explainers across calls.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
    """

    def __init__(self, model, data, config):
        self.model, self.data, self.config = model, data, config
        self.parallel = config.evaluation.parallel
        self.worker_rows = 0
        self.worker_calls = 0
        self._explainers: dict = {}
        self._client = None

    def __enter__(self) -> "ExplainRunner":
        if self.parallel.backend == "dask":
            try:
                from distributed import Client  # optional extra (dask): loaded only for the dask backend
            except ImportError as err:
                raise ConfigError("evaluation.parallel.backend is 'dask' but dask.distributed is not installed. "
                                  "Install it with `pip install hexeval[dask]` or use 'sequential'/'loky'.") from err
            try:
                self._client = Client(self.parallel.scheduler_address, timeout=10)
            except OSError as err:
                raise ConfigError(f"Cannot reach the dask scheduler at {self.parallel.scheduler_address!r}: {err}. "
                                  "Start the cluster, fix evaluation.parallel.scheduler_address, or use "
                                  "backend 'sequential'.") from err
        return self

    def __exit__(self, *exc) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def explainer(self, method: str):
        """The in-process explainer for ``method`` (built on first use)."""
        if method not in self._explainers:
            seed = instance_seed(self.config.evaluation.random_state, -1, f"{method}:explainer")
            self._explainers[method] = build_explainer(method, self.model, self.data, self.config, seed=seed)
        return self._explainers[method]

    def explain(self, method: str, X_raw, instance_ids, classes, probabilities, seeds, *, on_instance=None,
                render: bool = True) -> list:
        """Explanations of ``X_raw``'s rows (labelled ``instance_ids``), rendered to text.

        ``on_instance()`` is called once per explained row (per finished chunk on loky/dask).
        ``render=False`` skips the texts, for explanations only metrics read (noisy copies, re-runs).
        """
        n = len(instance_ids)
        if n == 0:
            return []
        if self.parallel.backend == "sequential" or method == "SHAP" or n == 1:
            out = self.explainer(method).explain(X_raw, instance_ids, classes, probabilities, seeds,
                                                 on_instance=on_instance)
            return _rendered(out, X_raw, self.data, self.config) if render else out
        out = self._distributed(method, X_raw, list(instance_ids), np.asarray(classes), np.asarray(probabilities),
                                list(seeds), render)
        if on_instance is not None:
            for _ in out:
                on_instance()
        return out

    def _distributed(self, method, X_raw, ids, classes, probabilities, seeds, render) -> list:
        from joblib import Parallel, delayed, parallel_config  # only the dask backend uses joblib here

        chunks = [c for c in np.array_split(np.arange(len(ids)), min(self.parallel.n_jobs, len(ids))) if len(c)]
        payload = _portable(self.model)
        tasks = [delayed(_explain_chunk)(method, payload, self.data, self.config, X_raw.iloc[c].reset_index(drop=True),
                                         [ids[i] for i in c], classes[c], probabilities[c], [seeds[i] for i in c],
                                         render)
                 for c in chunks]
        if self.parallel.backend == "dask":
            # Submitted directly: joblib's dask backend scatters large arguments from the event
            # loop, which fails when the cluster's workers live in this process (processes=False).
            futures = [self._client.submit(fn, *args, pure=False, **kwargs) for fn, args, kwargs in tasks]
            results = self._client.gather(futures)
        else:
            with parallel_config(backend="loky", n_jobs=self.parallel.n_jobs):
                results = Parallel()(tasks)
        out = []
        for explanations, rows, calls in results:
            out.extend(explanations)
            self.worker_rows += rows
            self.worker_calls += calls
        return out


def _explain_chunk(method, payload, data, config, X_raw, ids, classes, probabilities, seeds, render=True):
    """Worker task: rebuild the model, explain a chunk, return explanations and model work done."""
    model = HexevalModel(**payload)
    seed = instance_seed(config.evaluation.random_state, -1, f"{method}:explainer")
    explainer = build_explainer(method, model, data, config, seed=seed)
    out = explainer.explain(X_raw, ids, classes, probabilities, seeds)
    return (_rendered(out, X_raw, data, config) if render else out), model.rows, model.calls


def _portable(model) -> dict:
    """The model's fields without its lock (locks cannot be sent to other processes)."""
    return {"estimator": model.estimator, "preprocessor": model.preprocessor, "feature_names": model.feature_names,
            "threshold": model.threshold, "class_labels": model.class_labels, "source": model.source,
            "kind": model.kind, "sha256": model.sha256, "input_codes": model.input_codes}


def _rendered(explanations, X_raw, data, config) -> list:
    rows = row_dicts(X_raw[list(data.feature_names)])
    for e, row in zip(explanations, rows):
        render_into(e, row, data, config)
    return explanations
