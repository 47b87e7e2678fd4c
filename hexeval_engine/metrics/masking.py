"""Rows in which some features take the baseline value, scored by the model in a few large calls.

Public interface (stable)
-------------------------
``MaskedRows(X_raw, baseline_rows)``  collects masked rows from several metrics, then
``.add(source, from_baseline, classes, baseline_of=None) -> slice`` and
``.predict(model, chunk_rows=50_000) -> ndarray``
``instance_rng(random_state, instance_id, stream) -> numpy.random.Generator``
``feature_uniforms(rng, draws, columns) -> ndarray (draws, p)``
``sorted_choices(rng, n, m, draws) -> ndarray (draws, m)``  ``draws`` calls of ``rng.choice(n, m, replace=False)``,
sorted, in one draw of the generator

Removal by baseline replacement: a "removed" feature takes the value of a reference row (see
:mod:`hexeval_engine.metrics.baseline`; one row, or one per explained class), as in Covert, Lundberg & Lee (2021),
*Explaining by Removing*, JMLR 22. Deletion/insertion curves and the soft sufficiency /
comprehensiveness masks are all such rows; collecting them first and sending them to the model
together keeps the number of model calls small (one per ``chunk_rows`` rows).

Random draws that break ties or pick soft masks come from :func:`instance_rng`, seeded by
``evaluation.random_state``, the instance and a stream name only, so every method explaining
the same instance sees the same random numbers (a paired comparison), and from
:func:`feature_uniforms`, which hands the numbers out in the order of the feature *names*, so
reordering the data's columns does not change any result.
"""

from __future__ import annotations

import functools
import logging
import zlib

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)

_MASK32 = 0xFFFFFFFF


def instance_rng(random_state: int, instance_id: int, stream: str) -> np.random.Generator:
    """A generator that depends only on the run's seed, the instance and ``stream`` (e.g. ``"ties"``)."""
    key = [int(random_state) & _MASK32, int(instance_id) & _MASK32, zlib.crc32(stream.encode("utf-8"))]
    return np.random.default_rng(np.random.SeedSequence(key))


def feature_uniforms(rng: np.random.Generator, draws: int, columns) -> np.ndarray:
    """``draws`` rows of independent U(0, 1) numbers, one column per feature of ``columns``.

    The numbers are drawn for the features in sorted-name order and then placed in the order
    of ``columns``: the same feature gets the same number whatever the column order.
    """
    columns = list(columns)
    by_name = np.argsort(np.array(columns, dtype=object), kind="stable")
    raw = rng.random((int(draws), len(columns)))
    out = np.empty_like(raw)
    out[:, by_name] = raw
    return out


