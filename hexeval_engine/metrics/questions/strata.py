"""Neighbours compared only with neighbours that changed as many features: the null of *what if* and *will it hold*.

Public interface
----------------
``change_groups(case, *, changed, medians) -> ndarray``  each row's group: how many features differ from
the case, and how many of those crossed the training median
``change_groups_of_blocks(cases, memos, *, medians) -> list of ndarray``  the same for every case's block of one
frame at once
``stratified(keeps, strata, score) -> (value, reason)``  (``strata`` may be the case's :class:`Groups`, shared by
every method read on the same neighbours)
``stratified_rows(groups, score, readers) -> (values, reason)``  the same for several readers of one case at once

A neighbour that changed more features flips the answer more often, whichever features they are. A reader who
saw no explanation knows that much, and any claim of the form "while these features stay, the answer stays"
(a rule, attributions read at their worst, counterfactuals not started) covers the neighbours that changed
few features more often, so even a Random explanation's claim had precision above the base rate: on a dense
six-feature model Random's *will it hold* scored 0.17 (interval 0.13 to 0.20) before this correction.

So each neighbour is compared only with neighbours that changed the same number of features: the score
(balanced accuracy minus 1/2, or share of kept neighbours inside minus share of flipped inside) is computed in
each group holding both answers and the groups are averaged with the weights ``n_keep * n_flip / n`` (the
Mantel-Haenszel weights of a stratified difference: a group weighs by how much it can tell). Given how many
features changed and crossed, which ones did is equally likely to be any set (every feature is redrawn with the same
probability), so the features a Random explanation names are unrelated to the answer inside a group and its
expected skill is 0; "it always stays", always abstaining and a region drawn at random score 0 in every group.
"""

from __future__ import annotations

import numpy as np

from ..readers import ChangedMemo

NO_FLIP = "no neighbour of the case gets another answer from the model, so a reader cannot be told from a guess"
NO_KEEP = "no neighbour of the case keeps the model's answer, so a reader cannot be told from a guess"
NO_GROUP = ("no group of neighbours that changed the same number of features holds both answers, so a reader "
            "cannot be told from one who counts changes")


def change_groups(case, *, changed, medians) -> np.ndarray:
    """Each row's group ``(changed, crossed) -> changed * (width + 1) + crossed``: the number of features whose
    value differs from the case's (``changed``: a :class:`hexeval_engine.metrics.readers.ChangedMemo` of the
    rows, whose features are compared) and how many of them lie on the other side of the training median
    (``medians``; a changed category counts as crossed)."""
    width = len(changed.features)
    counts, crossed = np.zeros(changed.length, dtype=int), np.zeros(changed.length, dtype=int)
    for feature in changed.features:
        value = case[feature]
        moved = changed(feature, value)
        counts += moved
        median = medians.get(feature)
        z = None if median is None else changed.numbers(feature)
        if z is None:  # no median, or not a numeric feature
            crossed += moved
            continue
        try:
            x = float(value)
        except (TypeError, ValueError):
            x = float("nan")
        with np.errstate(invalid="ignore"):
            other_side = ~((z - median) * (x - median) >= 0)
        crossed += moved & other_side
    return counts * (width + 1) + crossed


def change_groups_of_blocks(cases: list, memos: list, *, medians) -> list[np.ndarray]:
    """:func:`change_groups` of every case (``cases[i]``'s values) on its block of neighbours (``memos[i]``, the
    memos of :meth:`hexeval_engine.metrics.readers.ChangedMemo.blocks` of one frame, in order), computed over the
    whole frame feature by feature: the same groups, and each memo keeps its comparisons for the readers."""
    if not memos:
        return []
    features = memos[0].features
    width = len(features)
    total = sum(m.length for m in memos)
    whole = memos[0].whole_columns
    counts, crossed = np.zeros(total, dtype=int), np.zeros(total, dtype=int)
    lengths = [m.length for m in memos]
    for feature in features:
        values = [case[feature] for case in cases]
        moved = ChangedMemo.compare_blocks(memos, feature, values)
        counts += moved
        median = medians.get(feature)
        z = None if median is None else whole[feature].numbers()
        if z is None:  # no median, or not a numeric feature
            crossed += moved
            continue
        z = z[memos[0].span[0]:memos[-1].span[1]]
        x = np.repeat([_float_or_nan(v) for v in values], lengths)
        with np.errstate(invalid="ignore"):
            other_side = ~((z - median) * (x - median) >= 0)
        crossed += moved & other_side
    groups = counts * (width + 1) + crossed
    return np.split(groups, np.cumsum(lengths)[:-1])


