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
