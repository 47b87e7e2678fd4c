"""What every explainer shares: seeds, the explained class, the coded view of rows, a cached predictor.

Public interface
----------------
``instance_seed(random_state, instance_id, stream) -> int``     one reproducible seed per instance and use
``explained_classes(model, X_raw) -> (classes, probabilities)``  the predicted class and its probability
``ExplainerSpace.from_data(data)``                             coded training matrix and fill values (cached per dataset)
``CodedPredictor(model, coder)``                               decode -> predict_proba, with a row cache
``GLOBAL_RNG_LOCK``                                            held while a library draws from numpy's global RNG
``TimeBudgetExceeded(budget, spent, setting)``                 an instance's explanation ran over its time budget
``failure_text(err) -> str``                                   the reason recorded in ``Explanation.error``
``log_failure(logger, method, instance_id, err)``               log it (budget stops without a traceback)
``rows_per_call(n_columns)``                                   memory-aware cap on the rows of one model call

Explainer libraries (LIME, Anchor, DiCE) work on numeric matrices in which categorical features
are integer codes (:class:`~hexeval_engine.data.coding.FeatureCoder`); every matrix is decoded to raw
CSV columns before the model sees it. None of these libraries can sample around a missing value,
so they see missing numeric values as the training median and missing categorical values as the
training mode (the features filled are recorded in ``Explanation.extra["filled_for_explainer"]``);
the model itself is always asked about the real instance.
"""

from __future__ import annotations

import copy
import io
import logging
import sys
import threading
import weakref
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..runtime.counted_switch import CountedSwitch
from ..plain_values import describe_error

#: Anchor, DiCE and SHAP's permutation explainer draw from numpy's (and Python's) global RNG.
#: Work that seeds and uses the global RNG holds this lock, so threads (e.g. a dask cluster with
#: ``processes=False``) cannot interleave draws and results stay reproducible.
GLOBAL_RNG_LOCK = threading.RLock()

log = logging.getLogger(__name__)

#: Memory one model call may use for its decoded rows (pandas frame + preprocessing copies).
MODEL_CALL_MEMORY_BYTES = 256 * 2**20
#: Bytes assumed per cell of a decoded, preprocessed row (frame, transformed copy, validation copies).
BYTES_PER_CELL = 64
#: Memory the row cache of a :class:`CodedPredictor` may hold, and the per-row overhead of one entry
#: (bytes object, float, dict slot) besides its 8 bytes per column.
CACHE_MEMORY_BYTES = 64 * 2**20
CACHE_ENTRY_OVERHEAD = 150


