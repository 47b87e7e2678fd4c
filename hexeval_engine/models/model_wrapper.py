"""The engine's single view of a model: ``predict_proba(raw DataFrame) -> (n, 2)`` for a binary
classifier, ``class_probabilities(raw DataFrame) -> (n, K)`` for any classifier (multi-class models are
explained through one-class views, :mod:`hexeval_engine.models.class_view`)."""

from __future__ import annotations

import threading
from pathlib import PurePath
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import ModelError
from ..plain_values import show, show_all
from ..vocabulary import noun
from . import fast_forest, fast_preprocess


@dataclass
class HexevalModel:
    """A fitted classifier (binary or multi-class) that takes the original CSV columns.

    ``estimator`` is the object that produces probabilities; when an artefact keeps its
    preprocessing apart (the original HEXEval's ``{"model", "preprocessor"}`` dict),
    ``preprocessor`` transforms raw rows first. ``feature_names`` are the raw columns the model
    expects (``None`` when the file does not say). ``input_codes`` turns text columns into the
    integer codes a bare estimator was trained on, just before each call (see ``input_encoding``).
    """

    estimator: object
    preprocessor: object | None = None
    feature_names: list[str] | None = None
    threshold: float = 0.5
    class_labels: tuple = (0, 1)
    source: str = ""
    kind: str = ""
    sha256: str = ""
    input_codes: dict | None = None  # text column -> categories in code order (data.categorical_encoding)
    class_order: tuple | None = None  # multi-class: the model's column of each data class (set by align_to)
    regression: bool = False  # a regressor: predict_value, no probabilities
    calls: int = 0
    rows: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    # the last column index found to be feature_names in order, and those names then (see _columns)
    _confirmed: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @classmethod
    def from_artefact(cls, artefact, *, source="", kind="", sha256="", threshold=None,
                      target_note: str = "", data_classes: int | None = None) -> "HexevalModel":
        """Wrap a loaded artefact; ``target_note`` (see :func:`describe_target`) names the data's target in
        the message that refuses a model of another task (a regressor, a model of another number of classes
        than the data's ``data_classes``)."""
        preprocessor, names, art_threshold = None, None, None
        estimator = artefact
        if isinstance(artefact, dict):
            if "model" not in artefact:
                raise ModelError(f"The model file {source} holds a dict without a 'model' key (keys: {sorted(artefact)}). "
                                 "Save {'model': fitted_model, 'preprocessor': ..., 'feature_names': [...], 'threshold': 0.5}.")
            estimator = artefact["model"]
            preprocessor = artefact.get("preprocessor")
            names = list(artefact["feature_names"]) if artefact.get("feature_names") is not None else None
            art_threshold = artefact.get("threshold")
        regression = data_classes == 0
        if regression:
            _check_regressor(estimator, source, target_note)
        else:
            _check_estimator(estimator, source, target_note, data_classes)
        if names is None:
            raw_in = preprocessor if preprocessor is not None else estimator
            fitted = getattr(raw_in, "feature_names_in_", None)
            if fitted is None:
                booster_names = _booster_feature_names(estimator)
                fitted = booster_names
            names = [str(n) for n in fitted] if fitted is not None else None
        thr = threshold if threshold is not None else (art_threshold if art_threshold is not None else 0.5)
        if not 0 < float(thr) < 1:
            raise ModelError(f"Decision threshold {thr} is outside (0, 1). Use a probability such as 0.5.")
        labels = () if regression else tuple(getattr(estimator, "classes_", (0, 1)))
        _single_threaded(estimator)
        return cls(estimator, preprocessor, names, float(thr), labels, source, kind, sha256, regression=regression)

    @property
    def type_name(self) -> str:
        est = self.estimator
        steps = getattr(est, "steps", None)
        if steps:
            return " → ".join(type(s).__name__ for _, s in steps)
        prefix = f"{type(self.preprocessor).__name__} → " if self.preprocessor is not None else ""
        return prefix + type(est).__name__

    @property
    def n_classes(self) -> int:
        """Number of classes the model predicts (2 when it does not record its classes, 0 for a regressor)."""
        if self.regression:
            return 0
        classes = getattr(self.estimator, "classes_", None)
        return len(classes) if classes is not None else 2

    @property
    def positive_index(self) -> int:
        """Column of the estimator's ``predict_proba`` that belongs to ``class_labels[1]``.

        scikit-learn orders probability columns by ``classes_`` (sorted), so for a target such as
        ``churned``/``stayed`` with positive label ``churned`` the positive class is column 0.
        """
        classes = getattr(self.estimator, "classes_", None)
        if classes is None or len(classes) != 2:
            return 1
        return 0 if _same_label(classes[0], self.class_labels[1]) else 1

    def align_to(self, class_labels: tuple) -> str | None:
        """Make ``predict_proba``'s column 1 the data's positive label ``class_labels[1]``.

        Returns ``None`` when the model's classes are the data's labels (or the model does not
        record its classes), else a warning saying which model class is taken as positive.
        """
        classes = getattr(self.estimator, "classes_", None)
        if classes is not None and len(classes) > 2:
            return self._align_classes(list(classes), tuple(class_labels))
        if classes is None or len(classes) != 2:
            return None
        negative, positive = class_labels
        matched = [next((c for c in classes if _same_label(c, label)), None) for label in (negative, positive)]
        if matched[0] is None or matched[1] is None or _same_label(matched[0], matched[1]):
            self.class_labels = tuple(classes)
            return (f"The model's classes ({show(classes[0])}, {show(classes[1])}) are not the target's values "
                    f"({show(negative)}, {show(positive)}); HEXEval takes the model's class {show(classes[1])} to mean "
                    f"{show(positive)}. If that is wrong, set data.positive_label in the config.")
        self.class_labels = (matched[0], matched[1])
        return None

    def _align_classes(self, classes: list, class_labels: tuple) -> str | None:
        """Multi-class: ``class_order`` = the model's column of each data class; a warning when they differ."""
        matched = [next((k for k, c in enumerate(classes) if _same_label(c, label)), None) for label in class_labels]
        if len(classes) == len(class_labels) and None not in matched and len(set(matched)) == len(matched):
            self.class_order, self.class_labels = tuple(matched), tuple(class_labels)
            return None
        self.class_order, self.class_labels = tuple(range(len(classes))), tuple(classes)
        return (f"The model's classes ({show_all(classes)}) are not the target's values ({show_all(class_labels)}); "
                "HEXEval takes them in the same order (the model's first class is the target's first value, and so "
                "on). If that is wrong, retrain the model on this target.")

    def class_probabilities(self, X: pd.DataFrame) -> np.ndarray:
        """Probability of each class for raw rows, shape (n, K), columns in the data's class order.

        For a binary model this is ``predict_proba``; for a multi-class one the estimator's columns are
        put in the order ``align_to`` found (the model's own order before alignment).
        """
        proba = self._raw_proba(X)
        if proba.shape[1] == 2 and self.n_classes == 2:
            return proba[:, ::-1] if self.positive_index == 0 else proba
        order = list(self.class_order) if self.class_order is not None else list(range(proba.shape[1]))
        return proba[:, order]

    def predict_value(self, X: pd.DataFrame) -> np.ndarray:
        """A regressor's predictions for raw rows, shape (n,)."""
        X = self._columns(X)
        estimator, inputs = self._estimator_input(self._as_input(X))
        values = np.asarray(estimator.predict(inputs), dtype=float).reshape(len(X), -1)[:, 0]
        with self._lock:
            self.calls += 1
            self.rows += len(X)
        return values

    def predict_class(self, X: pd.DataFrame) -> np.ndarray:
        """Index of the predicted class per raw row: the threshold for a binary model, the most probable class
        (the first on a tie, as ``numpy.argmax``) for a multi-class one."""
        if self.n_classes == 2:
            return self.predict(X)
        return np.argmax(self.class_probabilities(X), axis=1)

    @property
    def final_estimator(self):
        steps = getattr(self.estimator, "steps", None)
        return steps[-1][1] if steps else self.estimator

    def transform(self, X: pd.DataFrame):
        """Raw rows -> the matrix the final estimator sees (preprocessing applied)."""
        X = self._as_input(self._columns(X))
        if self.preprocessor is not None:
            return self._estimator_input(X)[1]
        split = fast_preprocess.estimator_input(self.estimator, X)  # exact; see fast_preprocess
        if split is not None:
            return split[1]
        steps = getattr(self.estimator, "steps", None)
        if steps and len(steps) > 1:
            from sklearn.pipeline import Pipeline  # only multi-step pipelines reach this line

            return Pipeline(steps[:-1]).transform(X)
        return X

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Probabilities of (negative, positive) for raw rows; always shape (n, 2). Binary models only: a
        multi-class model is explained through a one-class view (``models.class_view``)."""
        proba = self._raw_proba(X)
        if proba.shape[1] != 2:
            raise ModelError(f"The model returned {proba.shape[1]} class probabilities where two were expected; "
                             "a multi-class model is evaluated one explained class at a time (models.class_view).")
        return proba[:, ::-1] if self.positive_index == 0 else proba

    def _raw_proba(self, X: pd.DataFrame) -> np.ndarray:
        """The estimator's own probability columns for raw rows (a 1-column output becomes two)."""
        X = self._columns(X)
        estimator, inputs = self._estimator_input(self._as_input(X))
        proba = np.asarray(fast_forest.predict_proba(estimator, inputs), dtype=float)  # exact; see fast_forest
        with self._lock:
            self.calls += 1
            self.rows += len(X)
        if proba.ndim == 1:
            proba = np.column_stack([1 - proba, proba])
        return proba

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """0/1 predictions at the decision threshold."""
        return (self.predict_proba(X)[:, 1] >= self.threshold).astype(int)

    def reset_counters(self) -> None:
        with self._lock:
            self.calls, self.rows = 0, 0

    def _columns(self, X: pd.DataFrame):
        if not isinstance(X, pd.DataFrame):
            raise TypeError("HexevalModel expects a pandas DataFrame of raw feature columns")
        if self.feature_names is None:
            return X
        confirmed = self._confirmed
        if confirmed is not None and confirmed[0] is X.columns and confirmed[1] == tuple(self.feature_names):
            return X  # the same (immutable) index as last time: the explainers' frames share their coder's index
        if len(X.columns) == len(self.feature_names) and \
                np.array_equal(X.columns.to_numpy(dtype=object), np.asarray(self.feature_names, dtype=object)):
            # already the model's columns in its order: selecting them again would only copy the frame (compared
            # as one array: name by name, a pandas text index costs ~0.4 us a name, ~0.1 ms a call on 300 columns)
            self._confirmed = (X.columns, tuple(self.feature_names))
            return X
        missing = [c for c in self.feature_names if c not in X.columns]
        if missing:
            raise ModelError(f"The model needs {noun(len(missing), 'the column', 'the columns')} {', '.join(missing)}, which the data does not have. "
                             "Use the CSV the model was trained on, or retrain the model on these columns.")
        return X[self.feature_names]

    def _estimator_input(self, inputs):
        """The object to predict with and what it takes: the artefact's preprocessor applied, or a Pipeline's
        preprocessing computed by :mod:`fast_preprocess` (exact) and its final estimator; else the estimator
        and ``inputs`` unchanged (scikit-learn's own path)."""
        if self.preprocessor is not None:
            fast = fast_preprocess.transform(self.preprocessor, inputs)
            return self.estimator, (self.preprocessor.transform(inputs) if fast is None else fast)
        split = fast_preprocess.estimator_input(self.estimator, inputs)
        return (self.estimator, inputs) if split is None else split

    def _as_input(self, X: pd.DataFrame):
        """Coded text columns (``input_codes``), and a plain matrix for estimators fitted without column names."""
        if self.input_codes:
            from ..data.input_encoding import encode_inputs  # only models given coded text columns need it

            X = encode_inputs(X, self.input_codes)
        if self.feature_names is not None and self.preprocessor is None and \
                not hasattr(self.final_estimator, "feature_names_in_") and \
                getattr(self.estimator, "steps", None) is None and not _is_xgb(self.estimator):
            return X.to_numpy()
        return X


