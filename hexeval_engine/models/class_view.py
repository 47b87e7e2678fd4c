"""One-class views of a multi-class model: the explained class against its strongest rival.

Public interface
----------------
``class_view(model, explained, *, reached=None) -> HexevalModel``
``OneClassEstimator``  the view's estimator (``predict_proba`` of shape (n, 2))
``view_probability(proba, explained) -> ndarray``

A multi-class model with class probabilities ``p_1 .. p_K`` is explained for the class ``c`` it predicts.
Its one-class view is a binary model whose positive-class probability is

    q = p_c / (p_c + max_{k != c} p_k),

"class c against its strongest rival": ``q >= 0.5`` exactly when the model still predicts ``c`` (ties
aside), so every explainer, every flip and every threshold test of the binary machinery keeps its
meaning, and for K = 2 ``q`` is ``p_c`` itself. Counterfactuals aim at a chosen class ``t`` instead
(``reached=t``): there ``q = 1 - p_t / (p_t + max_{k != t} p_k)``, which falls below 0.5 exactly when
the model predicts ``t``.

The view is opaque to the exact SHAP shortcuts (tree and linear SHAP explain the raw class scores,
not ``q``), so SHAP explains it model-agnostically, like an ONNX graph.
"""

from __future__ import annotations

import numpy as np

from .model_wrapper import HexevalModel


def view_probability(proba: np.ndarray, explained: int) -> np.ndarray:
    """``p_c / (p_c + max_{k != c} p_k)`` per row of the (n, K) probabilities ``proba`` (0.5 where both are 0)."""
    proba = np.asarray(proba, dtype=float)
    mine = proba[:, explained]
    rival = np.max(np.delete(proba, explained, axis=1), axis=1)
    total = mine + rival
    return np.divide(mine, total, out=np.full(len(mine), 0.5), where=total > 0)


class OneClassEstimator:
    """A binary estimator over a multi-class :class:`HexevalModel` (see the module docstring).

    Parameters
    ----------
    model : HexevalModel
        The multi-class model (classes aligned with the data, ``class_order`` set).
    explained : int
        Index of the explained class (the data's class order).
    reached : int, optional
        For counterfactuals: index of the class a counterfactual must reach (``q`` then falls below 0.5
        exactly when the model predicts it).

    Attributes
    ----------
    classes_ : ndarray
        ``[0, 1]``: 1 is the explained class, 0 its rivals.
    opaque_graph : bool
        ``True``: explainers treat the view as a black box.
    """

    opaque_graph = True

    def __init__(self, model: HexevalModel, explained: int, *, reached: int | None = None):
        self.model, self.explained, self.reached = model, int(explained), reached
        self.classes_ = np.array([0, 1])
        if model.feature_names is not None:  # rows reach predict_proba as the DataFrame the model takes
            self.feature_names_in_ = np.asarray(model.feature_names, dtype=object)

    def predict_proba(self, X) -> np.ndarray:
        """``[1 - q, q]`` for the raw rows ``X`` (a DataFrame of the data's columns)."""
        proba = self.model.class_probabilities(X)
        if self.reached is None:
            q = view_probability(proba, self.explained)
        else:
            q = 1.0 - view_probability(proba, int(self.reached))
        return np.column_stack([1.0 - q, q])

    def __getstate__(self) -> dict:
        """Picklable for process workers: the wrapped model travels without its lock."""
        m = self.model
        fields = {"estimator": m.estimator, "preprocessor": m.preprocessor, "feature_names": m.feature_names,
                  "threshold": m.threshold, "class_labels": m.class_labels, "source": m.source, "kind": m.kind,
                  "sha256": m.sha256, "input_codes": m.input_codes, "class_order": m.class_order}
        return {"fields": fields, "explained": self.explained, "reached": self.reached}

    def __setstate__(self, state: dict) -> None:
        self.__init__(HexevalModel(**state["fields"]), state["explained"], reached=state["reached"])


def class_view(model: HexevalModel, explained: int, *, reached: int | None = None) -> HexevalModel:
    """A binary :class:`HexevalModel` over ``model`` for the class index ``explained``.

    Its ``predict_proba`` is ``[1 - q, q]`` (see the module docstring), its threshold 0.5, its classes
    ``(0, 1)`` (1 = the explained class). Calls and rows are counted by ``model`` as well.
    """
    return HexevalModel(estimator=OneClassEstimator(model, explained, reached=reached),
                        feature_names=model.feature_names, threshold=0.5, class_labels=(0, 1),
                        source=model.source, kind=model.kind, sha256=model.sha256)