def rows_per_call(n_columns: int) -> int:
    """Largest number of rows one model call may carry for ``n_columns`` raw columns (>= 1000).

    Pooled requests larger than this are sent in several calls (results are row-wise, so unchanged).
    """
    return max(1000, MODEL_CALL_MEMORY_BYTES // (BYTES_PER_CELL * max(int(n_columns), 1)))


class TimeBudgetExceeded(RuntimeError):
    """One instance's explanation took longer than ``evaluation.explainers.<method>.time_budget_seconds``."""

    def __init__(self, budget: float, spent: float, setting: str):
        self.budget, self.spent, self.setting = float(budget), float(spent), setting
        super().__init__(f"Stopped after {spent:.1f} s, over the time budget of {budget:g} s per case. "
                         f"Raise {setting} to let slow cases finish.")


def failure_text(err: BaseException) -> str:
    """What ``Explanation.error`` says about a failed instance (a budget stop speaks for itself)."""
    return str(err) if isinstance(err, TimeBudgetExceeded) else describe_error(err)


def log_failure(logger, method: str, instance_id, err: BaseException) -> None:
    """Log a failed instance: a budget stop as a warning (it is expected), anything else with its traceback."""
    if isinstance(err, TimeBudgetExceeded):
        logger.warning("%s stopped for instance %s: %s", method, instance_id, err)
    else:
        logger.error("%s failed for instance %s", method, instance_id, exc_info=err)


def budget_setting(method_key: str) -> str:
    """The config key of a method's time budget, e.g. ``evaluation.explainers.lime.time_budget_seconds``."""
    return f"evaluation.explainers.{method_key}.time_budget_seconds"


def _silence() -> tuple:
    """Swap ``sys.stdout``/``sys.stderr`` for one buffer; what :func:`_restore` needs."""
    saved, sink = (sys.stdout, sys.stderr), io.StringIO()
    sys.stdout = sys.stderr = sink
    return saved, sink


def _restore(state: tuple, source: str) -> None:
    """Put the real streams back and log what was captured at DEBUG."""
    (sys.stdout, sys.stderr), sink = state
    captured = sink.getvalue().strip()
    if captured:
        log.debug("Output of %s: %s", source, captured[-2000:])


#: ``with silenced("dice_ml"):`` hides a library's prints and progress bars (DiCE prints to stdout).
#: ``contextlib.redirect_stdout`` is not thread-safe (two overlapping uses restore each other's sink); the
#: first user installs the buffer and the last restores the real streams (:class:`~..counted_switch.CountedSwitch`).
silenced = CountedSwitch(_silence, _restore)


def instance_seed(random_state: int, instance_id: int, stream: str) -> int:
    """A reproducible 32-bit seed for one instance and one use (``stream``, e.g. ``"LIME"``).

    Derived from ``evaluation.random_state``, the instance id and the stream name only, so the
    result does not depend on the order, chunking or backend the instances are processed with.
    """
    key = [int(random_state) & 0xFFFFFFFF, int(instance_id) & 0xFFFFFFFF, zlib.crc32(stream.encode("utf-8"))]
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def explained_classes(model, X_raw: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The class the model predicts for each row (at its threshold) and the probability of that class.

    One batched model call.
    """
    proba = model.predict_proba(X_raw)
    classes = (proba[:, 1] >= model.threshold).astype(int)
    return classes, proba[np.arange(len(classes)), classes]


@dataclass(frozen=True)
class ExplainerSpace:
    """The coded training matrix the explainer libraries sample from, with missing values filled.

    Attributes
    ----------
    coder : FeatureCoder
    train : ndarray, shape (n_train, p)
        Coded training rows, missing values filled.
    fill : ndarray, shape (p,)
        Per feature, the coded value standing in for a missing value (median / mode code).
    """

    coder: object
    train: np.ndarray
    fill: np.ndarray

    @classmethod
    def from_data(cls, data) -> "ExplainerSpace":
        """The space of ``data``'s training rows, computed once per dataset (see :class:`_SpaceCache`).

        Every explainer of a run (LIME, Anchor, DiCE, for the model and for the randomisation check's copy)
        works in the same space: it depends on the data only. The returned arrays are read-only and shared.
        """
        return _SPACES.get(data, cls._computed)

    @classmethod
    def _computed(cls, data) -> "ExplainerSpace":
        coder = data.coder
        train = coder.encode(data.X_train)
        fill = np.zeros(train.shape[1])
        for j, col in enumerate(coder.feature_names):
            column = train[:, j][~np.isnan(train[:, j])]
            if len(column) == 0:
                continue
            if col in coder.categories:
                values, counts = np.unique(column, return_counts=True)
                fill[j] = values[np.argmax(counts)]
            else:
                fill[j] = float(np.median(column))
        train = _filled(train, fill)
        train.setflags(write=False)
        fill.setflags(write=False)
        return cls(coder, train, fill)

    def encode(self, X_raw: pd.DataFrame) -> tuple[np.ndarray, list[list[str]]]:
        """Coded rows with missing values filled, and per row the features that were filled."""
        M = self.coder.encode(X_raw)
        missing = np.isnan(M)
        names = self.coder.feature_names
        filled = [[names[j] for j in np.flatnonzero(row)] for row in missing]
        return _filled(M, self.fill), filled

    def decode(self, M: np.ndarray) -> pd.DataFrame:
        return self.coder.decode(M)


class _SpaceCache:
    """One :class:`ExplainerSpace` per live dataset, recomputed when the dataset's training rows or coder changed.

    A run builds LIME, Anchor and DiCE for the model and again for the randomisation check's copy: six
    spaces of the same dataset, each coding credit risk's 25,926 training rows (~9 ms). Datasets are not
    changed after loading (a subset is a new ``Dataset``), but nothing enforces it, so an entry is used
    only while it provably still describes the dataset: the same ``X_train`` and ``coder`` objects, a coder
    equal to a copy taken when the entry was made (categories, dtypes, names) and the same hash of every
    training row (``pandas.util.hash_pandas_object``, ~2 ms: values, dtypes' text and the index). Any
    difference, a reassigned frame or coder or a cell written in place, recomputes the entry.

    Entries are keyed by the dataset's ``id`` (a ``Dataset`` compares by value, so it is not hashable) and
    removed when the dataset is collected (``weakref.finalize``), so an id is never reused for a stale entry.
    """

    def __init__(self):
        self._entries: dict[int, tuple] = {}
        self._lock = threading.Lock()

    def get(self, data, compute) -> "ExplainerSpace":
        rows = pd.util.hash_pandas_object(data.X_train, index=True).to_numpy()
        key = id(data)
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None:
            X_train, coder, coder_copy, cached_rows, space = entry
            if X_train is data.X_train and coder is data.coder and coder == coder_copy and \
                    np.array_equal(cached_rows, rows):
                return space
        space = compute(data)
        with self._lock:
            if key not in self._entries:
                weakref.finalize(data, self._forget, key)
            self._entries[key] = (data.X_train, data.coder, copy.deepcopy(data.coder), rows, space)
        return space

    def _forget(self, key: int) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


_SPACES = _SpaceCache()


def _row_keys(M: np.ndarray) -> list[bytes]:
    """Each row's exact float64 bytes (what :class:`CodedPredictor` caches under), in one numpy pass."""
    M = np.ascontiguousarray(np.atleast_2d(M), dtype=float)
    if M.shape[1] == 0:
        return [b""] * len(M)
    return M.view(np.dtype((np.void, M.itemsize * M.shape[1]))).ravel().tolist()


def _filled(M: np.ndarray, fill: np.ndarray) -> np.ndarray:
    M = np.array(M, dtype=float, copy=True)
    rows, cols = np.nonzero(np.isnan(M))
    M[rows, cols] = fill[cols]
    return M


class CodedPredictor:
    """``predict_proba`` over coded matrices, with a cache of rows already evaluated.

    Explainers that call the model many times with small batches (Anchor, DiCE) are bound by the
    number of calls, not rows (~4 ms per call on the credit-risk pipeline). Each call first looks
    rows up in the cache (keyed by the exact coded values) and sends only unseen, de-duplicated
    rows to the model; a call whose rows are all known costs no model call.

    Parameters
    ----------
    model : HexevalModel
    coder : FeatureCoder
    max_cached_rows : int, optional
        The cache is cleared when it would grow beyond this many rows. Default: as many rows as fit
        in ``CACHE_MEMORY_BYTES`` (each key holds a row's coded values), at most 200,000.
    cache : bool
        ``False`` sends every row straight to the model: for callers whose rows never repeat (LIME's
        random samples), where looking rows up costs ~1 us per row and finds nothing.
    """

    def __init__(self, model, coder, *, max_cached_rows: int | None = None, cache: bool = True):
        self.model = model
        self.coder = coder
        self.cache = cache
        if max_cached_rows is None:
            row_bytes = 8 * len(coder.feature_names) + CACHE_ENTRY_OVERHEAD
            max_cached_rows = max(1000, min(200_000, CACHE_MEMORY_BYTES // row_bytes))
        self.max_cached_rows = max_cached_rows
        self._cache: dict[bytes, float] = {}
        self.calls = 0
        self.rows = 0

    def seed(self, M: np.ndarray, positive_proba: np.ndarray) -> None:
        """Record known probabilities (e.g. of the explained instances) without a model call."""
        keys = _row_keys(M)
        for key, p in zip(keys, np.asarray(positive_proba, dtype=float)):
            self._cache[key] = float(p)

    def positive(self, M: np.ndarray) -> np.ndarray:
        """Probability of class 1 for each coded row."""
        M = np.ascontiguousarray(np.atleast_2d(M), dtype=float)
        if not self.cache:
            return self._predict(M)
        return np.fromiter(self._cached(M, lambda rows: [float(p) for p in self._predict(rows)]),
                           dtype=float, count=len(M))

    def _cached(self, M: np.ndarray, predict) -> list:
        """Per coded row of ``M``, its cached value; rows not seen yet go to ``predict`` once, de-duplicated.

        ``predict(rows)`` returns one value per row, in order; the rows it gets are the distinct unseen rows
        in order of first appearance. The cache is cleared first when the new rows would overfill it.
        """
        keys = _row_keys(M)
        cache = self._cache
        missing = [i for i, key in enumerate(keys) if key not in cache]
        if missing:
            unknown: dict[bytes, int] = {}
            for i in missing:
                unknown.setdefault(keys[i], i)
            if len(cache) + len(unknown) > self.max_cached_rows:
                cache.clear()
                unknown = {}
                for i, key in enumerate(keys):
                    unknown.setdefault(key, i)
            idx = np.fromiter(unknown.values(), dtype=np.int64, count=len(unknown))
            cache.update(zip(unknown, predict(M[idx])))
        return [cache[key] for key in keys]

    def _predict(self, M: np.ndarray) -> np.ndarray:
        """Probability of class 1 from the model, in calls of at most :func:`rows_per_call` rows."""
        step = rows_per_call(M.shape[1])
        proba = np.concatenate([self.model.predict_proba(self.coder.decode(M[k:k + step]))[:, 1]
                                for k in range(0, len(M), step)]) if len(M) else np.empty(0)
        self.calls += -(-len(M) // step)
        self.rows += len(M)
        return proba

    def proba(self, M: np.ndarray) -> np.ndarray:
        """``(n, 2)`` probabilities for coded rows."""
        p1 = self.positive(M)
        return np.column_stack([1.0 - p1, p1])

    def classes(self, M: np.ndarray) -> np.ndarray:
        """Predicted class (0/1) at the model's threshold for coded rows."""
        return (self.positive(M) >= self.model.threshold).astype(int)
