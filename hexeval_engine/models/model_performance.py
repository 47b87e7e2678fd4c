"""The model card's numbers: how well the model does on held-out rows, for each class.

Computed the same way for bundled and uploaded models, on the test split only (rows the split put
aside; for an uploaded model HEXEval cannot know which rows it was trained on, so rows that also
appear among the training rows are counted and reported). Precision, recall and F1 per class follow
scikit-learn's ``precision_recall_fscore_support`` (van Rijsbergen, *Information Retrieval*, 1979,
for F1); ROC-AUC is the area under the ROC curve (Fawcett, "An introduction to ROC analysis",
Pattern Recognition Letters 27, 2006).
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, confusion_matrix, precision_recall_fscore_support, roc_auc_score

from ..plain_values import plain


def held_out_performance(model, data) -> dict:
    """Model-card metrics of ``model`` (a ``HexevalModel``) on ``data.X_test``.

    Returns
    -------
    dict
        ``per_class`` (label, role, precision, recall, f1, support for each class),
        ``confusion_matrix`` (rows = actual negative/positive, columns = predicted),
        ``accuracy``, ``roc_auc``, ``n_train``, ``n_test``, ``threshold``, ``leaking_test_rows``, and the
        positive class's ``test_precision``/``test_recall``/``test_f1`` (the keys older cards use).
    """
    if data.is_regression:
        return value_performance(data.y_test.to_numpy(dtype=float), model.predict_value(data.X_test),
                                 y_train=data.y_train.to_numpy(dtype=float), n_train=len(data.X_train),
                                 leaking_test_rows=data.quality.duplicates_crossing_split)
    if data.n_classes > 2:
        return class_performance(data.y_test.to_numpy(), model.class_probabilities(data.X_test),
                                 class_labels=data.class_labels, n_train=len(data.X_train),
                                 leaking_test_rows=data.quality.duplicates_crossing_split)
    proba = model.predict_proba(data.X_test)[:, 1]
    return performance_from_scores(data.y_test.to_numpy(), proba, threshold=model.threshold,
                                   class_labels=data.class_labels, n_train=len(data.X_train),
                                   leaking_test_rows=data.quality.duplicates_crossing_split)


def performance_from_scores(y, proba, *, threshold: float, class_labels: tuple, n_train: int,
                            leaking_test_rows: int = 0) -> dict:
    """:func:`held_out_performance` from 0/1 truths and positive-class probabilities."""
    y = np.asarray(y).astype(int)
    pred = (np.asarray(proba) >= threshold).astype(int)
    precision, recall, f1, support = precision_recall_fscore_support(y, pred, labels=[0, 1], zero_division=0)
    per_class = [{"class": str(plain(class_labels[k])), "role": ("negative", "positive")[k],
                  "precision": float(precision[k]), "recall": float(recall[k]), "f1": float(f1[k]),
                  "support": int(support[k])} for k in (0, 1)]
    both = len(np.unique(y)) == 2
    return {
        "n_train": int(n_train),
        "n_test": int(len(y)),
        "threshold": float(threshold),
        "accuracy": float(accuracy_score(y, pred)),
        "roc_auc": float(roc_auc_score(y, proba)) if both else None,
        "per_class": per_class,
        "confusion_matrix": confusion_matrix(y, pred, labels=[0, 1]).tolist(),
        "class_labels": [str(plain(c)) for c in class_labels],
        "leaking_test_rows": int(leaking_test_rows),
        "test_accuracy": float(accuracy_score(y, pred)),
        "test_roc_auc": float(roc_auc_score(y, proba)) if both else None,
        "test_precision": float(precision[1]),
        "test_recall": float(recall[1]),
        "test_f1": float(f1[1]),
        "positive_rate_test": float(np.mean(y)),
    }


def class_performance(y, proba, *, class_labels: tuple, n_train: int, leaking_test_rows: int = 0) -> dict:
    """:func:`held_out_performance` of a multi-class model from class indices and (n, K) probabilities.

    The prediction is the most probable class. ``per_class`` has each class's precision, recall, F1 and
    support (role ``"class"``), ``confusion_matrix`` is K x K (rows = actual, columns = predicted),
    ``roc_auc`` the macro average of the one-vs-rest ROC-AUCs (Hand & Till-style averaging as in
    scikit-learn's ``multi_class="ovr"``), and ``test_precision``/``test_recall``/``test_f1`` the macro
    averages over the classes.
    """
    y = np.asarray(y).astype(int)
    proba = np.asarray(proba, dtype=float)
    labels = list(range(len(class_labels)))
    pred = np.argmax(proba, axis=1)
    precision, recall, f1, support = precision_recall_fscore_support(y, pred, labels=labels, zero_division=0)
    per_class = [{"class": str(plain(class_labels[k])), "role": "class", "precision": float(precision[k]),
                  "recall": float(recall[k]), "f1": float(f1[k]), "support": int(support[k])} for k in labels]
    every = len(np.unique(y)) == len(labels)
    auc = float(roc_auc_score(y, proba, multi_class="ovr", average="macro", labels=labels)) if every else None
    accuracy = float(accuracy_score(y, pred))
    return {
        "task": f"{len(labels)}-class classification",
        "n_train": int(n_train),
        "n_test": int(len(y)),
        "threshold": None,
        "accuracy": accuracy,
        "roc_auc": auc,
        "roc_auc_kind": "macro one-vs-rest",
        "per_class": per_class,
        "confusion_matrix": confusion_matrix(y, pred, labels=labels).tolist(),
        "class_labels": [str(plain(c)) for c in class_labels],
        "leaking_test_rows": int(leaking_test_rows),
        "test_accuracy": accuracy,
        "test_roc_auc": auc,
        "test_precision": float(np.mean(precision)),
        "test_recall": float(np.mean(recall)),
        "test_f1": float(np.mean(f1)),
        "majority_rate_test": float(np.bincount(y, minlength=len(labels)).max() / max(len(y), 1)),
    }


def value_performance(y, predicted, *, y_train, n_train: int, leaking_test_rows: int = 0) -> dict:
    """:func:`held_out_performance` of a regressor: MAE, RMSE and R² on the test rows, the residuals'
    quantiles (actual - predicted), and the same errors of predicting the training mean (the baseline a
    model must beat)."""
    y, predicted = np.asarray(y, dtype=float), np.asarray(predicted, dtype=float)
    residuals = y - predicted
    mean_only = y - float(np.mean(y_train))
    total = float(np.sum((y - np.mean(y)) ** 2))
    r2 = 1 - float(np.sum(residuals ** 2)) / total if total else float("nan")
    quantiles = np.quantile(residuals, [0.05, 0.25, 0.5, 0.75, 0.95])
    return {
        "task": "regression",
        "n_train": int(n_train),
        "n_test": int(len(y)),
        "threshold": None,
        "mae": float(np.mean(np.abs(residuals))),
        "rmse": float(np.sqrt(np.mean(residuals ** 2))),
        "r2": r2,
        "residuals": {"mean": float(np.mean(residuals)), "std": float(np.std(residuals)),
                      **{f"q{int(q * 100):02d}": float(v) for q, v in zip((0.05, 0.25, 0.5, 0.75, 0.95), quantiles)}},
        "mean_prediction_mae": float(np.mean(np.abs(mean_only))),
        "mean_prediction_rmse": float(np.sqrt(np.mean(mean_only ** 2))),
        "class_labels": [],
        "per_class": [],
        "leaking_test_rows": int(leaking_test_rows),
        "test_mae": float(np.mean(np.abs(residuals))),
        "test_rmse": float(np.sqrt(np.mean(residuals ** 2))),
        "test_r2": r2,
    }
