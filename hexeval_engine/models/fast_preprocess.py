"""An exact, faster ``transform`` for common fitted scikit-learn preprocessing.

scikit-learn validates and dispatches on every ``transform`` call: ``ColumnTransformer`` picks each
transformer's columns out of the DataFrame (``_safe_indexing``), runs them through joblib's sequential
dispatch, ``OneHotEncoder`` checks every column (``_check_X``, ``check_array``) and builds a sparse matrix
that is turned dense again. For the small batches the explainers send, that is ~2.5 ms of a ~3 ms call
of a one-hot + scaler + LogisticRegression pipeline (the estimator itself: ~0.07 ms).

:func:`transform` computes the same matrix from the DataFrame's columns in numpy, with the same float
operations in the same order, for the fitted steps it knows exactly:

* ``ColumnTransformer`` with dense output and no ``transformer_weights``, columns named, fitted on a DataFrame with these columns in
  this order, whose transformers are the ones below, ``'drop'`` or ``'passthrough'`` (scikit-learn stores
  a passthrough as an identity ``FunctionTransformer``), blocks stacked with ``numpy.hstack`` as
  ``ColumnTransformer._hstack`` does;
* ``OneHotEncoder`` without ``drop`` or infrequent categories, dense float64 output, on numeric columns
  with numeric categories or text columns with text categories (``handle_unknown='ignore'`` or
  ``'infrequent_if_exist'``: unknown values give a row of zeros; ``'error'``: any unknown value goes to
  scikit-learn, which raises);
* ``OrdinalEncoder`` on the same kinds of columns, unknown values only with
  ``handle_unknown='use_encoded_value'`` (its ``unknown_value``), float64 output;
* ``StandardScaler`` (``X -= mean_``, then ``X /= scale_``, on the float64 matrix) and ``SimpleImputer`` with
  ``strategy='mean'`` or ``'median'``, missing values ``NaN``, no indicator (the fitted statistics copied
  into the missing cells);
* a ``Pipeline`` whose steps before the estimator are such steps, ``None`` or ``'passthrough'``; an encoder only
  inside a ``ColumnTransformer`` or on a previous step's matrix; a ``StandardScaler`` or ``SimpleImputer`` also on
  the whole DataFrame when it was fitted on these columns in this order (``Pipeline(SimpleImputer, XGBClassifier)``
  on 300 numeric columns: scikit-learn's per-column checks of the DataFrame were ~2 ms of a ~3 ms call). The
  matrix is then ``numpy.asarray`` of the frame, copied, as ``check_array`` makes it: same values, same memory
  order (pandas' order, which depends on how the frame was built).

Anything else returns ``None`` and the caller takes scikit-learn's own path: other or subclassed
transformers, sparse output, ``set_output`` containers, metadata routing, missing values or infinities
where scikit-learn would reject them, categories holding missing values, text columns holding anything but
text, columns of other dtypes (booleans, categoricals, float32-only matrices). The caller then gets
scikit-learn's answer, its warnings and its errors.
"""

from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np
import pandas as pd
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.utils._set_output import _get_output_config

#: Column dtypes taken as numbers: numpy integers and floats (booleans and extension dtypes are not).
_NUMERIC_KINDS = ("i", "u", "f")
#: Per encoder, each text feature's ``{category: position}`` (built once per fitted encoder).
_TEXT_INDEXES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_TEXT_LOCK = threading.Lock()
#: Per fitted scaler or imputer, the last column index found equal to its ``feature_names_in_`` (and that array):
#: the same index object again needs no comparison (~0.1 ms a call on 300 columns).
_CONFIRMED_COLUMNS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def estimator_input(estimator, X):
    """The final estimator of a Pipeline and the matrix its preprocessing makes of ``X``, or ``None``.

    Parameters
    ----------
    estimator : object
        Usually a fitted ``Pipeline``; anything else gives ``None``.
    X : DataFrame
        Raw rows, as ``estimator.predict_proba`` would take them.

    Returns
    -------
    tuple or None
        ``(final_estimator, Z)`` with ``Z`` ``numpy.array_equal`` (same dtype, shape and memory order) to
        what the Pipeline passes to its last step, or ``None`` when this module cannot reproduce it exactly.
    """
    if type(estimator) is not Pipeline or _routing_enabled():
        return None
    steps = estimator.steps
    if len(steps) < 2:
        return None
    Z = X
    for _, step in steps[:-1]:
        if step is None or (isinstance(step, str) and step == "passthrough"):
            continue
        Z = transform(step, Z)
        if Z is None:
            return None
    if Z is X:  # nothing transformed: the caller's own path is as fast
        return None
    return steps[-1][1], Z