def _same_label(a, b) -> bool:
    """Equal as values (``1 == 1.0``) or as text (``np.str_('yes') == 'yes'``)."""
    try:
        equal = bool(a == b)
    except (TypeError, ValueError):  # values that cannot be compared directly are compared as text
        equal = False
    return equal or str(a) == str(b)


def _single_threaded(estimator) -> None:
    """Predict XGBoost estimators on one thread (in memory only; the file is untouched).

    The engine sends many small batches (Anchor and DiCE searches, LIME neighbourhoods): on the
    2-core reference machine a 475-row call of the credit-risk pipeline takes ~6 ms on one thread
    and ~25 ms on two, where OpenMP start-up and contention dominate. Predictions are identical.
    """
    steps = getattr(estimator, "steps", None)
    final = steps[-1][1] if steps else estimator
    if _is_xgb(final) and hasattr(final, "set_params"):
        final.set_params(n_jobs=1)


def _is_xgb(est) -> bool:
    return type(est).__module__.startswith("xgboost")


def _booster_feature_names(est):
    if _is_xgb(est) and hasattr(est, "get_booster"):
        try:
            return est.get_booster().feature_names
        except Exception as err:  # an unfitted classifier raises NotFittedError
            raise ModelError(f"The XGBoost model is not fitted ({err}). Save a trained model.") from err
    return None


