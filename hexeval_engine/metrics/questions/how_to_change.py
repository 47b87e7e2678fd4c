"""*How to change it*: does the action each explanation suggests get the person the other outcome?

Public interface
----------------
``ActionSpace(data, kinds, *, steps)``  what the person can change, and the data-quantile steps of a move
``how_to_change_skills(answer, pool, space, jobs, *, draws, random_state) -> list[dict]``

Only features the person can change, in the directions they may move (``actionability``,
:mod:`hexeval_engine.explainers.actionability`), enter an action. The action each explanation suggests:

* counterfactuals: each shown counterfactual as shown, without its changes the person cannot make; the
  success is the share of shown counterfactuals that reach the other outcome (Wachter, Mittelstadt &
  Russell 2017, *Counterfactual explanations without opening the black box*, Harvard JOLT: a
  counterfactual is a recipe the person can follow);
* similar cases: become the nearest shown case with the other outcome on the features the person can change
  (its differences as shown, without those the person cannot make); an example that differs only in what
  cannot change suggests nothing (skill 0);
* attributions: the shown features that push towards the current answer (positive weight) and that the
  person can move, each moved *against its sign*: from the case's value across the training median (an
  attribution is the feature's contribution against typical values; moving it to the other side of
  them takes that contribution away). The reader does not know how far, so the features move together in
  ``steps`` equal steps of the training quantile, from the case's quantile to the far end; the action
  succeeds if some step reaches the other outcome;
* a rule: leave its easiest condition on a feature the person can move in the leaving direction (the
  smallest quantile distance from the case's value to the condition's threshold; a category condition
  costs one step), along the same quantile steps until the far end.

The budget is the explanation's size as shown (or at the common size): an attribution moves at most its
shown features, a rule one condition, a counterfactual its own changes. The skill subtracts the success
of a random action of the same number of features: features drawn at random among those the person can
move across the median, moved by the same steps, ``draws`` times:

    skill_how_to_change = success(suggested action) - mean success(random action of the same size)

A Random attribution names a random set with random signs, so its action is a random set of movable
features of some size and its expected skill is 0; an explanation that suggests nothing has skill 0. The
cost reported is the mean quantile distance moved per changed feature (a category change counts 1) of the
actions that succeed; ``NaN`` when none does. Where the person can change nothing at all, every method gets
``NaN`` and that reason.
"""

from __future__ import annotations

import bisect
import math

import numpy as np
import pandas as pd

from ...explainers.actionability import FIXED, forbidden_changes
from ..masking import instance_rng, sorted_choices
from .shown import ATTRIBUTION, EXAMPLE, RULE
from ...plain_values import finite_number

NOTHING_CHANGEABLE = "the person can change none of the features (every feature is declared fixed)"


