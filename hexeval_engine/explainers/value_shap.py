"""Exact SHAP for views whose probability is an affine map of a regressor's prediction (band views).

A regressor's band view (:mod:`hexeval_engine.models.band_view`) has the positive-class probability
``q(z) = offset + slope * f(z)`` (away from its clip), so the Shapley values of ``q`` are those of the
prediction ``f`` times ``slope`` and its base value is ``offset + slope * base_f`` (Shapley values are
linear in the explained function: Lundberg & Lee, "A Unified Approach to Interpreting Model
Predictions", NeurIPS 2017). The view is a black box to the binary SHAP options; this module explains
the regressor itself with the fastest exact algorithm it allows and maps the values:

1. **Exact linear SHAP** when the final estimator is linear in the columns it sees (``coef_``,
   ``intercept_`` reproduce its predictions) and the preprocessing works column by column:
   ``w_k * (t_k(x) - mean_B t_k)`` against the background ``B``, summed back to raw features;
2. **Tree SHAP, path-dependent** on the final estimator (forests, trees, boosted trees' raw output);
3. **Tree SHAP, interventional** against the background rows.

An option is kept only if its values, mapped, add up to the view's probability of the checked rows
(within ``ADDITIVITY_TOLERANCE``); otherwise the caller falls back to permutation SHAP on the view.

Public interface
----------------
``ValueShap.build(model, background_raw, feature_names, check_rows, check_positive) -> ValueShap | None``
``ValueShap.values(X_raw) -> (phi (n, p_raw), base (n,))``   attributions of the view's probability
``ValueShap.algorithm``
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .feature_mapping import dense_matrix, output_to_raw, sum_to_raw
from .linear_shap import _columnwise
from .shared_tree_shap import shared_or_shap

log = logging.getLogger(__name__)

#: Largest |mapped attributions + base - view probability| accepted from an option.
ADDITIVITY_TOLERANCE = 1e-6
#: Largest relative gap between ``X @ coef + intercept`` and the regressor's predictions for "linear".
LINEAR_TOLERANCE = 1e-9

LINEAR_ALGORITHM = "Exact linear SHAP of the predicted value (interventional, closed form)"
PATH_ALGORITHM = "TreeExplainer of the predicted value (exact, path-dependent)"
INTERVENTIONAL_ALGORITHM = "TreeExplainer of the predicted value (exact, interventional)"


@dataclass
class ValueShap:
    """Exact SHAP of a regressor's prediction, mapped onto an affine view of it."""

    inner: object            # the regressor (HexevalModel)
    slope: float
    offset: float
    mapping: np.ndarray      # raw feature index of each column the final estimator sees
    n_raw: int
    algorithm: str
    linear: tuple | None = None  # (coef, intercept, background mean) for the linear option
    tree: object = None          # a shap.TreeExplainer (or its shared-background routine) for the tree options

    @classmethod
    def build(cls, model, background_raw: pd.DataFrame, feature_names, check_rows: pd.DataFrame,
              check_positive) -> "ValueShap | None":
        """The explainer for the view ``model``, or ``None`` when it is no affine view of an explainable regressor.

        ``model`` is a :class:`HexevalModel` whose final estimator offers ``value_map()`` -> ``(regressor,
        slope, offset)``; ``check_positive`` is the view's probability of ``check_rows``.
        """
        value_map = getattr(model.final_estimator, "value_map", None)
        if not callable(value_map):
            return None
        inner, slope, offset = value_map()
        names = list(feature_names)
        mapping = output_to_raw(inner, names)
        if mapping is None:
            return None
        Xt = dense_matrix(inner.transform(check_rows[names]))
        if Xt.shape[1] != len(mapping):
            return None
        positive = np.asarray(check_positive, dtype=float)
        for option in (cls._linear_option, cls._path_option, cls._interventional_option):
            try:
                built = option(inner, background_raw[names], mapping, Xt)
            except Exception as err:  # shap raises many types for unsupported models
                log.info("Exact SHAP option %s not usable for %s: %s", option.__name__,
                         type(inner.final_estimator).__name__, err)
                continue
            if built is None:
                continue
            explainer = cls(inner, float(slope), float(offset), np.asarray(mapping), len(names), **built)
            phi, base = explainer.values(check_rows[names])
            error = float(np.max(np.abs(phi.sum(axis=1) + base - positive))) if len(positive) else 0.0
            if error <= ADDITIVITY_TOLERANCE:
                return explainer
            log.info("Exact SHAP option %s does not add up to the view (max error %.2e).", built["algorithm"], error)
        return None

    def values(self, X_raw: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """Attributions of the view's probability per raw feature ``(n, p)`` and base values ``(n,)``."""
        Xt = dense_matrix(self.inner.transform(X_raw))
        if self.linear is not None:
            coef, intercept, mean = self.linear
            phi_t = (Xt - mean) * coef
            base_f = np.full(len(Xt), float(mean @ coef + intercept))
        else:
            phi_t = np.asarray(self.tree.shap_values(Xt, check_additivity=False), dtype=float).reshape(len(Xt), -1)
            base_f = np.full(len(Xt), float(np.asarray(self.tree.expected_value, dtype=float).reshape(-1)[0]))
        phi = sum_to_raw(phi_t, self.mapping, self.n_raw)
        return self.slope * phi, self.offset + self.slope * base_f

    # ------------------------------------------------------------------ options
    @staticmethod
    def _linear_option(inner, background, mapping, Xt):
        est = inner.final_estimator
        coef, intercept = getattr(est, "coef_", None), getattr(est, "intercept_", None)
        if coef is None or intercept is None or hasattr(est, "predict_proba"):
            return None
        coef = np.asarray(coef, dtype=float).reshape(-1)
        intercept = float(np.asarray(intercept, dtype=float).reshape(-1)[0])
        if len(coef) != Xt.shape[1]:
            return None
        predicted = np.asarray(est.predict(Xt), dtype=float).reshape(-1)
        if not np.allclose(Xt @ coef + intercept, predicted, rtol=LINEAR_TOLERANCE, atol=LINEAR_TOLERANCE):
            return None
        if not _columnwise(inner, background, mapping):
            return None
        mean = dense_matrix(inner.transform(background)).mean(axis=0)
        return {"algorithm": LINEAR_ALGORITHM, "linear": (coef, intercept, mean)}

    @staticmethod
    def _path_option(inner, background, mapping, Xt):
        import shap  # heavy library: loaded only when SHAP runs

        return {"algorithm": PATH_ALGORITHM,
                "tree": shap.TreeExplainer(inner.final_estimator, feature_perturbation="tree_path_dependent")}

    @staticmethod
    def _interventional_option(inner, background, mapping, Xt):
        import shap  # heavy library: loaded only when SHAP runs

        data = dense_matrix(inner.transform(background))
        return {"algorithm": INTERVENTIONAL_ALGORITHM,
                "tree": shared_or_shap(shap.TreeExplainer(inner.final_estimator, data=data,
                                                          feature_perturbation="interventional"))}
