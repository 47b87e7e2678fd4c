"""Inputs several metric passes of one model on one data set need, computed at most once per evaluation.

Public interface (stable)
-------------------------
``SharedInputs(model, data)``
    ``.train_classes() -> ndarray``  the model's predicted class of every training row
    ``.baseline(kind) -> DataFrame``  the removal baseline of ``evaluation.fidelity.baseline``
    ``.noisy_copies(instance_ids, *, repeats, noise_std, random_state) -> (DataFrame, ndarray)``
        the stability copies of those cases (copy ``r`` of every case stacked at block ``r``) and the
        model's probabilities of them
    ``.manifold(*, k, reference_rows, random_state) -> CounterfactualManifold``  the counterfactual
        plausibility check's embedding of the training rows (frozen, so one object serves every pass)
    ``.belongs_to(model, data) -> bool``

The technical stage measures each method in its own pass (so each method's time is its own) and then
the claims of all methods in one more pass. Each pass needed the same inputs: the training rows'
predicted classes (per-class baseline, counterfactual manifold), the removal baseline and, for the
methods measured for stability, the noisy copies and the model's answers on them. On the bundled
credit-risk pipeline these took about 0.1 CPU second per pass each (25,926 training rows). Computing
them once gives the same arrays every pass would have computed (the functions are deterministic:
seeded per case and copy), so no metric value changes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .baseline import make_baseline, make_class_baselines
from .plausibility import CounterfactualManifold
from .stability import noisy_copies


class SharedInputs:
    """Lazily computed inputs of the metric passes of ``model`` on ``data``.

    Parameters
    ----------
    model : HexevalModel
        The model whose predictions are wanted (a randomised copy needs its own object).
    data : Dataset
        ``X_train``, ``X_test`` and the feature lists are read.
    """

    def __init__(self, model, data):
        self.model, self.data = model, data
        self._train_classes: np.ndarray | None = None
        self._baselines: dict[str, pd.DataFrame] = {}
        self._copies: dict[tuple, tuple[pd.DataFrame, np.ndarray]] = {}
        self._manifolds: dict[tuple, CounterfactualManifold] = {}

    def belongs_to(self, model, data) -> bool:
        """Whether this object holds (or will compute) inputs of ``model`` on ``data``."""
        return self.model is model and self.data is data

    def train_classes(self) -> np.ndarray:
        """The predicted class of each training row, in ``data.X_train`` order."""
        if self._train_classes is None:
            self._train_classes = self.model.predict(self.data.X_train[list(self.data.feature_names)])
        return self._train_classes

    def manifold(self, *, k: int, reference_rows: int, random_state: int) -> CounterfactualManifold:
        """The training rows embedded for the plausibility check, with the model's classes of them
        (:meth:`CounterfactualManifold.from_data`; ~0.06 CPU s on credit risk's 25,926 rows, once per run
        instead of once per metric pass)."""
        key = (int(k), int(reference_rows), int(random_state))
        if key not in self._manifolds:
            self._manifolds[key] = CounterfactualManifold.from_data(self.data, self.train_classes(), k=key[0],
                                                                    reference_rows=key[1], random_state=key[2])
        return self._manifolds[key]

    def baseline(self, kind: str) -> pd.DataFrame:
        """Removal baseline rows: per class for ``"other_class_average"``, else the one training-average row.

        A copy each time, so a caller that changes it cannot change another pass's baseline.
        """
        if kind not in self._baselines:
            self._baselines[kind] = (make_class_baselines(self.data, self.train_classes())
                                     if kind == "other_class_average" else make_baseline(self.data))
        return self._baselines[kind].copy()

    def noisy_copies(self, instance_ids, *, repeats: int, noise_std: float,
                     random_state: int) -> tuple[pd.DataFrame, np.ndarray]:
        """Copies ``0 .. repeats-1`` of the test rows ``instance_ids`` (block ``r`` = copy ``r`` of every case)
        and the model's ``predict_proba`` of them, made as :func:`hexeval_engine.metrics.stability.noisy_copies`
        makes them."""
        key = (tuple(int(i) for i in instance_ids), int(repeats), float(noise_std), int(random_state))
        if key not in self._copies:
            ids = list(key[0])
            originals = self.data.X_test.iloc[ids][list(self.data.feature_names)]
            copies = [noisy_copies(self.data, originals, ids, noise_std=noise_std, repeat=r,
                                   random_state=random_state) for r in range(repeats)]
            stacked = pd.concat(copies, ignore_index=True)
            self._copies[key] = (stacked, self.model.predict_proba(stacked))
        stacked, proba = self._copies[key]
        return stacked.copy(), proba.copy()