class ActionSpace:
    """Movable features and the quantile steps of a move.

    Parameters
    ----------
    data : Dataset
        ``X_train`` gives each feature's quantiles, median and category frequencies.
    kinds : dict
        ``{feature: kind}`` from :func:`hexeval_engine.explainers.actionability.feature_actionability`.
    steps : int
        Quantile steps from the case's value to the far end.
    """

    def __init__(self, data, kinds: dict, *, steps: int):
        self.features = list(data.feature_names)
        self.categorical = set(data.categorical_features)
        self.kinds = {f: kinds.get(f, "actionable") for f in self.features}
        self.steps = int(steps)
        self.sorted, self.median, self.categories = {}, {}, {}
        self._lists = {}  # feature -> its sorted values as a list (ladders read them one by one)
        train = data.X_train
        for f in self.features:
            if f in self.categorical or not pd.api.types.is_numeric_dtype(train[f]):
                self.categorical.add(f)
                counts = train[f].dropna().astype(str).value_counts(sort=True)
                self.categories[f] = list(counts.index)
            else:
                values = np.sort(train[f].to_numpy(dtype=float, na_value=np.nan))
                values = values[np.isfinite(values)]
                self.sorted[f] = values
                self.median[f] = float(np.median(values)) if len(values) else float("nan")

    @property
    def changeable(self) -> bool:
        """Whether the person can change any feature at all."""
        return any(k not in FIXED for k in self.kinds.values())

    def allowed(self, feature: str, direction: int) -> bool:
        """Whether ``feature`` may move in ``direction`` (+1 up, -1 down, 0 a category change)."""
        kind = self.kinds[feature]
        if kind in FIXED:
            return False
        if feature in self.categorical:
            return kind == "actionable"
        return kind == "actionable" or (kind == "increase_only" and direction > 0) or (
            kind == "decrease_only" and direction < 0)

    def level(self, feature: str, value: float) -> float:
        """The training quantile of ``value`` (a float; mid-rank)."""
        values = self._listed(feature)  # a value's place among floats: numpy.searchsorted's, by bisection
        if not len(values) or not math.isfinite(value):
            return 0.5
        below = bisect.bisect_left(values, value)
        upto = bisect.bisect_right(values, value)
        return (below + upto) / 2 / len(values)

    def away(self, feature: str, value) -> int:
        """The direction across the median from ``value`` (+1 at the median); 0 for a category."""
        if feature in self.categorical:
            return 0
        number = finite_number(value)
        return -1 if number is not None and number > self.median[feature] else 1

    def movable(self, case) -> list[str]:
        """Features of ``case`` the person can move across the median."""
        return [f for f in self.features if self.allowed(f, self.away(f, case[f]))
                and (f in self.sorted and len(self.sorted[f]) or len(self.categories.get(f, ())) > 1)]

    def ladder(self, feature: str, value, direction: int, *, exclude=()) -> list[tuple[object, float]]:
        """``steps`` (new value, cost) pairs moving ``feature`` from ``value`` in ``direction`` (categories: the
        most frequent other categories, then the last one repeated; ``exclude`` are categories not to take)."""
        if feature in self.categorical:
            others = [c for c in self.categories[feature] if c != str(value) and c not in exclude]
            if not others:
                return []
            return [(others[min(t, len(others) - 1)], 1.0) for t in range(self.steps)]
        values = self.sorted[feature]
        if not len(values):
            return []
        start = self.level(feature, finite_number(value) if finite_number(value) is not None else float("nan"))
        far = 1.0 if direction > 0 else 0.0
        listed = self._listed(feature)
        out = []
        for t in range(1, self.steps + 1):
            target = start + (far - start) * t / self.steps
            # math.ceil of a finite float is the integer numpy.ceil rounds it to
            position = min(max(math.ceil(target * len(listed)) - 1, 0), len(listed) - 1)
            out.append((listed[position], abs(target - start)))
        return out

    def _listed(self, feature: str) -> list:
        """The feature's sorted training values as Python floats (what ``float(values[i])`` gives), listed once."""
        if feature not in self._lists:
            self._lists[feature] = self.sorted[feature].tolist()
        return self._lists[feature]




def _rule_move(space: ActionSpace, case, conditions):
    """``(feature, direction, exclude)`` of the easiest condition to leave, or ``None``."""
    best = None
    for c in conditions:
        f, op = c.feature, c.op
        if f in space.categorical:
            if not space.allowed(f, 0):
                continue
            values = c.value if isinstance(c.value, (list, tuple, set)) else [c.value]
            exclude = [str(v) for v in values] if op in ("=", "in") else []
            if op == "!=":
                continue  # leaving "not v" means becoming v: a single category, kept simple by skipping
            candidate = (0.5, f, 0, exclude)
        else:
            threshold = finite_number(c.value)
            if threshold is None or op not in ("<", "<=", ">", ">="):
                continue
            direction = 1 if op in ("<", "<=") else -1
            if not space.allowed(f, direction):
                continue
            x = finite_number(case[f])
            start = space.level(f, x if x is not None else float("nan"))
            candidate = (abs(space.level(f, threshold) - start), f, direction, [])
        if best is None or candidate[0] < best[0]:
            best = candidate
    return None if best is None else best[1:]


def _suggested(shown, case, space: ActionSpace) -> list[list[tuple]]:
    """The actions an explanation suggests: a list of actions, each a list of ``(feature, direction, exclude)``
    moves (ladder) or ``(feature, None, new value)`` (a counterfactual's change as shown). ``case`` is the case's
    :class:`_Values`, as every helper here takes it."""
    if shown.kind == ATTRIBUTION:
        moves = []
        movable = None  # the case's movable features, listed once when a positive weight first needs them
        for f, w in shown.weights.items():
            d = space.away(f, case[f])
            if w > 0 and space.allowed(f, d):
                movable = set(case.movable(space)) if movable is None else movable
                if f in movable:
                    moves.append((f, d, []))
        return [moves]
    if shown.kind == RULE:
        move = _rule_move(space, case, shown.conditions)
        return [[move] if move is not None else []]
    actions = []
    # similar cases: move towards the nearest case with the other outcome, on what the person may change
    for change in (shown.changes[:1] if shown.kind == EXAMPLE else shown.changes):
        forbidden = set(forbidden_changes(change, space.kinds))
        actions.append([(f, None, new) for f, (_, new) in change.items() if f not in forbidden])
    return actions


