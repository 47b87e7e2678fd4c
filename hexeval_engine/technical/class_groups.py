"""Shared cases grouped by the class they are explained for (multi-class models).

Public interface
----------------
``CaseGroup``  one group: the views, data and config its cases are explained and measured with
``case_groups(model, data, config, ids) -> list[CaseGroup]``
``label_explanations(explanations, group, X_raw) -> None``
``value_reference(groups) -> CaseGroup | None``  one view every regression case's attributions map from
``map_to_group(explanation, reference, group) -> Explanation``

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
from ..explainers.registry import spec_of
from ..explainers.render import render_into, row_dicts
from ..models.band_view import band_view, range_view
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
    scale :
        Regression: the band views' common scale (``models.band_view``).
    counterfactual_error : str or None
        Why DiCE has nothing to do for the group's case (its prediction already lies in
        ``data.counterfactual_range``), recorded as its failed explanation; ``None`` otherwise.
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
    scale: float = 0.0
    counterfactual_error: str | None = None

    def view_of(self, method: str) -> tuple:
        """``(model, config)`` that ``method`` explains and is measured with."""
        if spec_of(method, self.config).aims_at_target:  # explains how to reach the class or range aimed for
            return self.counterfactual_model, self.counterfactual_config
        return self.model, self.config


def case_groups(model, data, config, ids) -> list[CaseGroup]:
    """The sample ``ids`` in groups (one group for a binary model); groups keep the sample's order inside."""
    ids = [int(i) for i in ids]
    if data.is_regression:
        return _value_groups(model, data, config, ids)
    if config.data.counterfactual_range is not None:
        raise ConfigError(f"data.counterfactual_range is set ({_range_text(config.data.counterfactual_range)}), but "
                          f"the model is a {task_of(data, config).describe()} model: the range is for regressors. "
                          "Remove it (use data.counterfactual_target to choose a class).")
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
                                 "target": task.name(group.reached) if _aims(e.method, group) else None}
        if e.ok:
            render_into(e, rows[e.instance_id], group.data, group.view_of(e.method)[1])


def _value_groups(model, data, config, ids) -> list[CaseGroup]:
    """A regressor: one group per case, explained on its band view (``models.band_view``).

    Cases predicted at or above the training rows' mean prediction are explained as "why this high" (the
    prediction stays at or above its value minus the band), the others as "why this low". The band is
    ``data.regression_band`` times the target's standard deviation on the training rows. DiCE's
    counterfactuals move the prediction into ``data.counterfactual_range`` when it is set, else away from the
    explained side by ``data.counterfactual_shift`` (default: the band) times that deviation.
    """
    task = task_of(data, config)
    features = list(data.feature_names)
    train = model.predict_value(data.X_train[features])
    values = model.predict_value(data.X_test.iloc[ids][features]) if ids else np.array([])
    spread = float(np.std(data.y_train.to_numpy(dtype=float)))
    band = float(config.data.regression_band * spread)
    shift = band if config.data.counterfactual_shift is None else float(config.data.counterfactual_shift * spread)
    wanted = config.data.counterfactual_range
    scale = float(np.ptp(np.concatenate([train, values])) + 2 * band) or 1.0
    middle = float(np.mean(train))
    groups = []
    for i, value in zip(ids, values):
        direction = 1 if value >= middle else -1
        view = band_view(model, centre=value, band=band, scale=scale, direction=direction)
        edge = value - direction * band
        view_data = _value_data(data, train, model, edge, direction)
        words = _value_config(config, task, value, edge, direction)
        aim, aim_words, error = view, words, None
        if wanted is not None:
            aim = range_view(model, low=wanted[0], high=wanted[1], scale=scale)
            aim_words = _range_config(config, task, wanted)
            if aim.predict_proba(data.X_test.iloc[[i]][features])[0, 1] < 0.5:
                error = (f"The prediction ({task.value_text(value)}) already lies in data.counterfactual_range "
                         f"({_range_text(wanted)}), so there is nothing for a counterfactual to reach. Choose a "
                         "range the cases are not in, or remove the key to move each prediction by "
                         "data.counterfactual_shift.")
        elif shift != band:
            aim = band_view(model, centre=value, band=shift, scale=scale, direction=direction)
            aim_words = _value_config(config, task, value, value - direction * shift, direction)
        groups.append(CaseGroup(view, view_data, words, aim, aim_words, [int(i)], task=task,
                                probabilities=np.array([value]), direction=direction, edge=edge, scale=scale,
                                counterfactual_error=error))
    return groups