def _float_or_nan(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


class Groups:
    """The groups of one case's neighbours that hold both answers, with their weights: they depend only on whether
    the model kept its answer (``keeps``) and on the rows' groups (``strata``), so the methods read on the same
    neighbours share them (:func:`stratified` accepts a ``Groups`` in place of ``strata``)."""

    def __init__(self, keeps, strata):
        keeps, strata = np.asarray(keeps, dtype=bool), np.asarray(strata)
        self.keeps, self.weights, self.reason = keeps, [], None
        self.label = np.full(len(keeps), -1, dtype=np.intp)  # the row's group among those kept, -1 outside them
        kept_n = flipped_n = np.zeros(0, dtype=int)
        if not (~keeps).any():
            self.reason = NO_FLIP
        elif not keeps.any():
            self.reason = NO_KEEP
        else:
            _, group = np.unique(strata, return_inverse=True)  # each row's group, numbered in sorted order
            group = group.reshape(-1)
            total = np.bincount(group)
            kept = np.bincount(group[keeps], minlength=len(total))
            flipped = total - kept
            both = (kept > 0) & (flipped > 0)
            self.label = np.where(both, np.cumsum(both) - 1, -1)[group]
            kept_n, flipped_n = kept[both], flipped[both]
            self.weights = [k * f / (k + f) for k, f in zip(kept_n.tolist(), flipped_n.tolist())]
            if not self.weights:
                self.reason = NO_GROUP
        self.kept_n, self.flipped_n = np.asarray(kept_n, dtype=float), np.asarray(flipped_n, dtype=float)
        inside = self.label >= 0  # the rows of the groups that hold both answers, kept and flipped
        self._kept_rows, self._flipped_rows = inside & self.keeps, inside & ~self.keeps
        self._kept_label, self._flipped_label = self.label[self._kept_rows], self.label[self._flipped_rows]

    def means(self, values) -> tuple[np.ndarray, np.ndarray]:
        """Per group: the mean of ``values`` over its rows that kept the answer, and over those that flipped it.

        ``values`` are multiples of 1/2 (0, 1/2, 1), so every sum is exact and each mean is the one division a
        per-group ``mean()`` makes."""
        values = np.asarray(values, dtype=float)
        size = len(self.weights)
        kept_sum = np.bincount(self._kept_label, weights=values[self._kept_rows], minlength=size)
        flipped_sum = np.bincount(self._flipped_label, weights=values[self._flipped_rows], minlength=size)
        return kept_sum / self.kept_n, flipped_sum / self.flipped_n

    def means_of_rows(self, values) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`means` of each row of ``values`` (one row per reader of these neighbours), as arrays with one row
        per reader: the same sums (exact, see :meth:`means`) and divisions, every row's groups counted in one call."""
        values = np.asarray(values, dtype=float)
        size, readers = len(self.weights), len(values)
        offset = (np.arange(readers) * size)[:, None]

        def sums(rows, labels):
            return np.bincount((labels[None, :] + offset).ravel(), weights=values[:, rows].ravel(),
                               minlength=readers * size).reshape(readers, size)

        return (sums(self._kept_rows, self._kept_label) / self.kept_n,
                sums(self._flipped_rows, self._flipped_label) / self.flipped_n)


def stratified(keeps, strata, score) -> tuple[float, str | None]:
    """The weighted mean over groups of ``score(kept_means, flipped_means)`` (arrays with one entry per group, from
    :meth:`Groups.means` of the values the score reads), see above; ``(NaN, reason)`` when no group holds both
    answers. ``strata`` is each row's group, or the :class:`Groups` of these ``keeps``."""
    groups = strata if isinstance(strata, Groups) else Groups(keeps, strata)
    if groups.reason is not None:
        return float("nan"), groups.reason
    return float(np.average(score(groups), weights=groups.weights)), None


def stratified_rows(groups: Groups, score, readers: int) -> tuple[list[float], str | None]:
    """:func:`stratified` of ``readers`` readers of the same neighbours at once: ``score(groups)`` gives one row per
    reader (from :meth:`Groups.means_of_rows`), each row averaged over the groups as :func:`stratified` averages
    one (a row of a C-ordered matrix is summed as the one-dimensional array is)."""
    if groups.reason is not None:
        return [float("nan")] * readers, groups.reason
    return np.average(score(groups), axis=1, weights=groups.weights).tolist(), None