def sorted_choices(rng: np.random.Generator, n: int, m: int, draws: int) -> np.ndarray:
    """``draws`` rows, row ``d`` the sorted values of the ``d``-th of ``draws`` successive calls
    ``rng.choice(n, size=m, replace=False)``, leaving ``rng`` where those calls leave it; shape ``(draws, m)``.

    numpy's ``Generator.choice`` without replacement (and without weights), for a population it does not shuffle
    whole (at most 10,000, or ``m`` at most a fiftieth of it), takes ``m`` bounded integers (Floyd's sampling: the
    ``t``-th in ``[0, n - m + t]``, replaced by ``n - m + t`` when already taken) and then ``m - 1`` more that only
    shuffle them (the ``i``-th in ``[0, m - i]``); the order is sorted away here. Every one of those integers is
    drawn here, for all the calls at once, by one ``rng.integers`` with one upper bound per integer, which draws each
    as the call would. Each call cost ~15 us of argument handling (the question skills make about 10,000). Whether
    this numpy draws the same is checked once per process (:func:`_same_as_choice`); where it would not, or for a
    population ``choice`` shuffles whole, the calls are made one by one.
    """
    n, m, draws = int(n), int(m), int(draws)
    if m < 0 or m > n:
        raise ValueError(f"Cannot take {m} distinct values of {n}.")
    if draws <= 0 or m == 0:
        for _ in range(max(draws, 0)):  # the calls still move the generator
            rng.choice(n, size=m, replace=False)
        return np.zeros((max(draws, 0), m), dtype=np.int64)
    if (n > 10_000 and m > n // 50) or not _same_as_choice():
        return np.sort(np.stack([rng.choice(n, size=m, replace=False) for _ in range(draws)]), axis=1)
    return _floyd_rows(rng, n, m, draws)


def _floyd_rows(rng: np.random.Generator, n: int, m: int, draws: int) -> np.ndarray:
    """:func:`sorted_choices` by one ``rng.integers`` call (see there)."""
    taken = np.arange(n - m, n, dtype=np.int64)  # the t-th value is in [0, taken[t]], or taken[t] on a clash
    highs = np.concatenate([taken + 1, np.arange(m, 1, -1, dtype=np.int64)])  # then the shuffle's integers
    raw = rng.integers(0, np.tile(highs, draws)).reshape(draws, len(highs))[:, :m]
    out = raw.copy()
    for t in range(1, m):
        clash = (out[:, :t] == raw[:, t, None]).any(axis=1)
        out[clash, t] = taken[t]
    out.sort(axis=1)
    return out


@functools.lru_cache(maxsize=1)
def _same_as_choice() -> bool:
    """Whether :func:`_floyd_rows` gives what successive ``rng.choice`` calls give with this numpy (a few seeds and
    sizes, and where each generator is left); logged when it does not (the calls are then made one by one)."""
    for seed in (0, 1, 2):
        for n, m in ((1, 1), (2, 2), (5, 1), (13, 3), (13, 13), (40, 6), (9_999, 4)):
            mine, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
            expected = np.sort(np.stack([theirs.choice(n, size=m, replace=False) for _ in range(7)]), axis=1)
            if not np.array_equal(_floyd_rows(mine, n, m, 7), expected) or mine.random() != theirs.random():
                log.info("numpy %s draws choice() without replacement differently from the batched draw; each "
                         "draw is made by its own call", np.__version__)
                return False
    return True


class MaskedRows:
    """Masked copies of instances, collected from several metrics and scored together.

    Parameters
    ----------
    X_raw : pandas.DataFrame
        The instances (raw columns). Row ``i`` is referred to by position ``i`` in ``source``.
    baseline_rows : pandas.DataFrame
        One or more raw rows with the same columns, in the same order; ``baseline_of`` in
        :meth:`add` picks one per masked row (default the first).
    """

    def __init__(self, X_raw: pd.DataFrame, baseline_rows: pd.DataFrame):
        if list(baseline_rows.columns) != list(X_raw.columns) or len(baseline_rows) < 1:
            raise ValueError("The baseline must be at least one row with the same columns, in the same order, as the "
                             f"instances ({list(X_raw.columns)}); got {list(baseline_rows.columns)} "
                             f"with {len(baseline_rows)} row(s).")
        self.X = X_raw.reset_index(drop=True)
        self.base = baseline_rows.reset_index(drop=True)
        self.columns = list(X_raw.columns)
        self._sources: list[np.ndarray] = []
        self._masks: list[np.ndarray] = []
        self._classes: list[np.ndarray] = []
        self._bases: list[np.ndarray] = []
        self.n_rows = 0

    def add(self, source, from_baseline, classes, baseline_of=None) -> slice:
        """Queue rows: row ``r`` copies instance ``source[r]`` and takes the baseline where ``from_baseline[r]``.

        Parameters
        ----------
        source : array-like of int, shape (r,)
        from_baseline : array-like of bool, shape (r, p)
        classes : array-like of int, shape (r,)
            The class whose probability is read for each row.
        baseline_of : array-like of int, shape (r,), optional
            Which baseline row each masked row takes its removed values from (default 0).

        Returns
        -------
        slice
            Where these rows' probabilities will sit in the array :meth:`predict` returns.
        """
        source = np.asarray(source, dtype=int).reshape(-1)
        mask = np.asarray(from_baseline, dtype=bool).reshape(len(source), len(self.columns))
        classes = np.asarray(classes, dtype=int).reshape(-1)
        if len(classes) != len(source):
            raise ValueError(f"One class per masked row is needed; got {len(classes)} for {len(source)} rows.")
        bases = (np.zeros(len(source), dtype=int) if baseline_of is None
                 else np.asarray(baseline_of, dtype=int).reshape(-1))
        if len(bases) != len(source) or (len(bases) and (bases.min() < 0 or bases.max() >= len(self.base))):
            raise ValueError(f"baseline_of must name one of the {len(self.base)} baseline row(s) per masked row.")
        start = self.n_rows
        self._bases.append(bases)
        self._sources.append(source)
        self._masks.append(mask)
        self._classes.append(classes)
        self.n_rows += len(source)
        return slice(start, self.n_rows)

    def frame(self, start: int = 0, stop: int | None = None) -> pd.DataFrame:
        """The queued rows ``start:stop`` as one raw frame; every column keeps its dtype."""
        stop = self.n_rows if stop is None else stop
        source = np.concatenate(self._sources)[start:stop] if self._sources else np.empty(0, dtype=int)
        mask = (np.concatenate(self._masks)[start:stop] if self._masks
                else np.empty((0, len(self.columns)), dtype=bool))
        bases = np.concatenate(self._bases)[start:stop] if self._bases else np.empty(0, dtype=int)
        pick = np.where(mask, len(self.X) + bases[:, None], source[:, None])  # baselines appended after the rows
        pool = pd.concat([self.X, self.base], ignore_index=True)
        cols = {}
        for j, col in enumerate(self.columns):
            column = pool[col]
            if column.dtype != self.X[col].dtype:
                column = column.astype(self.X[col].dtype)
            cols[col] = pd.Series(column.array.take(pick[:, j]), name=col)
        return pd.DataFrame(cols, columns=self.columns)

    def predict(self, model, chunk_rows: int = 50_000) -> np.ndarray:
        """The model's probability of each queued row's class, ``chunk_rows`` rows per model call."""
        proba = np.empty(self.n_rows)
        if self.n_rows == 0:
            return proba
        classes = np.concatenate(self._classes)
        for start in range(0, self.n_rows, chunk_rows):
            stop = min(start + chunk_rows, self.n_rows)
            p = model.predict_proba(self.frame(start, stop))
            proba[start:stop] = p[np.arange(stop - start), classes[start:stop]]
        return proba