class _Rows:
    """Action rows for one model call: the case repeated, with the moved values written in."""

    def __init__(self):
        self.owner, self.cost = [], []
        self.writes = {}  # feature -> (rows written, values written)
        self.random = {}  # (case, features) -> the rows of that random action, made once (the same values)

    def add(self, k, values: dict, cost: float) -> int:
        self.owner.append(k)
        self.cost.append(cost)
        row = len(self.owner) - 1
        for f, v in values.items():
            self.writes.setdefault(f, ([], []))
            self.writes[f][0].append(row)
            self.writes[f][1].append(v)
        return row

    def add_steps(self, k, ladders: dict, costs: list) -> range:
        """One row per step ``t``, every feature of ``ladders`` (``{feature: [value at step t, ...]}``) at its
        value of step ``t``; ``costs`` per row. The rows added, consecutive."""
        start = len(self.owner)
        rows = range(start, start + len(costs))
        self.owner += [k] * len(costs)
        self.cost += costs
        for f, values in ladders.items():
            where, written = self.writes.setdefault(f, ([], []))
            where += rows
            written += values
        return rows

    def frame(self, pool) -> pd.DataFrame:
        case_rows = pool.train_rows + np.asarray(self.owner, dtype=np.intp)  # pool.case_row of each row's case
        rows = pool.compose(np.broadcast_to(case_rows[:, None], (len(case_rows), len(pool.features))))
        for f, (where, values) in self.writes.items():
            dtype = rows[f].dtype
            if isinstance(dtype, np.dtype) and dtype.kind in "iuf":
                # a numpy number column: only the written values are converted (each as the column's conversion
                # through objects converts it; the others stay as they are, which that round trip keeps)
                column = rows[f].to_numpy(copy=True)
                column[np.asarray(where)] = _converted(values, dtype)
                rows[f] = column
                continue
            column = rows[f].to_numpy(dtype=object, copy=True)
            column[np.asarray(where)] = values
            rows[f] = pd.Series(column).astype(dtype)
        return rows


def _converted(values: list, dtype: np.dtype) -> np.ndarray:
    """``values`` (ladder floats, category labels, shown values) converted to ``dtype`` one by one, as pandas converts
    an object column to it."""
    written = np.empty(len(values), dtype=object)
    written[:] = values
    return pd.Series(written, copy=False).astype(dtype).to_numpy()


class _Values(dict):
    """A case's values by feature (as ``case[f]`` gives them) and the ladders already built from them: the same
    move is laddered once per case, not once per random draw or per explanation of the case."""

    def __init__(self, values):
        super().__init__(values)
        self.ladders, self._movable, self._random = {}, None, None

    def movable(self, space) -> list[str]:
        if self._movable is None:
            self._movable = space.movable(self)
        return self._movable

    def ladder(self, space, f, d, exclude):
        key = (f, d, tuple(exclude))
        if key not in self.ladders:
            self.ladders[key] = space.ladder(f, self[f], d, exclude=exclude)
        return self.ladders[key]

    def random_moves(self, space) -> list[list]:
        """Per movable feature (in :meth:`movable`'s order), the values of its ladder across the median (what a
        random action moves it along), empty when it has no ladder."""
        if self._random is None:
            self._random = [[v for v, _ in self.ladder(space, f, space.away(f, self[f]), [])]
                            for f in self.movable(space)]
        return self._random


def _values(case) -> _Values:
    """The case's values exactly as indexing the row gives them (no conversion of numpy scalars)."""
    return _Values(zip(case.index, case.to_numpy()) if isinstance(case, pd.Series) else case)


def _ladder_rows(rows: _Rows, k, case, space, moves) -> list[int]:
    """Rows of a ladder action (all moves step together); empty when no move has a ladder."""
    ladders = [(f, case.ladder(space, f, d, ex)) for f, d, ex in moves]
    ladders = [(f, steps) for f, steps in ladders if steps]
    if not ladders:
        return []
    values = {}
    for f, steps in ladders:  # a feature moved twice takes its last move, as a row's values by feature do
        values[f] = [v for v, _ in steps]
    return rows.add_steps(k, values, [_StepCost(ladders, t) for t in range(space.steps)])


class _StepCost:
    """The cost of step ``t`` of a ladder action, worked out only for the rows whose cost is read (the first
    step that succeeds): the mean quantile distance its features moved."""

    __slots__ = ("ladders", "t")

    def __init__(self, ladders, t):
        self.ladders, self.t = ladders, t

    def __float__(self) -> float:
        return _mean([steps[self.t][1] for _, steps in self.ladders])


