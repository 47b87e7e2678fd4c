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
from ..models.band_view import band_view
from ..models.class_view import class_view
from ..models.task import Task, task_of
from ..plain_values import plain, show, show_all
from ..vocabulary import format_number


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
        Each case's probability of the explained class (multi-class) or its predicted value (regression),
        for texts.
    direction, edge :
        Regression: +1 to explain "why this high", -1 "why this low"; the band's edge on that side.
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
    direction: int = 0
    edge: float = 0.0

    def view_of(self, method: str) -> tuple:
        """``(model, config)`` that ``method`` explains and is measured with."""
        if method == "DiCE":
            return self.counterfactual_model, self.counterfactual_config
        return self.model, self.config


def case_groups(model, data, config, ids) -> list[CaseGroup]:
    """The sample ``ids`` in groups (one group for a binary model); groups keep the sample's order inside."""
    ids = [int(i) for i in ids]
    if data.is_regression:
        return _value_groups(model, data, config, ids)
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
    if group.task.is_regression:
        _label_values(explanations, group, X_raw)
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


def _value_groups(model, data, config, ids) -> list[CaseGroup]:
    """A regressor: one group per case, explained on its band view (``models.band_view``).

    Cases predicted at or above the training rows' mean prediction are explained as "why this high" (the
    prediction stays at or above its value minus the band), the others as "why this low". The band is
    ``data.regression_band`` times the target's standard deviation on the training rows; DiCE's
    counterfactuals move the prediction beyond it.
    """
    task = task_of(data, config)
    features = list(data.feature_names)
    train = model.predict_value(data.X_train[features])
    values = model.predict_value(data.X_test.iloc[ids][features]) if ids else np.array([])
    band = float(config.data.regression_band * np.std(data.y_train.to_numpy(dtype=float)))
    scale = float(np.ptp(np.concatenate([train, values])) + 2 * band) or 1.0
    middle = float(np.mean(train))
    groups = []
    for i, value in zip(ids, values):
        direction = 1 if value >= middle else -1
        view = band_view(model, centre=value, band=band, scale=scale, direction=direction)
        edge = value - direction * band
        view_data = _value_data(data, train, model, edge, direction)
        words = _value_config(config, task, value, edge, direction)
        groups.append(CaseGroup(view, view_data, words, view, words, [int(i)], task=task,
                                probabilities=np.array([value]), direction=direction, edge=edge))
    return groups


def _value_data(data, train_values, model, edge: float, direction: int):
    """The data with the outcome "the value is on the explained side of ``edge``" (training: the model's
    predictions; test: the actual values, as for classes)."""
    side = (lambda v: v >= edge) if direction > 0 else (lambda v: v <= edge)
    return dataclasses.replace(data, y_train=pd.Series(side(train_values).astype(int), name=data.target),
                               y_test=side(data.y_test.astype(float)).astype(int), class_labels=("beyond", "within"))


def _value_config(config, task: Task, value: float, edge: float, direction: int):
    """The config whose outcome words are "at least / at most the edge" of the band."""
    words = ("at least", "below") if direction > 0 else ("at most", "above")
    domain = config.domain.model_copy(update={
        "positive_outcome": f"{task.quantity} {words[0]} {format_number(edge)}",
        "negative_outcome": f"{task.quantity} {words[1]} {format_number(edge)}"})
    return config.model_copy(update={"domain": domain})


def _label_values(explanations, group: CaseGroup, X_raw: pd.DataFrame) -> None:
    """Regression: record the predicted value and the explained side on each explanation, word the texts."""
    task, (iid,), value = group.task, group.ids, float(group.probabilities[0])
    view = {"prediction": value, "prediction_text": task.value_text(value), "direction": group.direction,
            "edge": group.edge, "quantity": task.quantity,
            "side": f"{'at least' if group.direction > 0 else 'at most'} {format_number(group.edge)}"}
    (row,) = row_dicts(X_raw)
    for e in explanations:
        if e.instance_id != iid:
            continue
        e.extra["value_view"] = dict(view)
        if e.ok:
            render_into(e, row, group.data, group.config)


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
