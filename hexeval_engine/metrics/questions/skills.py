"""Every method's skill on the four stakeholder questions, per case, in the long metric table.

Public interface
----------------
``question_skills(model, data, explanations, config, *, random_state, actionability=None, ...) -> DataFrame``
``SKILL_METRICS``, ``QUESTION_METRICS``  the metric names written (see ``docs/metrics.md``)

For each explanation that shows something (:mod:`.shown`) and each case, at the explanation's own size and at
the case's *common size* (suffix ``_common``): the smallest shown size among the case's methods that are
not baselines (at least 1), every explanation of the case cut to it (:meth:`.Shown.cut`), the Random baseline
included, so families are compared on equal footing:

* ``skill_why`` (:mod:`.why`), with ``why_move``;
* ``skill_what_if`` (:mod:`.what_if`), with ``what_if_balanced_accuracy``;
* ``skill_will_it_hold`` (:mod:`.will_it_hold`), with ``will_it_hold_precision`` and ``will_it_hold_coverage``;
* ``skill_how_to_change`` (:mod:`.how_to_change`), with ``how_to_change_success``, ``how_to_change_cost``,
  ``how_to_change_reference`` and ``how_to_change_size`` (features the action changes);
* ``shown_size`` (features shown; ``shown_size_common`` after the cut).

Every skill is the method's score minus the score of a reader who saw no explanation, so that reader, and an
explanation that shows nothing, scores exactly 0, and a Random explanation 0 in expectation. A value that
cannot be measured is ``NaN`` and its reason is kept in ``frame.attrs["reasons"]`` (a list of
``{"method", "instance_id", "metric", "reason"}``) and logged: an explanation that shows nothing a reader can
apply (an unknown family), a case where no neighbour flips the answer, a person who can change nothing.
Failed explanations are skipped, as in :func:`hexeval_engine.metrics.compute.compute_instance_metrics`.

Model calls: one for the cases, one for the redrawn rows (*why*), one for the neighbours (*what if* and
*will it hold* share them), one for the actions; a regressor adds one on the training rows.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ...explainers.actionability import feature_actionability
from ...explanation import METHOD_FAMILY
from ..claims import DISPLAY_TOP_K
from ..compute import INSTANCE_COLUMNS
from ..readers import ChangedMemo
from .answer import Answer
from .how_to_change import ActionSpace, how_to_change_skills
from .rows import NEIGHBOUR_STRENGTHS, RowPool, neighbourhood_picks
from .shown import ATTRIBUTION, common_size, read_shown
from .strata import Groups, change_groups_of_blocks
from .what_if import reader_keeps, what_if_skills
from .why import why_skills
from .will_it_hold import keep_region, will_it_hold_skills

log = logging.getLogger(__name__)

QUESTIONS = ("why", "what_if", "will_it_hold", "how_to_change")
SKILL_METRICS = tuple(f"skill_{q}{s}" for s in ("", "_common") for q in QUESTIONS)
_SUPPORT = ("why_move", "what_if_balanced_accuracy", "will_it_hold_precision", "will_it_hold_coverage",
            "how_to_change_success", "how_to_change_cost", "how_to_change_reference", "how_to_change_size",
            "shown_size")
QUESTION_METRICS = SKILL_METRICS + tuple(f"{m}{s}" for s in ("", "_common") for m in _SUPPORT)
COMMON = "_common"


def question_pass(model, data, explanations, config, **_) -> list[tuple]:
    """The paired pass (``metrics.registry.PASSES``): every method's skills on the shared cases, seeded by
    ``evaluation.random_state``."""
    rows, _ = question_rows(model, data, explanations, config, random_state=config.evaluation.random_state)
    # the rows as question_skills' frame holds them (its columns' types), without making the frame
    return [(method, int(iid), metric, float(value), bool(derived)) for method, iid, metric, value, derived in rows]


def question_skills(model, data, explanations, config, *, random_state: int, actionability: dict | None = None,
                    neighbours: int = 250, draws: int = 48, random_sets: int = 24, action_draws: int = 24,
                    steps: int = 5, top_k: int | None = None) -> pd.DataFrame:
    """Per-case skill of every explanation on the four questions (see the module docstring).

    Parameters
    ----------
    model : HexevalModel
        Binary, multi-class or regression (:mod:`.answer`).
    data : Dataset
        ``instance_id`` of each explanation is a row position in ``data.X_test``.
    explanations : list of Explanation
        Any mix of methods, on shared cases; failed ones are skipped.
    config : HexevalConfig
        ``personas.top_k_features`` (what an attribution shows), ``actionability`` and, for a regressor,
        ``data.regression_band`` / ``counterfactual_range`` / ``counterfactual_shift``.
    random_state : int
        Seeds every draw (per case, so a case's values do not depend on the other cases).
    actionability : dict, optional
        ``{feature: kind}``; default: from ``config`` (:func:`feature_actionability`).
    neighbours : int
        Neighbours per case (*what if*, *will it hold*), cycling through ``rows.NEIGHBOUR_STRENGTHS``.
    draws : int
        Training rows each named set is redrawn from (*why*).
    random_sets : int
        Random feature sets of the same size in the *why* reference.
    action_draws : int
        Random actions in the *how to change* reference.
    steps : int
        Quantile steps of a move (*how to change*).
    top_k : int, optional
        Attributions / counterfactuals shown; default ``config.personas.top_k_features``.

    Returns
    -------
    pandas.DataFrame
        Columns ``INSTANCE_COLUMNS`` (``derived`` is False: every value reads what the explanation shows);
        ``attrs["reasons"]`` says why a value is ``NaN``.
    """
    rows, reasons = question_rows(model, data, explanations, config, random_state=random_state,
                                  actionability=actionability, neighbours=neighbours, draws=draws,
                                  random_sets=random_sets, action_draws=action_draws, steps=steps, top_k=top_k)
    frame = pd.DataFrame(rows, columns=INSTANCE_COLUMNS).astype({"value": float, "derived": bool})
    frame.attrs["reasons"] = reasons
    return frame


def question_rows(model, data, explanations, config, *, random_state: int, actionability: dict | None = None,
                  neighbours: int = 250, draws: int = 48, random_sets: int = 24, action_draws: int = 24,
                  steps: int = 5, top_k: int | None = None) -> tuple[list[tuple], list[dict]]:
    """:func:`question_skills`' rows ``(method, instance_id, metric, value, derived)`` and the reasons of its
    ``NaN`` values (logged here), before they become its frame."""
    features = list(data.feature_names)
    top_k = int(config.personas.top_k_features if top_k is None else top_k) or DISPLAY_TOP_K
    reasons: list[dict] = []
    rows: list[tuple] = []
    readable = []  # (explanation, Shown)
    for e in explanations:
        if e.error is not None:
            continue
        shown, reason = read_shown(e, feature_names=features, top_k=top_k)
        if shown is None:
            for metric in SKILL_METRICS:
                rows.append((e.method, int(e.instance_id), metric, float("nan"), False))
                reasons.append({"method": e.method, "instance_id": int(e.instance_id), "metric": metric,
                                "reason": reason})
            continue
        readable.append((e, shown))
    if readable:
        rows += _measure(model, data, config, readable, reasons, random_state=random_state,
                         actionability=actionability, neighbours=neighbours, draws=draws, random_sets=random_sets,
                         action_draws=action_draws, steps=steps)
    for r in reasons:
        log.info("%s, case %s, %s: not measured (%s)", r["method"], r["instance_id"], r["metric"], r["reason"])
    return rows, reasons


def _measure(model, data, config, readable, reasons, *, random_state, actionability, neighbours, draws, random_sets,
             action_draws, steps) -> list[tuple]:
    features = list(data.feature_names)
    iids = sorted({int(e.instance_id) for e, _ in readable})
    position = {iid: k for k, iid in enumerate(iids)}
    cases = data.X_test[features].iloc[iids].reset_index(drop=True)
    case_rows = {iid: cases.iloc[position[iid]] for iid in iids}
    sizes: dict[int, list[int]] = {}
    for e, shown in readable:
        if METHOD_FAMILY.get(e.method) != "baseline":
            sizes.setdefault(int(e.instance_id), []).append(shown.size)
    common = {iid: common_size(sizes.get(iid, [])) for iid in iids}
    scales = data.X_train[list(data.numeric_features)].apply(pd.to_numeric, errors="coerce").std().to_dict()
    jobs, claims = [], []  # (method, iid, suffix, Shown); the features each job's *why* claim names
    for e, shown in readable:
        iid = int(e.instance_id)
        cut = shown.cut(common[iid], scales=scales)
        jobs += [(e.method, iid, "", shown), (e.method, iid, COMMON, cut)]
        # at the common size an attribution claims its first m supporting features (not the supporting ones among
        # its first m, which may be fewer: a rule's m conditions all support its answer)
        claims += [shown.supporting, shown.supporting[: common[iid]] if shown.kind == ATTRIBUTION else cut.supporting]
    answer = Answer(model, data, config, cases)
    pool = RowPool(data, cases)
    once = _Once(jobs)
    out = [(m, iid, f"shown_size{s}", float(shown.size), False) for m, iid, s, shown in jobs]
    why = once.spread(why_skills(answer, pool, once.pick([(position[iid], iid, claim)
                                                          for (_, iid, _, _), claim in zip(jobs, claims)]),
                                 draws=draws, random_sets=random_sets, random_state=random_state))
    for (m, iid, s, _), (skill, move) in zip(jobs, why):
        out += [(m, iid, f"skill_why{s}", skill, False), (m, iid, f"why_move{s}", move, False)]
    kinds = actionability if actionability is not None else feature_actionability(config, features)
    space = ActionSpace(data, kinds, steps=steps)
    out += _neighbour_rows(answer, pool, data, jobs, once, position, case_rows, reasons, neighbours=neighbours,
                           random_state=random_state, medians=space.median)
    actions = once.spread(how_to_change_skills(
        answer, pool, space, once.pick([(position[iid], iid, case_rows[iid], shown) for _, iid, _, shown in jobs]),
        draws=action_draws, random_state=random_state))
    for (m, iid, s, _), a in zip(jobs, actions):
        out += [(m, iid, f"skill_how_to_change{s}", a["skill"], False),
                (m, iid, f"how_to_change_success{s}", a["success"], False),
                (m, iid, f"how_to_change_reference{s}", a["reference"], False),
                (m, iid, f"how_to_change_cost{s}", a["cost"], False),
                (m, iid, f"how_to_change_size{s}", a["size"], False)]
        if a["reason"]:
            reasons.append({"method": m, "instance_id": iid, "metric": f"skill_how_to_change{s}",
                            "reason": a["reason"]})
    return out


class _Once:
    """The jobs each question measures: a job whose explanation was not cut (cut to no fewer features than it
    shows, :meth:`.Shown.cut` gives the same ``Shown``) reads exactly as the case's job at its own size, so it is
    measured once and its values given to both."""

    def __init__(self, jobs):
        first = {}  # (case, the Shown read) -> the first job reading it
        self.reads = [first.setdefault((iid, id(shown)), j) for j, (_, iid, _, shown) in enumerate(jobs)]
        self.measured = sorted(first.values())
        self.at = {j: n for n, j in enumerate(self.measured)}

    def pick(self, items: list) -> list:
        """The items (one per job) of the jobs measured."""
        return [items[j] for j in self.measured]

    def spread(self, values: list) -> list:
        """Values of the jobs measured (:meth:`pick`'s order) -> one per job."""
        return [values[self.at[j]] for j in self.reads]


def _neighbour_rows(answer, pool, data, jobs, once, position, case_rows, reasons, *, neighbours, random_state,
                    medians) -> list:
    iids = sorted(position)
    picks = [neighbourhood_picks(pool, position[iid], iid, n=neighbours, strengths=NEIGHBOUR_STRENGTHS,
                                 random_state=random_state) for iid in iids]
    pick = np.vstack(picks)
    stacked = pool.compose(pick)
    owner = np.repeat([position[iid] for iid in iids], neighbours)
    first, inverse = pool.distinct(pick, owner)  # the model answers each distinct neighbour of a case once
    keeps = answer.keeps(stacked.iloc[first], owner[first])[inverse].reshape(len(iids), neighbours)
    # each case's neighbours, compared through one conversion of each column of them all (a case's frame of its
    # neighbours is made only for the readers that read rows: rules, counterfactuals, similar cases)
    memos = dict(zip(iids, ChangedMemo.blocks(stacked, neighbours)))
    values = {iid: _row_values(case_rows[iid]) for iid in iids}
    categorical = list(data.categorical_features)
    groups = change_groups_of_blocks([values[iid] for iid in iids], [memos[iid] for iid in iids], medians=medians)
    strata = {iid: Groups(keeps[position[iid]], g) for iid, g in zip(iids, groups)}
    readers = {}  # case -> (position among the jobs measured, reader's answers, keep claim) of each of its jobs
    for n, (_, iid, _, shown) in enumerate(once.pick(jobs)):
        case = values[iid]
        readers.setdefault(iid, []).append((
            n, reader_keeps(shown, case, None, changed=memos[iid], categorical=categorical, medians=medians),
            keep_region(shown, case, None, changed=memos[iid], categorical=categorical)))
    measured = [None] * len(once.measured)
    for iid, read in readers.items():  # a case's readers scored together, on its neighbours' groups
        k = position[iid]
        what_if = what_if_skills(np.stack([e for _, e, _ in read]), keeps[k], strata[iid])
        hold = will_it_hold_skills(np.stack([r for _, _, r in read]), keeps[k], strata[iid])
        for (n, _, _), w, h in zip(read, what_if, hold):
            measured[n] = (*w, *h[:3])
    out = []
    for (m, iid, s, _), (skill, balanced, reason, hold, precision, coverage) in zip(jobs, once.spread(measured)):
        out += [(m, iid, f"skill_what_if{s}", skill, False), (m, iid, f"what_if_balanced_accuracy{s}", balanced, False),
                (m, iid, f"skill_will_it_hold{s}", hold, False),
                (m, iid, f"will_it_hold_precision{s}", precision, False),
                (m, iid, f"will_it_hold_coverage{s}", coverage, False)]
        if reason:
            reasons += [{"method": m, "instance_id": iid, "metric": f"skill_{q}{s}", "reason": reason}
                        for q in ("what_if", "will_it_hold")]
    return out


def _row_values(case: pd.Series) -> dict:
    """``{feature: case[feature]}``, each value exactly as indexing the row gives it (the row's own array's
    element), read once for the case's readers."""
    values = case.to_numpy() if isinstance(case.dtype, np.dtype) else case.array
    return {f: values[j] for j, f in enumerate(case.index)}