def affine(method: str, config) -> bool:
    """Whether ``method``'s explanation of a band view is an affine image of its explanation of the prediction
    (its spec's ``linear_in_output``: SHAP, LIME)."""
    return spec_of(method, config).linear_in_output


def _aims(method: str, group: CaseGroup) -> bool:
    return spec_of(method, group.config).aims_at_target


def value_reference(groups: list[CaseGroup]) -> CaseGroup | None:
    """Regression: one band view whose attributions every case's view maps from; ``None`` otherwise.

    Every case's view has ``q_i = 0.5 + d_i (f - e_i) / (2 s)`` with the common scale ``s``; the reference
    ``q_0 = 0.5 + (f - e_0) / (2 s)`` (``d = +1``, edge ``e_0`` the mean of the cases' edges) gives
    ``q_i = a_i + d_i q_0`` with ``a_i = 0.5 - d_i / 2 + d_i (e_0 - e_i) / (2 s)``. SHAP and LIME are linear in
    the explained function (Shapley values; LIME's weighted ridge fit on the same samples), so one
    explainer of ``q_0`` serves every case: attributions times ``d_i``, base values and intercepts through
    the affine map (:func:`map_to_group`), as long as no sample's prediction reaches a view's clip.
    """
    if not groups or groups[0].task is None or not groups[0].task.is_regression:
        return None
    first = groups[0]
    edge = float(np.mean([g.edge for g in groups]))
    view = band_view(first.model.estimator.model, centre=edge, band=0.0, scale=first.scale, direction=1)
    return dataclasses.replace(first, model=view, counterfactual_model=view, ids=[i for g in groups for i in g.ids],
                               direction=1, edge=edge, probabilities=None)


def map_to_group(explanation, reference: CaseGroup, group: CaseGroup):
    """The reference view's SHAP or LIME ``explanation`` of a case (towards class 1, the probability ``q_0``), as
    the explanation of ``group``'s view (towards its class 1: the prediction stays on the explained side)."""
    d = group.direction
    shift = 0.5 - d / 2 + d * (reference.edge - group.edge) / (2 * group.scale)
    e = dataclasses.replace(explanation, extra=dict(explanation.extra), predicted_class=1,
                            probability=shift + d * explanation.probability)
    if e.ok:
        e.attributions = {f: d * v for f, v in explanation.attributions.items()}
        for key in ("base_value", "intercept", "local_prediction"):
            if key in e.extra:
                e.extra[key] = shift + d * e.extra[key]
    return e


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


def _range_text(wanted) -> str:
    """``[low, high]`` in words: ``"between 100 and 150"``, ``"at most 150"``, ``"at least 200"``."""
    low, high = wanted
    if low is None:
        return f"at most {format_number(high)}"
    if high is None:
        return f"at least {format_number(low)}"
    return f"between {format_number(low)} and {format_number(high)}"


def _range_config(config, task: Task, wanted):
    """The counterfactuals' config when they aim at ``data.counterfactual_range``: its outcome words name the range."""
    domain = config.domain.model_copy(update={
        "positive_outcome": f"{task.quantity} outside the range {_range_text(wanted)}",
        "negative_outcome": f"{task.quantity} {_range_text(wanted)}"})
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
        if _aims(e.method, group):  # where its counterfactuals move the prediction, in the quantity's words
            e.extra["value_view"]["counterfactual_aim"] = group.counterfactual_config.domain.negative_outcome
        if e.ok:
            render_into(e, row, group.data, group.view_of(e.method)[1])


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
