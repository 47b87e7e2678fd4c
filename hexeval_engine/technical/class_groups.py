"""Shared cases grouped by the class they are explained for (multi-class models).

Public interface
----------------
``CaseGroup``  one group: the views, data and config its cases are explained and measured with
``case_groups(model, data, config, ids) -> list[CaseGroup]``
``label_explanations(explanations, group, X_raw) -> None``

A binary model gives one group: the model, data and config themselves, every case (the binary path is
untouched). A multi-class model's cases are grouped by the class ``c`` the model predicts for them and
the class ``t`` their counterfactuals aim for (``data.counterfactual_target``, else the case's
runner-up class). Each group runs the binary machinery on the one-class view of the model for ``c``
(:func:`hexeval_engine.models.class_view.class_view`): a data view whose outcome is "class c or not"
(so a rule's precision is measured against c's base rate), and a config whose outcome words name c and
its rivals. DiCE explains and is measured on the view that flips exactly when the model predicts ``t``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..explainers.render import render_into, row_dicts
from ..models.class_view import class_view
from ..models.task import Task, task_of
from ..plain_values import plain, show, show_all


@dataclasses.dataclass
class CaseGroup:
    """Cases explained for one class (or all cases of a binary model).

    Attributes
    ----------
    model, data, config :
        What SHAP, LIME, Anchor and Random explain and are measured with (the one-class views for a
        multi-class model).
    counterfactual_model, counterfactual_config :
        What DiCE explains and is measured with (the view that flips to the target class).
    ids : list of int
        The group's cases (rows of ``data.X_test``), in sample order.
    explained, reached : int or None
        Class indices of the explained class and of the counterfactuals' target (``None``: binary).
    task : Task or None
        The task (``None``: binary).
    probabilities : ndarray or None
        Each case's probability of the explained class (multi-class), for texts.
    """

    model: object
    data: object
    config: object
    counterfactual_model: object
    counterfactual_config: object
    ids: list
    explained: int | None = None
    reached: int | None = None
    task: Task | None = None
    probabilities: np.ndarray | None = None

    def view_of(self, method: str) -> tuple:
        """``(model, config)`` that ``method`` explains and is measured with."""
        if method == "DiCE":
            return self.counterfactual_model, self.counterfactual_config
        return self.model, self.config


def case_groups(model, data, config, ids) -> list[CaseGroup]:
    """The sample ``ids`` in groups (one group for a binary model); groups keep the sample's order inside."""
    ids = [int(i) for i in ids]
    if data.n_classes == 2:
        return [CaseGroup(model, data, config, model, config, ids)]
    task = task_of(data, config)
    X = data.X_test.iloc[ids][list(data.feature_names)]
    proba = model.class_probabilities(X) if ids else np.zeros((0, task.n_classes))
    order = np.argsort(-proba, axis=1, kind="stable")
    explained = np.argmax(proba, axis=1) if ids else np.array([], dtype=int)
    runner_up = np.array([next(k for k in row if k != c) for row, c in zip(order, explained)], dtype=int)
    wanted = _target_index(config, task)
    reached = runner_up if wanted is None else np.where(explained != wanted, wanted, runner_up)
    groups = []
    for c, t in sorted({(int(c), int(t)) for c, t in zip(explained, reached)}):
        members = [k for k in range(len(ids)) if explained[k] == c and reached[k] == t]
        view_data = _data_view(data, c, task)
        groups.append(CaseGroup(
            class_view(model, c), view_data, _config_view(config, task, c, None),
            class_view(model, c, reached=t), _config_view(config, task, c, t),
            [ids[k] for k in members], c, t, task, proba[members, c]))
    return groups


def label_explanations(explanations, group: CaseGroup, X_raw: pd.DataFrame) -> None:
    """Record the explained class on each of the group's explanations and word their texts with it.

    ``extra["class_view"]`` holds the explained class (label and name), its probability from the real
    model, the rivals in words and, for counterfactuals, the class aimed for; the texts are rendered again
    so they say which class they explain (``explainers.render``).
    """
    if group.task is None:
        return
    task, c = group.task, group.explained
    probability = dict(zip(group.ids, group.probabilities))
    rows = dict(zip(group.ids, row_dicts(X_raw)))
    for e in explanations:
        if e.instance_id not in probability:
            continue
        e.extra["class_view"] = {"class": str(plain(task.class_labels[c])), "name": task.name(c),
                                 "probability": float(probability[e.instance_id]), "rivals": task.rivals(c),
                                 "target": task.name(group.reached) if e.method == "DiCE" else None}
        if e.ok:
            render_into(e, rows[e.instance_id], group.data, group.view_of(e.method)[1])


def _target_index(config, task: Task) -> int | None:
    """Index of ``data.counterfactual_target`` (``None`` when unset); ConfigError when it is not a class."""
    wanted = config.data.counterfactual_target
    if wanted is None:
        return None
    for k, label in enumerate(task.class_labels):
        if str(plain(label)) == str(wanted) or task.name(k) == str(wanted):
            return k
    raise ConfigError(f"data.counterfactual_target {show(wanted)} is not a class of the target (its classes are "
                      f"{show_all(task.class_labels)}). Use one of these, or remove the key to aim each case's "
                      "counterfactuals at its runner-up class.")


def _data_view(data, c: int, task: Task):
    """The data with the outcome "class c (1) or another class (0)"."""
    return dataclasses.replace(data, y_train=(data.y_train == c).astype(int), y_test=(data.y_test == c).astype(int),
                               class_labels=(f"not {task.name(c)}", task.name(c)))


def _config_view(config, task: Task, c: int, t: int | None):
    """The config whose outcome words are class ``c`` and its rivals (or the target class ``t``)."""
    other = task.rivals(c) if t is None else task.name(t)
    domain = config.domain.model_copy(update={"positive_outcome": task.name(c), "negative_outcome": other})
    return config.model_copy(update={"domain": domain})