def describe_target(data) -> str:
    """``", but the target 'num' has 2 classes (0, 1)"`` for a refusal message ('' without data)."""
    if data is None:
        return ""
    if data.is_regression:
        values = pd.concat([data.y_train, data.y_test])
        return (f", but the target '{data.target}' is a number ({values.nunique()} different values from "
                f"{show(values.min())} to {show(values.max())})")
    return f", but the target '{data.target}' has {len(data.class_labels)} classes ({show_all(data.class_labels)})"


def _check_estimator(est, source, target_note: str = "", data_classes: int | None = None) -> None:
    where = f"The model in {PurePath(source).name if source else 'the file'} ({type(est).__name__})"
    if not hasattr(est, "predict_proba"):
        if _is_regressor(est):
            raise ModelError(f"{where} is a regressor: it predicts a number, not the probabilities of classes{target_note}. "
                             "HEXEval evaluates classifiers: train a classifier on this target (e.g. "
                             "LogisticRegression, RandomForestClassifier or XGBClassifier) and evaluate that.")
        raise ModelError(f"{where} has no predict_proba. HEXEval needs "
                         "probabilities: use a classifier such as LogisticRegression, RandomForestClassifier or "
                         "XGBClassifier, or wrap an SVM in CalibratedClassifierCV.")
    classes = getattr(est, "classes_", None)
    if classes is not None and len(classes) < 2:
        raise ModelError(f"{where} was trained on a single class ({show_all(classes)}): it cannot tell cases apart. "
                         "Train it on a target with two or more classes.")
    if classes is not None and data_classes is not None and len(classes) != data_classes:
        raise ModelError(f"{where} was trained on {len(classes)} classes ({show_all(classes)}){target_note}. "
                         f"Use a model trained on this {data_classes}-class target, or choose the target column the "
                         "model predicts.")