def transform(step, X):
    """``step.transform(X)`` computed in numpy, or ``None`` when it cannot be reproduced exactly.

    Parameters
    ----------
    step : object
        A fitted transformer (``ColumnTransformer``, ``OneHotEncoder``, ``OrdinalEncoder``,
        ``StandardScaler``, ``SimpleImputer``) or a ``Pipeline`` of them.
    X : DataFrame or numpy.ndarray
        The step's input.

    Returns
    -------
    numpy.ndarray or None
    """
    kind = type(step)
    if kind is Pipeline:
        if len(step.steps) == 0 or _routing_enabled():
            return None
        Z = X
        for _, inner in step.steps:
            if inner is None or (isinstance(inner, str) and inner == "passthrough"):
                continue
            Z = transform(inner, Z)
            if Z is None:
                return None
        return None if Z is X else Z
    if kind is ColumnTransformer:
        return _column_transformer(step, X)
    if kind not in _ELEMENTS or not _default_output(step):
        return None
    if kind is OneHotEncoder and step.sparse_output:
        return None
    source = _whole_matrix(step, X)
    return None if source is None else _ELEMENTS[kind](step, source)


def _routing_enabled() -> bool:
    return bool(sklearn.get_config().get("enable_metadata_routing", False))


def _default_output(step) -> bool:
    """Whether ``step`` returns numpy arrays (no ``set_output`` container, locally or globally)."""
    return _get_output_config("transform", step)["dense"] == "default"


class _Source:
    """The input of one transformer: named columns of a DataFrame, or a whole matrix.

    Encoders read it column by column (their output is a new C-ordered array whatever the input's memory
    order). Scalers, imputers and passthroughs read it as the matrix scikit-learn's ``check_array`` or
    ``numpy.hstack`` makes of it: ``numpy.asarray`` of the selected DataFrame, in pandas' memory order. The
    order matters: ``numpy.hstack`` orders its result by its blocks' orders, and an estimator's arithmetic
    (a BLAS product) can round differently on a matrix of another memory order. ``order_free`` says the
    order cannot change the result (the values are the same in any order, and ``numpy.hstack`` returns a
    C-ordered matrix anyway): the matrix is then stacked from the columns, without pandas' selection.
    """

    def __init__(self, X, names=None, *, order_free: bool = False, whole: bool = False, dtypes: list | None = None):
        self.X, self.names, self.order_free, self.whole = X, names, order_free, whole
        self._dtypes = dtypes  # the whole frame's column dtypes, when the caller read them already

    def dtypes(self) -> list:
        if self.names is None:
            return [self.X.dtype]
        if self.whole:
            return list(self.X.dtypes) if self._dtypes is None else self._dtypes
        return [self.X[name].dtype for name in self.names]

    def columns(self) -> list:
        if self.names is None:
            return [self.X[:, j] for j in range(self.X.shape[1])]
        return [self.X[name].to_numpy() for name in self.names]

    def arrays(self) -> list:
        """The columns as pandas holds them (text dtypes stay pandas arrays; numpy-backed columns as numpy)."""
        if self.names is None:
            return self.columns()
        out = []
        for name in self.names:
            column = self.X[name]
            out.append(column.array if isinstance(column.dtype, pd.StringDtype) else column.to_numpy())
        return out

    def matrix(self, dtype=None) -> np.ndarray:
        if self.names is None:
            return self.X if dtype is None else self.X.astype(dtype, copy=False)
        if self.whole:  # the frame itself, as check_array reads it (numpy.asarray: pandas' memory order)
            return np.asarray(self.X, dtype=dtype)
        if self.order_free:  # the caller's result is C-ordered whatever this block's order (see _column_transformer)
            columns = self.columns()
            out = np.empty((len(columns[0]), len(columns)), dtype=dtype or np.result_type(*columns))
            for j, column in enumerate(columns):
                out[:, j] = column
            return out
        return self.X[self.names].to_numpy(dtype=dtype)


