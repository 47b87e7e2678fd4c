"""SHAP attributions per raw feature, towards the class the model predicted.

The fastest exact algorithm the model allows is used and recorded in ``Explanation.algorithm``:

0. **Exact linear SHAP** when the pipeline ends in a linear-logistic classifier and its
   preprocessing works column by column (:mod:`.linear_shap`): closed form against
   ``background_size`` training rows, in **log-odds** units (``Explanation.extra["output"]`` says
   ``"log-odds"``; the other options say ``"probability"``).
1. **Tree SHAP, path-dependent** on the pipeline's final estimator, when its raw output is the
   class probability (scikit-learn forests, trees): exact, no background needed.
2. **Tree SHAP, interventional, probability output** against ``background_size`` training rows
   (boosted trees such as XGBoost, whose raw output is a log-odds margin): exact for that
   background, in probability units. Boosted classifiers known to sum to a margin (:func:`margin_booster`)
   start here: option 1 could never be additive in probability for them.
A regressor's band view (its probability an affine map of the prediction) is explained by exact SHAP
of the prediction, mapped onto the view (:mod:`.value_shap`: linear or tree SHAP of the regressor).

3. Otherwise **Permutation SHAP** (model-agnostic) over the coded raw columns, decoding every
   masked row before the model call, with ``background_size`` training rows as the masker.

For (1) and (2) the attributions of the one-hot / imputed columns the estimator sees are summed
back to their raw feature (:mod:`.feature_mapping`). A tree option is used only if its values are
additive on the explained instances (attributions + base value = the pipeline's probability,
within ``ADDITIVITY_TOLERANCE``); otherwise the next option is tried. Attributions for class 0
are the negated class-1 attributions (the two probabilities sum to one; the two log-odds are
each other's negatives).

Time budget (``explainers.shap.time_budget_seconds``): the exact options take milliseconds per row.
The permutation option explains row by row (the same random numbers as one batched call: the
explainer is seeded once and draws in row order); a row that took longer than the budget is
recorded as a failed explanation (it cannot be stopped midway) and the next row goes on.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from ..explanation import Explanation
from ..config.schema import ShapSettings
from .spec import MethodSpec
from .base import GLOBAL_RNG_LOCK, TimeBudgetExceeded, budget_setting
from .feature_mapping import dense_matrix, output_to_raw, sum_to_raw
from .linear_shap import ALGORITHM as LINEAR_ALGORITHM
from .linear_shap import LinearShap
from .shared_tree_shap import shared_or_shap
from .value_shap import ValueShap

log = logging.getLogger(__name__)

#: Largest |attributions + base - probability| accepted from a tree option.
ADDITIVITY_TOLERANCE = 1e-4


class ShapExplainer:
    """Explain many rows at once; keeps the chosen algorithm for later calls (e.g. noisy copies).

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
    seed : int
        Draws the background rows and seeds the permutation explainer.
    """

    method = "SHAP"

    def __init__(self, model, data, config, *, seed: int):
        self.model, self.data, self.config = model, data, config
        self.seed = int(seed)
        size = min(config.evaluation.explainers.shap.background_size, len(data.X_train))
        self.background = data.X_train.sample(n=size, random_state=self.seed % (2**32)).reset_index(drop=True)
        self.algorithm: str | None = None
        #: "probability" or "log-odds": the units of the attributions and base values.
        self.output = "probability"
        self._linear = None
        self._tree = None
        self._mapping = None
        self._agnostic = None
        self._value = None  # exact SHAP of a regressor's prediction, for its band views (value_shap)
        self.budget = config.evaluation.explainers.shap.time_budget_seconds
        #: Rows of the last ``attributions`` call that failed, with the reason (their values are NaN).
        self.failed_rows: dict[int, str] = {}

    # ------------------------------------------------------------------ public
    def attributions(self, X_raw: pd.DataFrame, classes, positive_proba) -> tuple[np.ndarray, np.ndarray]:
        """Signed attributions towards ``classes`` ``(n, p)`` and base values ``(n,)``.

        ``positive_proba`` is the model's class-1 probability of each row (used to verify
        additivity of the tree options).
        """
        X_raw = X_raw.reset_index(drop=True)
        self.failed_rows = {}
        phi1, base1 = self._class1(X_raw, np.asarray(positive_proba, dtype=float))
        sign = np.where(np.asarray(classes) == 1, 1.0, -1.0)
        base = np.where(sign > 0, base1, -base1 if self.output == "log-odds" else 1.0 - base1)
        return phi1 * sign[:, None], base

    def explain(self, X_raw: pd.DataFrame, instance_ids, classes, probabilities, seeds=None, *,
                on_instance=None) -> list[Explanation]:
        """One :class:`Explanation` per row (``seeds`` is accepted for interface symmetry; SHAP uses ``seed``)."""
        start = time.perf_counter()
        classes = np.asarray(classes, dtype=int)
        probabilities = np.asarray(probabilities, dtype=float)
        positive = np.where(classes == 1, probabilities, 1.0 - probabilities)
        phi, base = self.attributions(X_raw, classes, positive)
        per_row = (time.perf_counter() - start) / max(len(classes), 1)
        names = self.data.feature_names
        out = []
        for i, iid in enumerate(instance_ids):
            if i in self.failed_rows:
                out.append(Explanation(method=self.method, instance_id=int(iid), predicted_class=int(classes[i]),
                                       probability=float(probabilities[i]), algorithm=self.algorithm or "",
                                       seconds=per_row, error=self.failed_rows[i]))
                if on_instance is not None:
                    on_instance()
                continue
            attributions = {f: float(v) for f, v in zip(names, phi[i])}
            out.append(Explanation(
                method=self.method, instance_id=int(iid), predicted_class=int(classes[i]),
                probability=float(probabilities[i]), attributions=attributions,
                importance={f: abs(v) for f, v in attributions.items()}, algorithm=self.algorithm or "",
                seconds=per_row, extra={"base_value": float(base[i]), "output": self.output}))
            if on_instance is not None:
                on_instance()
        return out

    # ------------------------------------------------------------------ algorithms
    def _class1(self, X_raw, positive):
        if self.algorithm is None:
            chosen = self._choose_exact(X_raw, positive)
            if chosen is not None:
                return chosen
        if self._value is not None:
            return self._value.values(X_raw[list(self.data.feature_names)])
        if self._linear is not None:
            return self._linear.values(X_raw[list(self.data.feature_names)])
        if self._tree is not None:
            phi, base = _tree_shap(self._tree, dense_matrix(self.model.transform(X_raw)), self.model.positive_index)
            return sum_to_raw(phi, self._mapping, len(self.data.feature_names)), base
        return self._agnostic_values(X_raw)

    def _choose_exact(self, X_raw, positive):
        """Try linear SHAP, then the tree options, on these rows; keep the first that is exact. ``None`` if none is."""
        self.algorithm = _AGNOSTIC
        names = list(self.data.feature_names)
        value = ValueShap.build(self.model, self.background, names, X_raw, positive)
        if value is not None:  # a regressor's band view: exact SHAP of the prediction, mapped
            self._value, self.algorithm = value, value.algorithm
            return value.values(X_raw[names])
        mapping = output_to_raw(self.model, self.data.feature_names)
        if mapping is None:
            return None
        linear = LinearShap.build(self.model, self.background[names], mapping, X_raw[names], positive)
        if linear is not None:
            self._linear, self.algorithm, self.output = linear, LINEAR_ALGORITHM, "log-odds"
            return linear.values(X_raw[names])
        Xt = dense_matrix(self.model.transform(X_raw))
        if Xt.shape[1] != len(mapping):
            log.info("Preprocessing gives %d columns but names %d; using a model-agnostic explainer.",
                     Xt.shape[1], len(mapping))
            return None
        for name, build in self._tree_options():
            try:
                explainer = build()
                phi, base = _tree_shap(explainer, Xt, self.model.positive_index)
            except Exception as err:  # shap raises many types for unsupported models/outputs
                log.info("SHAP option %s not usable for %s: %s", name, type(self.model.final_estimator).__name__, err)
                continue
            error = float(np.max(np.abs(phi.sum(axis=1) + base - positive))) if len(positive) else 0.0
            if error <= ADDITIVITY_TOLERANCE:
                self._tree, self._mapping, self.algorithm = explainer, mapping, name
                return sum_to_raw(phi, mapping, len(self.data.feature_names)), base
            log.info("SHAP option %s is not additive in probability (max error %.2e); trying the next.", name, error)
        return None

    def _tree_options(self):
        import shap  # heavy library: loaded only when SHAP runs

        est = self.model.final_estimator

        def path_dependent():
            return shap.TreeExplainer(est, feature_perturbation="tree_path_dependent")

        def interventional():
            background = dense_matrix(self.model.transform(self.background))
            return shared_or_shap(shap.TreeExplainer(est, data=background, feature_perturbation="interventional",
                                                     model_output="probability"))

        options = [(PATH_DEPENDENT, path_dependent), (INTERVENTIONAL, interventional)]
        return options[1:] if margin_booster(est) else options

    def _agnostic_values(self, X_raw):
        import shap  # heavy library: loaded only when SHAP runs

        coder = self.data.coder
        self.algorithm = _AGNOSTIC
        M = coder.encode(X_raw)
        with GLOBAL_RNG_LOCK:
            if self._agnostic is None:
                masker = shap.maskers.Independent(coder.encode(self.background), max_samples=len(self.background))

                def positive_proba(Z):
                    return chunked_positive(self.model, coder, Z)

                self._agnostic = shap.PermutationExplainer(positive_proba, masker, seed=self.seed)
            p = M.shape[1]
            values, base = np.full(M.shape, np.nan), np.full(len(M), np.nan)
            for i in range(len(M)):
                start = time.perf_counter()
                result = self._agnostic(M[i:i + 1], max_evals=max(500, 2 * p + 1), silent=True)
                spent = time.perf_counter() - start
                if spent > self.budget:
                    self.failed_rows[i] = str(TimeBudgetExceeded(self.budget, spent, budget_setting("shap")))
                    continue
                values[i] = np.asarray(result.values, dtype=float).reshape(-1)
                base[i] = np.asarray(result.base_values, dtype=float).reshape(-1)[0]
        return values, base


_AGNOSTIC = "PermutationExplainer (model-agnostic, coded raw features)"
PATH_DEPENDENT = "TreeExplainer (exact, path-dependent)"
INTERVENTIONAL = "TreeExplainer (exact, interventional, probability)"

#: Gradient-boosted classifiers whose trees add up to a log-odds margin, never to the class probability, named
#: by (module prefix, class name). Path-dependent tree SHAP explains what the trees add up to, so on these it
#: is never additive in probability: building it (XGBoost: the booster decoded from UBJSON in pure Python) and
#: running it on every row only to reject it cost ~0.15 s per explainer on credit risk, twice per run (the real
#: and the randomised model). The interventional option, tried next in any case, is what they get either way.
_MARGIN_BOOSTERS = (("xgboost", "XGBClassifier"), ("xgboost", "XGBRFClassifier"), ("lightgbm", "LGBMClassifier"),
                    ("catboost", "CatBoostClassifier"), ("sklearn.ensemble", "GradientBoostingClassifier"),
                    ("sklearn.ensemble", "HistGradientBoostingClassifier"))


def margin_booster(estimator) -> bool:
    """Whether ``estimator`` is (a subclass of) a boosted classifier whose trees sum to a log-odds margin.

    Matched by module and class name along the class hierarchy, so the optional libraries are never imported here.
    """
    return any(cls.__name__ == name and (cls.__module__ == module or cls.__module__.startswith(module + "."))
               for cls in type(estimator).__mro__ for module, name in _MARGIN_BOOSTERS)
#: Cells (rows x features) of coded rows the model-agnostic explainer sends to the model at once. The
#: permutation explainer asks about ``max_evals x background`` rows per explained case (30,050 on a
#: 300-column data set); decoded, preprocessed (one-hot columns) and copied by the pipeline they held
#: ~0.5 GB at once. Rows are predicted independently, so splitting a request changes no answer; data
#: narrow enough (heart: 161,000 rows of 13 features) is never split.
AGNOSTIC_CHUNK_CELLS = 2**21


def chunked_positive(model, coder, Z: np.ndarray) -> np.ndarray:
    """The model's positive-class probability for coded rows ``Z``, at most ``AGNOSTIC_CHUNK_CELLS`` cells per call."""
    step = max(1, AGNOSTIC_CHUNK_CELLS // max(Z.shape[1], 1))
    if len(Z) <= step:
        return model.predict_proba(coder.decode(Z))[:, 1]
    return np.concatenate([model.predict_proba(coder.decode(Z[start:start + step]))[:, 1]
                           for start in range(0, len(Z), step)])


#: Rows per call of shap's tree routine. Its C code holds the GIL for the whole call (0.6 s for 150 rows of credit
#: risk), so every other thread of the process waits: the dashboard's server, and the threads that feed the helper
#: process its next job and take its answers (it then sat idle). Rows are explained independently, so calls of a few
#: rows give the same values bit for bit, at no measurable cost (150 rows: 0.575 s whole, 0.575 s in calls of 4).
TREE_SHAP_ROWS_PER_CALL = 4


def _tree_shap(explainer, Xt, positive_index: int = 1):
    """Tree SHAP values and base value for the data's positive class.

    ``positive_index`` is the estimator's probability column of the positive label (0 when it sorts
    first, e.g. ``churned``/``stayed``). Per-class outputs are indexed by it; a single output belongs
    to ``classes_[1]``, so for ``positive_index == 0`` it is mirrored (values negated, base ``1 - base``).
    """
    step = getattr(explainer, "rows_per_call", TREE_SHAP_ROWS_PER_CALL)
    if len(Xt) > step:  # see TREE_SHAP_ROWS_PER_CALL: other threads run between the calls
        parts = [_tree_shap(explainer, Xt[start:start + step], positive_index) for start in range(0, len(Xt), step)]
        return np.concatenate([phi for phi, _ in parts]), np.concatenate([base for _, base in parts])
    values = explainer.shap_values(Xt, check_additivity=False)
    expected = np.asarray(explainer.expected_value, dtype=float).reshape(-1)
    if isinstance(values, list):
        values = np.stack(values, axis=-1)
    values = np.asarray(values, dtype=float)
    if values.ndim == 3:
        return values[..., positive_index], np.full(values.shape[0], expected[positive_index])
    if positive_index == 0:
        return -values, np.full(values.shape[0], 1.0 - expected[-1])
    return values, np.full(values.shape[0], expected[-1])


SPEC = MethodSpec(
    "SHAP", "attribution", "feature attributions (Shapley values)",
    "Shapley values: how much each of this case's inputs pushed the prediction up or down.",
    factory=ShapExplainer, settings_key="shap", settings_model=ShapSettings,
    color="#E69F00", dash="solid", symbol="circle",  # orange
    in_process_only=True, has_stability=True, linear_in_output=True)