def _check_regressor(est, source, target_note: str = "") -> None:
    """A model for a numeric target must predict numbers: a regressor, not a classifier."""
    where = f"The model in {PurePath(source).name if source else 'the file'} ({type(est).__name__})"
    classes = getattr(est, "classes_", None)
    if classes is not None or (hasattr(est, "predict_proba") and not _is_regressor(est)):
        count = f" of {len(classes)} classes ({show_all(classes)})" if classes is not None else ""
        raise ModelError(f"{where} is a classifier{count}{target_note}. Train a regressor on this target (e.g. "
                         "LinearRegression, RandomForestRegressor or XGBRegressor), or choose the target column with "
                         "the classes the model predicts.")
    if not hasattr(est, "predict"):
        raise ModelError(f"{where} has no predict method{target_note}. Save a fitted regressor.")


def _is_regressor(est) -> bool:
    """scikit-learn's own verdict (``is_regressor``), else: it predicts but gives no probabilities."""
    from sklearn.base import is_regressor  # scikit-learn is only needed once a model is checked

    steps = getattr(est, "steps", None)
    final = steps[-1][1] if steps else est
    try:
        return bool(is_regressor(final))
    except (AttributeError, TypeError):  # objects that are not scikit-learn estimators
        return hasattr(final, "predict")
