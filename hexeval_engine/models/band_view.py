"""Band views of a regressor: "the prediction stays at this level" as a binary model.

Public interface
----------------
``band_view(model, *, centre, band, scale, direction) -> HexevalModel``
``BandEstimator``  the view's estimator (``predict_proba`` of shape (n, 2))
``range_view(model, *, low, high, scale) -> HexevalModel``  "the prediction is outside [low, high]" (counterfactuals)
``RangeEstimator``

A case whose prediction is ``f(x) = centre`` is explained on one side: why the prediction is this high
(``direction = +1``: it stays at or above ``centre - band``) or this low (``direction = -1``: it stays at or
below ``centre + band``). The view's positive-class probability is the affine map

    q(z) = 0.5 + direction * (f(z) - (centre - direction * band)) / (2 * scale),   clipped to [0, 1],

so ``q >= 0.5`` exactly when the prediction stays on the explained side of the band's edge, and —
away from the clip — every attribution of ``q`` is the regression-mode attribution of ``f`` times
``direction / (2 * scale)``. Normalised fidelity (``(f(x) - f(baseline))`` in the denominator) is
therefore the same on ``q`` as on ``f``; a counterfactual "flips" when the prediction moves beyond
the band; an Anchor rule keeps the prediction within the band on its side. ``scale`` (the spread of
the predictions plus the band) keeps the clip out of the way on rows like the training rows.
"""

from __future__ import annotations

import numpy as np

from .model_wrapper import HexevalModel


class _ValueView:
    """What both views share: ``classes_`` ``[0, 1]``, the regressor's column names, ``predict_proba`` from
    the subclass's ``probability`` of the predicted values, and pickling of the wrapped model without its lock."""

    opaque_graph = True

    def _wrap(self, model: HexevalModel) -> None:
        self.model = model
        self.classes_ = np.array([0, 1])
        if model.feature_names is not None:  # rows reach predict_proba as the DataFrame the model takes
            self.feature_names_in_ = np.asarray(model.feature_names, dtype=object)

    def predict_proba(self, X) -> np.ndarray:
        """``[1 - q, q]`` for the raw rows ``X``."""
        q = self.probability(self.model.predict_value(X))
        return np.column_stack([1.0 - q, q])

    def _model_fields(self) -> dict:
        """The wrapped regressor's fields, for ``__getstate__`` (process workers; the lock stays behind)."""
        m = self.model
        return {"estimator": m.estimator, "preprocessor": m.preprocessor, "feature_names": m.feature_names,
                "source": m.source, "kind": m.kind, "sha256": m.sha256, "input_codes": m.input_codes,
                "regression": True, "class_labels": ()}


def _binary_model(estimator: _ValueView) -> HexevalModel:
    """The binary :class:`HexevalModel` around a view of the regressor ``estimator.model``."""
    model = estimator.model
    return HexevalModel(estimator=estimator, feature_names=model.feature_names, threshold=0.5, class_labels=(0, 1),
                        source=model.source, kind=model.kind, sha256=model.sha256)


class BandEstimator(_ValueView):
    """A binary estimator over a regression :class:`HexevalModel` (see the module docstring).

    Attributes
    ----------
    classes_ : ndarray
        ``[0, 1]``: 1 is "the prediction stays on the explained side of the band".
    opaque_graph : bool
        ``True``: explainers treat the view as a black box.
    """

    def __init__(self, model: HexevalModel, *, centre: float, band: float, scale: float, direction: int):
        self._wrap(model)
        self.centre, self.band = float(centre), float(band)
        self.scale, self.direction = float(scale), int(direction)

    @property
    def edge(self) -> float:
        """The band's edge on the explained side (``centre - band`` when explaining "this high")."""
        return self.centre - self.direction * self.band

    def probability(self, values: np.ndarray) -> np.ndarray:
        """``q`` for predicted values."""
        q = 0.5 + self.direction * (np.asarray(values, dtype=float) - self.edge) / (2 * self.scale)
        return np.clip(q, 0.0, 1.0)

    def value_map(self) -> tuple:
        """``(regressor, slope, offset)`` with ``q = offset + slope * f`` away from the clip: exact SHAP of the
        prediction maps onto the view (:mod:`hexeval_engine.explainers.value_shap`)."""
        slope = self.direction / (2 * self.scale)
        return self.model, slope, 0.5 - slope * self.edge

    def __getstate__(self) -> dict:
        """Picklable for process workers: the wrapped model travels without its lock."""
        return {"fields": self._model_fields(), "centre": self.centre, "band": self.band, "scale": self.scale,
                "direction": self.direction}

    def __setstate__(self, state: dict) -> None:
        self.__init__(HexevalModel(**state["fields"]), centre=state["centre"], band=state["band"],
                      scale=state["scale"], direction=state["direction"])


def band_view(model: HexevalModel, *, centre: float, band: float, scale: float, direction: int) -> HexevalModel:
    """A binary :class:`HexevalModel` over the regressor ``model`` (see the module docstring)."""
    return _binary_model(BandEstimator(model, centre=centre, band=band, scale=scale, direction=direction))


class RangeEstimator(_ValueView):
    """A binary estimator over a regressor: class 1 while the prediction is outside ``[low, high]``.

    ``q(z) = 0.5 + s(f(z)) / (2 * scale)`` clipped to [0, 1], with ``s(v) = max(low - v, v - high)`` the signed
    distance to the range (negative inside; an open end is ``-inf`` / ``+inf``): ``q < 0.5`` exactly when the
    prediction lies strictly inside the range, so a counterfactual "flips" when it reaches the range.
    """

    def __init__(self, model: HexevalModel, *, low: float | None, high: float | None, scale: float):
        self._wrap(model)
        self.scale = float(scale)
        self.low = -np.inf if low is None else float(low)
        self.high = np.inf if high is None else float(high)

    def probability(self, values: np.ndarray) -> np.ndarray:
        """``q`` for predicted values."""
        values = np.asarray(values, dtype=float)
        outside = np.maximum(self.low - values, values - self.high)
        return np.clip(0.5 + outside / (2 * self.scale), 0.0, 1.0)

    def __getstate__(self) -> dict:
        """Picklable for process workers: the wrapped model travels without its lock."""
        return {"fields": self._model_fields(), "low": self.low, "high": self.high, "scale": self.scale}

    def __setstate__(self, state: dict) -> None:
        low, high = (None if not np.isfinite(v) else v for v in (state["low"], state["high"]))
        self.__init__(HexevalModel(**state["fields"]), low=low, high=high, scale=state["scale"])


def range_view(model: HexevalModel, *, low: float | None, high: float | None, scale: float) -> HexevalModel:
    """A binary :class:`HexevalModel` over the regressor ``model``: class 1 while its prediction is outside the range."""
    return _binary_model(RangeEstimator(model, low=low, high=high, scale=scale))
