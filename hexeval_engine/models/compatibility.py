"""``validate_model_data_compatibility``: can this model be evaluated on this data?"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.dataset import Dataset
from ..data.input_encoding import OPTION
from ..errors import HexevalError
from ..vocabulary import noun
from .model_wrapper import HexevalModel

SAMPLE_ROWS = 200


def validate_model_data_compatibility(model: HexevalModel, data: Dataset) -> dict:
    """Check that ``model`` predicts sensible probabilities on ``data``.

    Also aligns the model's probability columns with the data's positive label
    (``HexevalModel.align_to``), so call it before explaining.

    Returns ``{"status": "valid"|"invalid", "errors": [...], "warnings": [...], "checks": {...}}``.
    """
    errors, warnings, checks = [], [], {}
    label_note = model.align_to(data.class_labels)
    checks["positive_column"] = model.positive_index
    names = model.feature_names
    if names is not None:
        missing = [c for c in names if c not in data.feature_names]
        extra = [c for c in data.feature_names if c not in names]
        checks["missing_features"], checks["extra_columns"] = missing, extra
        if data.target in missing:
            errors.append(f"The model uses the column {data.target} as an input, but it was chosen as the target. Choose "
                          "the column the model predicts as the target.")
        elif missing:
            errors.append(f"The model needs {noun(len(missing), 'a feature', 'features')} the CSV lacks: {', '.join(missing)}. Use the CSV the model was trained on.")
        if extra:
            warnings.append(f"The CSV has {noun(len(extra), 'a column', 'columns')} the model does not use: {', '.join(extra)}. They are ignored by the "
                            "model but explainers will still vary them; drop them for cleaner explanations.")
    else:
        warnings.append("The model file does not record its input column names; HEXEval assumes the CSV's column order.")
    if not errors:
        _check_predictions(model, data, errors, warnings, checks)
    if label_note and not errors:  # which class means what only matters once the model could be checked
        warnings.insert(0, label_note)
    return {"status": "invalid" if errors else "valid", "errors": errors, "warnings": warnings, "checks": checks}


def _check_predictions(model, data, errors, warnings, checks) -> None:
    sample = data.X_test.head(SAMPLE_ROWS)
    try:
        if model.regression:
            _check_values(model, data, sample, errors, warnings, checks)
            return
        proba = model.class_probabilities(sample)
    except HexevalError as err:
        errors.append(str(err))
        return
    except Exception as err:  # any failure of third-party predict code is reported, not raised
        errors.append(_prediction_failure(model, sample, err))
        return
    checks["sample_rows"] = len(sample)
    if model.n_classes > 2:
        _check_class_predictions(model, data, sample, errors, warnings, checks)
        return
    if not np.all(np.isfinite(proba)):
        errors.append("The model returned NaN or infinite probabilities on the sample; check missing-value handling.")
        return
    if proba.min() < -1e-9 or proba.max() > 1 + 1e-9:
        errors.append(f"The model returned probabilities outside [0, 1] (min {proba.min():.3g}, max {proba.max():.3g}); "
                      "HEXEval needs calibrated probabilities from predict_proba.")
        return
    pred = (proba[:, 1] >= model.threshold).astype(int)
    checks["predicted_positive_share"] = float(pred.mean())
    if pred.min() == pred.max():
        errors.append(f"The model predicts class {pred[0]} for every one of {len(sample)} test rows, so there is nothing "
                      "to explain. Check that the model matches the data (same target and positive label).")
        return
    y = data.y_test.head(SAMPLE_ROWS).to_numpy()
    accuracy = float((pred == y).mean())
    checks["sample_accuracy"] = accuracy
    if accuracy < 0.5:
        warnings.append(f"Accuracy on the test sample is {accuracy:.0%}, worse than chance: the positive label may be "
                        "reversed or the model may belong to other data.")


def _check_values(model, data, sample, errors, warnings, checks) -> None:
    """The regression checks: finite predictions that vary, closer to the truth than the training mean."""
    values = model.predict_value(sample)
    checks["sample_rows"] = len(sample)
    if not np.all(np.isfinite(values)):
        errors.append("The model returned missing or infinite predictions on the test sample; check its "
                      "missing-value handling.")
        return
    if np.ptp(values) == 0:
        errors.append(f"The model predicts the same value for every one of {len(sample)} test rows, so there is "
                      "nothing to explain. Check that the model matches the data (same target).")
        return
    y = data.y_test.head(SAMPLE_ROWS).to_numpy(dtype=float)
    error = float(np.mean((values - y) ** 2))
    baseline = float(np.mean((float(data.y_train.mean()) - y) ** 2))
    checks["sample_r2"] = 1 - error / baseline if baseline else float("nan")
    if error >= baseline:
        warnings.append(f"On the test sample the model's squared error ({error:.3g}) is no smaller than predicting the "
                        f"training mean ({baseline:.3g}): it may belong to other data or another target.")


def _check_class_predictions(model, data, sample, errors, warnings, checks) -> None:
    """The multi-class checks: finite probabilities in [0, 1] that sum to one, more than one class predicted."""
    proba = model.class_probabilities(sample)
    if not np.all(np.isfinite(proba)) or proba.min() < -1e-6 or proba.max() > 1 + 1e-6:  # float32 graphs round
        errors.append("The model returned class probabilities that are missing, infinite or outside [0, 1] on the "
                      "test sample; HEXEval needs probabilities from predict_proba (check missing-value handling).")
        return
    sums = proba.sum(axis=1)
    if np.max(np.abs(sums - 1)) > 1e-3:
        errors.append(f"The model's class probabilities do not add up to 1 (from {sums.min():.3g} to {sums.max():.3g} "
                      "on the test sample); end a network with a softmax so its outputs are probabilities.")
        return
    pred = np.argmax(proba, axis=1)
    checks["predicted_class_shares"] = {str(k): float(np.mean(pred == k)) for k in range(proba.shape[1])}
    if len(np.unique(pred)) == 1:
        errors.append(f"The model predicts the same class for every one of {len(sample)} test rows, so there is "
                      "nothing to explain. Check that the model matches the data (same target).")
        return
    y = data.y_test.head(SAMPLE_ROWS).to_numpy()
    accuracy = float((pred == y).mean())
    checks["sample_accuracy"] = accuracy
    majority = float(np.bincount(y, minlength=proba.shape[1]).max() / max(len(y), 1))
    if accuracy <= majority:
        warnings.append(f"Accuracy on the test sample is {accuracy:.0%}, no better than always predicting the most "
                        f"common class ({majority:.0%}): the model may belong to other data or another class order.")


def _prediction_failure(model: HexevalModel, sample: pd.DataFrame, err: Exception) -> str:
    """What went wrong, in words: text columns meeting a model that expects numbers get their own message."""
    coded = set(model.input_codes or {})
    text_cols = [c for c in sample.columns if not pd.api.types.is_numeric_dtype(sample[c]) and c not in coded]
    if text_cols:
        return (f"The model ({model.type_name}) could not predict on {len(sample)} test rows: text {noun(len(text_cols), 'column')} "
                f"{', '.join(text_cols)} reach it as text, but it expects numbers. If it was trained on integer codes "
                f"of these columns, set {OPTION}: label in the config (sorted-category codes, as scikit-learn's "
                "LabelEncoder makes them) or ordinal with data.category_order (on the dashboard: \"Text columns reach "
                "the model as\"). Otherwise save the model as a Pipeline that includes its encoder.")
    detail = str(err).strip().splitlines()[0][:300] if str(err).strip() else type(err).__name__
    return (f"The model ({model.type_name}) could not predict on {len(sample)} test rows ({detail}). "
            "Check that the model was trained on these columns.")
