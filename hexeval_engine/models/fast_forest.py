"""An exact, faster ``predict_proba`` for fitted scikit-learn random forests and extra-trees.

scikit-learn's ``ForestClassifier.predict_proba`` validates the input once, then hands every tree to
joblib (``Parallel`` with ``require="sharedmem"``), which wraps each call in configuration and warning
contexts. For the 200-tree heart forest that dispatch is ~10 ms of a ~11 ms call of a few hundred rows:
the explainers (Anchor, DiCE, LIME) make thousands of such calls.

:func:`predict_proba` does the same arithmetic without the dispatch: the forest's own input validation
(the float32 cast, feature-name and finiteness checks), then every tree's ``tree_.predict`` cut to the
forest's classes — what ``DecisionTreeClassifier.predict_proba(X, check_input=False)`` returns — summed
into a float64 array in estimator order and divided by the number of trees. That is the sequence
scikit-learn runs with ``n_jobs=1`` (``_accumulate_prediction`` adds each tree's answer into one
zero-initialised array, in order, then ``proba /= len(self.estimators_)``), so the result is
bit-identical to it. With ``n_jobs > 1`` scikit-learn adds the trees in whatever order its threads
finish, so its own answer can differ in the last bit from call to call; this path always gives the
``n_jobs=1`` answer.

Anything else (other estimators, subclasses that may override ``predict_proba``, multi-output forests,
pipelines whose last step is not such a forest) goes to the estimator's own ``predict_proba``.
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

_FORESTS = (RandomForestClassifier, ExtraTreesClassifier)
_TREES = (DecisionTreeClassifier, ExtraTreeClassifier)


def predict_proba(estimator, X):
    """Class probabilities of ``estimator`` for ``X``; exact fast path for plain forests.

    Parameters
    ----------
    estimator : object
        A fitted classifier, or a ``Pipeline`` whose last step is one.
    X : array-like or DataFrame
        The rows, as ``estimator.predict_proba`` takes them.

    Returns
    -------
    numpy.ndarray
        What ``estimator.predict_proba(X)`` returns (for a forest: its ``n_jobs=1`` answer, bit for bit).
    """
    steps = getattr(estimator, "steps", None)
    final = steps[-1][1] if steps else estimator
    if not is_plain_forest(final):
        return estimator.predict_proba(X)
    if steps:
        # Pipeline.predict_proba without metadata routing: every step but the last, skipping
        # None and "passthrough" steps, transforms in order.
        for _, step in steps[:-1]:
            if step is not None and not (isinstance(step, str) and step == "passthrough"):
                X = step.transform(X)
    return forest_proba(final, X)


def is_plain_forest(estimator) -> bool:
    """Whether ``estimator`` is a fitted single-output RandomForest/ExtraTrees classifier of stock trees.

    Exact types only: a subclass may override ``predict_proba`` and must keep its own.
    """
    if type(estimator) not in _FORESTS:
        return False
    trees = getattr(estimator, "estimators_", None)
    if not trees or getattr(estimator, "n_outputs_", None) != 1:
        return False
    return all(type(tree) in _TREES for tree in trees)


def forest_proba(forest, X) -> np.ndarray:
    """Mean of the trees' class probabilities, summed in estimator order as scikit-learn does with ``n_jobs=1``.

    Parameters
    ----------
    forest : RandomForestClassifier or ExtraTreesClassifier
        Fitted, single-output (see :func:`is_plain_forest`).
    X : array-like or DataFrame
        Rows; validated and cast to float32 by the forest's own check, as ``predict_proba`` does.

    Returns
    -------
    numpy.ndarray of shape (n_samples, n_classes)
    """
    X = forest._validate_X_predict(X)  # scikit-learn's own check: same cast, names and errors
    n_classes = int(forest.n_classes_)
    total = np.zeros((X.shape[0], n_classes), dtype=np.float64)
    for tree in forest.estimators_:
        total += tree.tree_.predict(X)[:, :n_classes]
    total /= len(forest.estimators_)
    return total