def _whole_matrix(step, X):
    """A previous step's matrix (or a DataFrame, see :func:`_whole_frame`) as the input of a transformer that reads
    it whole, or ``None``."""
    if isinstance(X, pd.DataFrame):
        return _whole_frame(step, X)
    if not isinstance(X, np.ndarray) or X.ndim != 2 or getattr(step, "feature_names_in_", None) is not None:
        return None
    if X.shape[1] != getattr(step, "n_features_in_", -1):
        return None
    return _Source(X)


def _whole_frame(step, X: pd.DataFrame):
    """A DataFrame given whole to a ``StandardScaler`` or ``SimpleImputer``, or ``None``.

    Taken only when the step was fitted on a DataFrame with exactly these column names in this order (scikit-learn
    checks the same and raises otherwise) and every column has a numpy dtype (pandas' extension dtypes are
    converted by ``check_array`` first: left to it). The matrix is ``numpy.asarray(X)`` copied in its own memory
    order, which is what ``check_array(X, dtype=FLOAT_DTYPES, copy=True)`` returns for such a frame, so an
    estimator whose arithmetic depends on the order (a BLAS product) gets the same bits.
    """
    if type(step) not in (StandardScaler, SimpleImputer):
        return None
    names = getattr(step, "feature_names_in_", None)
    if names is None or X.ndim != 2 or X.shape[1] != len(names):
        return None
    known = _CONFIRMED_COLUMNS.get(step)
    if known is None or known[0] is not X.columns or known[1] is not names:
        if not X.columns.is_unique or \
                not np.array_equal(X.columns.to_numpy(dtype=object), np.asarray(names, dtype=object)):
            return None
        _CONFIRMED_COLUMNS[step] = (X.columns, names)  # the explainers' frames share their coder's (immutable) index
    dtypes = list(X.dtypes)  # read once (a Series of 300 dtypes costs ~0.1 ms a call)
    if not all(isinstance(d, np.dtype) for d in dtypes):
        return None
    return _Source(X, list(names), whole=True, dtypes=dtypes)


def _column_transformer(ct, X):
    """``ColumnTransformer.transform`` for a dense-output transformer of known steps over named columns."""
    if not isinstance(X, pd.DataFrame) or ct.sparse_output_ or ct.transformer_weights or not _default_output(ct):
        return None
    names = getattr(ct, "feature_names_in_", None)
    if names is None or list(X.columns) != list(names) or not X.columns.is_unique:
        return None
    parts = []
    for _, step, columns in ct.transformers_:
        if isinstance(step, str):
            if step == "drop":
                continue
            return None  # 'passthrough' is stored as a FunctionTransformer after fitting
        selected = _named_columns(columns, X)
        if selected is None:
            return None
        if not selected:
            continue  # scikit-learn skips transformers of an empty selection
        kind = type(step)
        if kind is not FunctionTransformer and (kind not in _ELEMENTS or not _default_output(step)):
            return None
        parts.append((kind, step, selected))
    if not parts:
        return None
    # numpy.hstack returns a C-ordered matrix when one block is C-ordered with more than one row and column
    # (an encoder's block always is) or when there is a single row; then the other blocks' order is free
    order_free = len(X) <= 1 or any(kind in (OneHotEncoder, OrdinalEncoder) and _encoded_width(step) > 1
                                    for kind, step, _ in parts)
    blocks = []
    for kind, step, selected in parts:
        source = _Source(X, selected, order_free=order_free)
        block = _identity(step, source) if kind is FunctionTransformer else _ELEMENTS[kind](step, source)
        if block is None:
            return None
        blocks.append(block)
    return np.hstack(blocks)