def _direct_row(rows: _Rows, k, case, space, moves) -> list[int]:
    values = {f: new for f, _, new in moves}
    costs = []
    for f, new in values.items():
        if f in space.categorical:
            costs.append(1.0)
        else:
            x, y = finite_number(case[f]), finite_number(new)
            costs.append(abs(space.level(f, y) - space.level(f, x)) if x is not None and y is not None else 1.0)
    return [rows.add(k, values, _mean(costs))]


def how_to_change_skills(answer, pool, space: ActionSpace, jobs, *, draws: int, random_state: int) -> list[dict]:
    """Per job ``(k, iid, case, shown)``: ``skill``, ``success``, ``reference``, ``cost``, ``size`` and ``reason``.

    One model call for every action row (suggested and random).
    """
    if not space.changeable:
        nan = float("nan")
        return [{"skill": nan, "success": nan, "reference": nan, "cost": nan, "size": nan,
                 "reason": NOTHING_CHANGEABLE} for _ in jobs]
    rows = _Rows()
    plans = []  # per job: list of (size, row indices)
    references = {}  # (k, size) -> list of row-index lists
    cases = {}  # k -> the case's _Values, shared by the case's explanations (and their ladders)
    for k, iid, case, shown in jobs:
        if k not in cases:
            cases[k] = _values(case)
        case = cases[k]
        plan = []
        for moves in _suggested(shown, case, space):
            ladder = bool(moves) and moves[0][1] is not None
            made = _ladder_rows(rows, k, case, space, moves) if ladder else (
                _direct_row(rows, k, case, space, moves) if moves else [])
            size = len(moves) if made else 0
            plan.append((size, made))
            if (k, size) not in references:
                references[(k, size)] = _random_actions(rows, k, iid, case, space, size, draws, random_state)
        plans.append(plan)
    reached = answer.reaches(rows.frame(pool), rows.owner) if rows.owner else np.zeros(0, dtype=bool)
    # the reference of a case and size: the share of its random actions with a row that gets the other outcome
    # (an action's rows are consecutive: some row of rows a..b-1 does when more rows up to b than up to a do)
    up_to = np.concatenate([[0], np.cumsum(reached, dtype=np.int64)])
    # (a share: its count is exact in any order, so it is numpy.mean's)
    baseline = {key: sum(len(t) > 0 and bool(up_to[t.stop] > up_to[t.start]) for t in tries) / len(tries)
                if tries else 0.0 for key, tries in references.items()}
    out = []
    for (k, _, _, _), plan in zip(jobs, plans):
        successes, costs, baselines = [], [], []
        for size, made in plan:
            hit = [r for r in made if reached[r]]
            successes.append(1.0 if hit else 0.0)
            if hit:
                costs.append(float(rows.cost[hit[0]]))
            baselines.append(baseline[(k, size)])
        success = _mean(successes) if successes else 0.0
        reference = _mean(baselines) if baselines else 0.0
        out.append({"skill": success - reference, "success": success, "reference": reference,
                    "cost": _mean(costs) if costs else float("nan"),
                    "size": _mean([s for s, _ in plan]) if plan else 0.0, "reason": None})
    return out


def _mean(values: list) -> float:
    """``float(numpy.mean(values))`` of a list of numbers (or booleans): below 8 values numpy adds them one after
    the other from 0.0, as ``sum`` does, and divides once; from 8 on it sums in blocks, so numpy is asked."""
    return sum(values) / len(values) if len(values) < 8 else float(np.mean(values))


def _random_actions(rows: _Rows, k, iid, case, space, size, draws, random_state) -> list[range]:
    """``draws`` random actions of ``size`` movable features of the case, each moved across the median along its
    ladder (all together, step by step): each action's rows (none when no chosen feature has a ladder)."""
    movable = case.movable(space)
    size = min(int(size), len(movable))
    if size <= 0:
        return []
    rng = instance_rng(random_state, iid, f"question-action-{size}")
    ladders = case.random_moves(space)
    unset = [float("nan")] * space.steps  # only whether a random action succeeds is read, not its cost
    out = []
    for picked in sorted_choices(rng, len(movable), size, int(draws)).tolist():  # as draws rng.choice calls
        chosen = {movable[j]: ladders[j] for j in picked if ladders[j]}
        if not chosen:
            out.append(range(0))
            continue
        # a draw of features already drawn for this case moves them along the same ladders: its rows are those
        key = (k, tuple(chosen))
        if key not in rows.random:
            rows.random[key] = rows.add_steps(k, chosen, unset)
        out.append(rows.random[key])
    return out
