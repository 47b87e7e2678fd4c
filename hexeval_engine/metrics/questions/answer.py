"""The model's answer for a case, and whether a changed row keeps it: the one thing every question tests.

Public interface
----------------
``Answer(model, data, config, cases)``
    ``.quantity(rows, owner) -> ndarray``  the explained quantity of each row (for the *why* question)
    ``.keeps(rows, owner) -> ndarray of bool``  the row gets the case's answer (*what if*, *will it hold*)
    ``.reaches(rows, owner) -> ndarray of bool``  the row gets the other outcome (*how to change*)

``rows`` is a frame of raw rows and ``owner`` the position (in ``cases``) of the case each row belongs to.

* **Binary classifier**: the answer is the class ``c`` the model predicts for the case at its threshold; the
  explained quantity is the probability of ``c``; the other outcome is the other class.
* **Multi-class** (``model.n_classes > 2``): the answer is the predicted class ``c`` (the most probable), read
  as "c against the rest": a row keeps it while the model still predicts ``c``; the quantity is ``p_c``; the
  other outcome is any other class.
* **Regression** (``model.regression``): the case's prediction ``v`` is explained as high (``v`` at or above
  the training rows' mean prediction, ``d = +1``) or low (``d = -1``), as the technical stage does
  (:mod:`hexeval_engine.technical.class_groups`). A row keeps the answer while its prediction stays on that
  side of ``v - d * band`` (``band = data.regression_band`` target standard deviations), which is where the
  band view's probability stays at or above 1/2, so an explanation of the band view is read in its own
  units. The quantity is ``d * prediction / sd(target)`` (a move is in target standard deviations). The
  other outcome is the one DiCE was asked for: inside ``data.counterfactual_range`` when declared, else
  beyond ``v - d * shift`` (``data.counterfactual_shift``, default the band).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


class Answer:
    """The answers of ``model`` for ``cases`` (a frame of raw rows, one per case), computed with one model call.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
        ``X_train`` / ``y_train`` (regression: the training predictions and the target's spread).
    config : HexevalConfig
        Regression: ``data.regression_band``, ``data.counterfactual_range``, ``data.counterfactual_shift``.
    cases : pandas.DataFrame
        The cases, in the order ``owner`` indexes.
    """

    def __init__(self, model, data, config, cases: pd.DataFrame):
        self.model = model
        self.features = list(data.feature_names)
        self.regression = bool(getattr(model, "regression", False))
        self.multiclass = not self.regression and int(getattr(model, "n_classes", 2)) > 2
        if self.regression:
            self._value_answers(data, config, cases)
        else:
            proba = self._proba(cases)
            self.classes = self._classes(proba)
            self.spread = 1.0

    def _proba(self, rows):
        rows = rows[self.features]
        return self.model.class_probabilities(rows) if self.multiclass else self.model.predict_proba(rows)

    def _classes(self, proba) -> np.ndarray:
        if self.multiclass:
            return np.argmax(proba, axis=1)
        return (proba[:, 1] >= self.model.threshold).astype(int)

    def _value_answers(self, data, config, cases) -> None:
        settings = config.data
        train = self.model.predict_value(data.X_train[self.features])
        values = self.model.predict_value(cases[self.features])
        spread = float(np.std(data.y_train.to_numpy(dtype=float)))
        self.spread = spread if spread > 0 else 1.0
        band = float(settings.regression_band) * self.spread
        self.direction = np.where(values >= float(np.mean(train)), 1.0, -1.0)
        self.edge = values - self.direction * band
        self.range = settings.counterfactual_range
        shift = band if settings.counterfactual_shift is None else float(settings.counterfactual_shift) * self.spread
        self.aim = values - self.direction * shift

    def quantity(self, rows: pd.DataFrame, owner) -> np.ndarray:
        """The explained quantity of each row: the probability of its case's class, or (regression) its prediction
        in target standard deviations, signed so that the explained side is positive."""
        owner = np.asarray(owner, dtype=int)
        if self.regression:
            return self.direction[owner] * self.model.predict_value(rows[self.features]) / self.spread
        proba = self._proba(rows)
        return proba[np.arange(len(owner)), self.classes[owner]]

    def keeps(self, rows: pd.DataFrame, owner) -> np.ndarray:
        """Whether each row gets its case's answer."""
        owner = np.asarray(owner, dtype=int)
        if self.regression:
            value = self.model.predict_value(rows[self.features])
            return self.direction[owner] * (value - self.edge[owner]) >= 0
        return self._classes(self._proba(rows)) == self.classes[owner]

    def reaches(self, rows: pd.DataFrame, owner) -> np.ndarray:
        """Whether each row gets the other outcome (the one a person who wants to change the answer wants)."""
        owner = np.asarray(owner, dtype=int)
        if not self.regression:
            return ~self.keeps(rows, owner)
        value = self.model.predict_value(rows[self.features])
        if self.range is not None:
            low, high = self.range
            inside = np.ones(len(value), dtype=bool)
            if low is not None:
                inside &= value >= float(low)
            if high is not None:
                inside &= value <= float(high)
            return inside
        return self.direction[owner] * (value - self.aim[owner]) < 0