def _encoded_width(encoder) -> int:
    """Columns of an encoder's block (what this module computes: no dropped or infrequent categories)."""
    if type(encoder) is OneHotEncoder:
        return sum(len(cats) for cats in encoder.categories_)
    return len(encoder.categories_)


def _named_columns(columns, X):
    """The column names of a transformer's selection, or ``None`` for selections by position, mask or callable."""
    if isinstance(columns, str) or not isinstance(columns, (list, tuple, np.ndarray, pd.Index)):
        return None
    selected = list(columns)
    if not all(isinstance(c, str) and c in X.columns for c in selected):
        return None
    return selected


def _identity(step, source):
    """A passthrough (identity ``FunctionTransformer``): ``numpy.asarray`` of the selected numeric columns."""
    if step.func is not None or step.validate or step.kw_args or not _default_output(step):
        return None
    if not all(d.kind in _NUMERIC_KINDS for d in source.dtypes()):
        return None
    return source.matrix()


def _float_matrix(source):
    """A copy of the float64 matrix ``check_array(..., dtype=FLOAT_DTYPES, ensure_all_finite='allow-nan')`` makes.

    ``None`` for non-numeric columns, matrices scikit-learn keeps in another float type, and infinities
    (scikit-learn raises on them; it is left to do so). The copy keeps the matrix's memory order, as
    ``check_array``'s copy does (``order='K'``).
    """
    dtypes = source.dtypes()
    if not dtypes or not all(d.kind in _NUMERIC_KINDS for d in dtypes):
        return None
    common = np.result_type(*dtypes)
    if common.kind == "f" and common != np.float64:
        return None
    M = np.array(source.matrix(np.float64), dtype=np.float64, order="K", copy=True)
    if np.isinf(M).any():
        return None
    return M


def _scaler(scaler, source):
    M = _float_matrix(source)
    if M is None:
        return None
    if scaler.with_mean:
        M -= scaler.mean_.astype(M.dtype)
    if scaler.with_std:
        M /= scaler.scale_.astype(M.dtype)
    return M


def _imputer(imputer, source):
    missing = imputer.missing_values
    if imputer.strategy not in ("mean", "median") or imputer.add_indicator or \
            not (isinstance(missing, float) and np.isnan(missing)):
        return None
    statistics = imputer.statistics_
    fill_dtype = getattr(imputer, "_fill_dtype", None)
    if fill_dtype != np.float64 or np.isnan(statistics).any():
        return None
    M = _float_matrix(source)
    if M is None:
        return None
    np.copyto(M, statistics.astype(fill_dtype)[None, :], where=np.isnan(M))
    return M


def _category_codes(encoder, source):
    """Per column, the index of each value in the encoder's categories and whether it is one of them.

    ``None`` when a column and its categories are not both numbers or both text, when categories hold a
    missing value, or when numbers hold missing values or infinities (scikit-learn's own rules apply).
    Text is looked up in a dict of the categories, as scikit-learn's own mapping (Python's hash and
    equality on ``str``); missing text (``NaN``, ``None``, ``pd.NA``) is in no category.
    """
    categories = encoder.categories_
    columns = source.arrays()
    if len(categories) != len(columns):
        return None
    text_indexes = None
    found = []
    for j, (column, cats) in enumerate(zip(columns, categories)):
        text_column = isinstance(column.dtype, pd.StringDtype)
        if not text_column:
            column = np.asarray(column)
        if not text_column and column.dtype.kind in _NUMERIC_KINDS and cats.dtype.kind in _NUMERIC_KINDS and \
                cats.dtype.kind != "u":
            if column.dtype.kind == "u" or len(cats) == 0 or np.isnan(cats).any() or \
                    not np.isfinite(column).all():
                return None
            index = np.searchsorted(cats, column)
            index[index == len(cats)] = 0
            known = cats[index] == column
        elif (text_column or column.dtype.kind == "O") and cats.dtype.kind == "O":
            if text_indexes is None:
                text_indexes = _text_indexes(encoder)
            lookup = text_indexes[j]  # a dict, as scikit-learn's own mapping: Python's hash and equality
            if lookup is None:
                return None
            if text_column:
                index = _text_dtype_codes(column, lookup)
            elif _all_text_or_missing(column):
                index = np.fromiter(map(lookup.get, column, itertools.repeat(-1)), dtype=np.intp, count=len(column))
            else:
                return None
            known = index >= 0
        else:
            return None
        found.append((index, known))
    return found


