"""Rows the questions send to the model: cases with some features redrawn from real training rows.

Public interface
----------------
``RowPool(data, cases)``  the training rows and the cases, column by column
    ``.compose(pick) -> DataFrame``  row ``i`` takes feature ``j`` from pool row ``pick[i, j]``
    ``.distinct(pick, owner) -> (first, inverse)``  the rows of ``pick`` with distinct values (and owner)
    ``.case_row(k) -> int``  the pool row of case ``k``
    ``.train_rows -> int``
``neighbourhood_picks(pool, k, iid, *, n, strengths, random_state) -> ndarray``
``NEIGHBOUR_STRENGTHS``  the shares of features a neighbour redraws

A neighbour of a case keeps each feature with probability ``1 - s`` and otherwise takes that feature's
value from a training row drawn at random (per feature), as Anchor's and LIME's tabular samplers perturb a
case and as :func:`hexeval_engine.metrics.readers.reader_neighbours` does with one share. One share makes
most neighbours keep the answer (0.86 to 0.88 on the bundled data at 0.3), so a reader who says "it stays"
looks good; neighbours here cycle through several shares, from a light touch to nearly a fresh row, so every
case has neighbours that keep and that flip its answer wherever the model can flip it. The questions then
weigh the two groups equally, so the mix of shares does not decide a score. Every method's reader of a case
sees the same neighbours (seeded by the run's seed and the case only).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..masking import instance_rng

NEIGHBOUR_STRENGTHS = (0.1, 0.2, 0.35, 0.5, 0.75)


class RowPool:
    """The training rows then the cases (case ``k`` at pool row ``train_rows + k``), each column once.

    Parameters
    ----------
    data : Dataset
    cases : pandas.DataFrame
        Raw rows of the cases (the data's columns).
    """

    def __init__(self, data, cases: pd.DataFrame):
        self.features = list(data.feature_names)
        train = data.X_train[self.features]
        self.train_rows = len(train)
        dtypes = train.dtypes
        pool = pd.concat([train, cases[self.features]], ignore_index=True)
        self.columns = {}
        for f in self.features:
            column = pool[f]
            if column.dtype != dtypes[f]:
                column = column.astype(dtypes[f])
            self.columns[f] = column.array
        self._value_codes = {}

    def distinct(self, pick: np.ndarray, owner) -> tuple[np.ndarray, np.ndarray]:
        """``(first, inverse)``: the first of each set of rows of ``pick`` with the same owner and the same values
        (in the order they first come), and which of those each row is (``first[inverse[i]]`` has row ``i``'s
        values). A model answers each distinct row once: rows with the same values get the same answer.

        Values are the same when their bits are (numbers, booleans), as text (text columns), as categories, or,
        for any other column, when they come from the same pool row."""
        pick = np.asarray(pick, dtype=np.intp).reshape(-1, len(self.features))
        ids = np.asarray(owner, dtype=np.int64)
        span = int(ids.max()) + 1 if len(ids) else 1
        for j, f in enumerate(self.features):
            codes, count = self._codes(f)
            if span * count >= 2 ** 62:  # renumber the distinct ids so far densely before they outgrow int64
                ids, uniques = pd.factorize(ids)
                span = len(uniques)
            ids = ids * count + codes[pick[:, j]]
            span *= count
        inverse, uniques = pd.factorize(ids)
        first = np.empty(len(uniques), dtype=np.intp)
        first[inverse[::-1]] = np.arange(len(ids), dtype=np.intp)[::-1]  # the earliest row of each wins
        return first, inverse

    def _codes(self, f) -> tuple[np.ndarray, int]:
        """Each pool row's code of its value of ``f`` (equal codes: the same value, see :meth:`distinct`) and the
        number of codes."""
        if f not in self._value_codes:
            column = self.columns[f]
            dtype = column.dtype
            numpy_dtype = getattr(dtype, "numpy_dtype", None) if isinstance(column, pd.arrays.NumpyExtensionArray) \
                else None  # a numpy column's array
            if numpy_dtype is not None and numpy_dtype.kind in "iufb":
                values = column.to_numpy()
                bits = values.view(f"u{values.dtype.itemsize}") if values.dtype.kind in "fb" else values
                codes, uniques = pd.factorize(bits)
            elif isinstance(dtype, (pd.CategoricalDtype, pd.StringDtype)):
                codes, uniques = pd.factorize(column, use_na_sentinel=False)
            else:
                codes, uniques = np.arange(len(column)), column
            # int32 halves what the codes hold beside the pool's own data (a code is below the pool's length)
            small = len(column) < 2 ** 31
            self._value_codes[f] = (np.asarray(codes, dtype=np.int32 if small else np.int64), max(len(uniques), 1))
        return self._value_codes[f]

    def case_row(self, k: int) -> int:
        """Pool row of case ``k``."""
        return self.train_rows + int(k)

    def compose(self, pick: np.ndarray) -> pd.DataFrame:
        """Rows whose feature ``j`` comes from pool row ``pick[:, j]`` (dtypes of the training columns kept).

        Each column of the frame is the array its ``take`` made, not copied into one block with the others (a
        column-major ``pick`` takes each column from contiguous positions)."""
        pick = np.asarray(pick, dtype=np.intp).reshape(-1, len(self.features))
        return pd.DataFrame({f: self.columns[f].take(pick[:, j]) for j, f in enumerate(self.features)},
                            columns=self.features, copy=False)


def neighbourhood_picks(pool: RowPool, k: int, iid: int, *, n: int, strengths=NEIGHBOUR_STRENGTHS,
                        random_state: int) -> np.ndarray:
    """Pool rows of ``n`` neighbours of case ``k`` (test row ``iid``): neighbour ``i`` redraws each feature with
    probability ``strengths[i % len(strengths)]``."""
    rng = instance_rng(random_state, iid, "question-neighbours")
    width = len(pool.features)
    share = np.resize(np.asarray(strengths, dtype=float), int(n))[:, None]
    donors = rng.integers(0, pool.train_rows, size=(int(n), width))
    replace = rng.random((int(n), width)) < share
    return np.where(replace, donors, pool.case_row(k))
