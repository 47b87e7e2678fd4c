"""The model's predicted class of every training row, computed at most once per evaluation.

Public interface (stable)
-------------------------
``TrainPredictions(model, data)``  ``.get() -> ndarray`` (computed on first use, then reused)

Several metric passes need these classes (the per-class baseline of removal metrics, the
counterfactual manifold, the claim-scoped metrics). On the bundled credit-risk pipeline one
prediction of the 25,926 training rows costs about 0.06-0.1 CPU seconds; the technical stage asked
for it six times (once per method's metric pass and once for the claims). Sharing one object across
those passes computes it once; the classes are the same array every pass would have computed.
"""

from __future__ import annotations

import numpy as np


class TrainPredictions:
    """The model's predicted class of every row of ``data.X_train``, computed on first use.

    Parameters
    ----------
    model : HexevalModel
        The model whose predictions are wanted (a randomised copy needs its own object).
    data : Dataset
        ``X_train`` and ``feature_names`` are read.
    """

    def __init__(self, model, data):
        self.model, self.data, self._value = model, data, None

    def get(self) -> np.ndarray:
        """The predicted class of each training row, in ``data.X_train`` order."""
        if self._value is None:
            self._value = self.model.predict(self.data.X_train[list(self.data.feature_names)])
        return self._value

    def belongs_to(self, model, data) -> bool:
        """Whether this object holds (or will compute) predictions of ``model`` on ``data``."""
        return self.model is model and self.data is data