def _text_dtype_codes(array, lookup: dict) -> np.ndarray:
    """Category positions of a pandas text-dtype array (``str`` values or missing), ``-1`` for unknown or missing.

    The array is factorised (pandas groups equal strings, Arrow-backed ones in C) and only its distinct values
    are looked up in the dict: each value gets the answer its own lookup would give, as equal ``str`` have
    equal hashes. Missing values get factorize's code ``-1``, which the table's last entry maps to ``-1``.
    """
    codes, uniques = pd.factorize(array, use_na_sentinel=True)
    table = np.fromiter(map(lookup.get, uniques, itertools.repeat(-1)), dtype=np.intp, count=len(uniques))
    return np.append(table, -1)[codes]


def _all_text_or_missing(column: np.ndarray) -> bool:
    """Whether an object column holds only ``str`` values and float ``NaN`` (pandas' missing text)."""
    return bool(pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"))


def _text_indexes(encoder) -> list:
    """Per feature whose categories are all text, ``{category: position}`` (``None`` for other features), cached."""
    with _TEXT_LOCK:
        entry = _TEXT_INDEXES.get(encoder)
        if entry is not None and entry[0] is encoder.categories_:
            return entry[1]
        indexes = [{c: k for k, c in enumerate(cats)} if all(type(c) is str for c in cats) else None
                   for cats in encoder.categories_]
        _TEXT_INDEXES[encoder] = (encoder.categories_, indexes)
        return indexes


def _one_hot(encoder, source):
    if encoder.drop_idx_ is not None or getattr(encoder, "_infrequent_enabled", True) or \
            encoder.handle_unknown not in ("ignore", "error", "infrequent_if_exist") or \
            np.dtype(encoder.dtype) != np.float64:
        return None
    codes = _category_codes(encoder, source)
    if codes is None:
        return None
    if encoder.handle_unknown == "error" and not all(known.all() for _, known in codes):
        return None  # scikit-learn raises on the unknown category
    n = len(codes[0][0])
    widths = [len(cats) for cats in encoder.categories_]
    out = np.zeros((n, sum(widths)), dtype=np.float64)
    if not out.size:
        return out
    # each 1 written at its place in the C-ordered matrix's memory (a scatter into one dimension costs a third
    # of writing at (row, column) pairs); a column whose values are all known needs no selection
    flat = out.reshape(-1)
    starts = np.arange(0, out.size, out.shape[1])  # each row's first place
    offset = 0
    for (index, known), width in zip(codes, widths):
        at = starts + (offset + index)
        flat[at if known.all() else at[known]] = 1.0
        offset += width
    return out


def _ordinal(encoder, source):
    if getattr(encoder, "_infrequent_enabled", True) or np.dtype(encoder.dtype) != np.float64 or \
            getattr(encoder, "_missing_indices", None):
        return None
    codes = _category_codes(encoder, source)
    if codes is None:
        return None
    all_known = all(known.all() for _, known in codes)
    if not all_known and encoder.handle_unknown != "use_encoded_value":
        return None  # scikit-learn raises on the unknown category
    out = np.empty((len(codes[0][0]), len(codes)), dtype=np.float64)
    for j, (index, known) in enumerate(codes):
        out[:, j] = index
        if not all_known:
            out[~known, j] = encoder.unknown_value
    return out


_ELEMENTS = {OneHotEncoder: _one_hot, OrdinalEncoder: _ordinal, StandardScaler: _scaler, SimpleImputer: _imputer}
