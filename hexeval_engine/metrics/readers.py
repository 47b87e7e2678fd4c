"""A reader's test (forward simulation): can someone who read the explanation anticipate the model?

Public interface (stable)
-------------------------
``make_reader(explanation, *, data, top_k=DISPLAY_TOP_K) -> Reader``
``Reader.predict(rows) -> ndarray``  the class index the reader expects the model to give each raw row,
                                    or ``-1`` where the reader abstains
``reader_neighbours(data, instance_id, *, n, replace_share, random_state) -> DataFrame``
``reader_neighbourhoods(data, instance_ids, *, n, replace_share, random_state) -> {instance_id: DataFrame}``
``reader_scores(expected, actual) -> (precision, coverage)``
``reader_accuracy(precision, coverage, *, n_classes=2) -> float``

Forward simulation as in Doshi-Velez & Kim (2017), *Towards a rigorous science of interpretable machine
learning* (a human predicts the model's output from the explanation), Ribeiro, Singh & Guestrin (2018),
*Anchors*, AAAI (simulated users who apply the explanation to new cases, with precision and coverage),
and Hase & Bansal (2020), *Evaluating explainable AI: which algorithmic explanations help users predict
model behavior?*, ACL. Here the "user" is a fixed reading procedure that knows only what the
explanation shows (:func:`hexeval_engine.metrics.claims.named_features`), the case and the prediction
with its probability:

* **Attribution reader** (SHAP, LIME, Random): shown the top-k signed attributions ``w_f`` towards the
  explained class ``c`` and its probability ``p``. It assumes a feature it was not shown does not
  matter, and that a shown feature whose value differs from the case's loses its contribution (for
  a value drawn from the data, the expected attribution is 0: Lundberg & Lee 2017). Its estimate is
  ``p - sum of w_f over the shown features that changed``; it predicts ``c`` when the estimate is at
  least 1/2, the other class otherwise. Attributions in log-odds units (``extra["output"] ==
  "log-odds"``, exact linear SHAP) are read on that scale: ``logit(p) - sum`` against 0. It always answers.
* **Rule reader** (Anchor): predicts the rule's class for rows that meet every condition and abstains
  elsewhere (an anchor says nothing outside itself).
* **Counterfactual reader** (DiCE): shown counterfactuals "change f from a to b and the prediction
  becomes the other class". A row *follows* a counterfactual when every changed feature moved from
  ``a`` in the direction of ``b`` at least as far as ``b`` (numbers) or equals ``b`` (categories); the
  reader predicts the other class for rows that follow one shown counterfactual and ``c`` otherwise.
  It always answers.
* **Example reader** (Examples): answers each row like the nearest shown point (the case and its shown
  same-outcome cases: ``c``; the shown other-outcome cases: the other class), nearest over the shown
  features; a tie abstains.

No reader is favoured by construction: every reader is scored on the same neighbours of the case, and a
reader who abstains is not rewarded for it in :func:`reader_accuracy` (an abstention counts as a guess
at chance). Binary models only: "the other class" is ``1 - c``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .claims import DISPLAY_TOP_K, named_features, shown_examples
from .masking import instance_rng
from .rules import rule_mask

ABSTAIN = -1


def _changed(column: pd.Series, value) -> np.ndarray:
    """Rows whose value differs from ``value`` (numbers as numbers; missing equals missing)."""
    return _differs(ColumnArrays(column), value)


class ColumnArrays:
    """One column as the comparisons read it: each array is converted from the column on first use and kept, so
    every reader of the same rows converts it once. ``block(start, stop)`` is rows ``start:stop`` of the same
    arrays (views of them: nothing is converted twice).

    Parameters
    ----------
    column : pandas.Series
    """

    def __init__(self, column: pd.Series, *, parent: "ColumnArrays | None" = None, span: slice | None = None):
        dtype = column.dtype if parent is None else parent.dtype
        self.dtype = dtype
        #: numpy numbers (missing is NaN, read from one array)
        self.plain = isinstance(dtype, np.dtype) and dtype.kind in "iuf"
        self.numeric = pd.api.types.is_numeric_dtype(dtype)  # booleans included
        self.boolean = pd.api.types.is_bool_dtype(dtype)
        self._column, self._parent, self._span, self._arrays = column, parent, span, {}

    def block(self, start: int, stop: int) -> "ColumnArrays":
        """Rows ``start:stop``, sharing this column's arrays."""
        return ColumnArrays(None, parent=self, span=slice(int(start), int(stop)))

    def _get(self, name: str, convert):
        if name not in self._arrays:
            self._arrays[name] = convert() if self._parent is None else getattr(self._parent, name)()[self._span]
        return self._arrays[name]

    def numbers(self) -> np.ndarray | None:
        """The values as floats, missing as NaN (``None`` for a column that is not numeric)."""
        if not self.numeric:
            return None
        if self.plain:  # the same values as with ``na_value=np.nan``, without pandas' search for missing values
            return self._get("numbers", lambda: self._column.to_numpy(dtype=float))
        return self._get("numbers", lambda: self._column.to_numpy(dtype=float, na_value=np.nan))

    def missing(self) -> np.ndarray:
        """Which rows are missing."""
        if self.plain:
            return self._get("missing", lambda: np.isnan(self.numbers()))
        return self._get("missing", lambda: self._column.isna().to_numpy())

    def text(self) -> np.ndarray:
        """The values as text."""
        return self._get("text", lambda: self._column.astype(str).to_numpy())


def _differs(column: ColumnArrays, value) -> np.ndarray:
    missing = column.missing()
    if value is None or (isinstance(value, float) and np.isnan(value)) or pd.isna(value):
        return ~missing
    if column.plain:
        numbers, target = column.numbers(), float(value)
        # np.isclose(numbers, target, rtol=0, atol=1e-9) without its broadcasting checks: equal (infinities
        # included) or within 1e-9; NaN is never close
        with np.errstate(invalid="ignore"):
            close = (numbers == target) | (np.abs(numbers - target) <= 1e-9)
        return missing | ~close
    if column.numeric and not column.boolean:
        return missing | ~np.isclose(column.numbers(), float(value), rtol=0, atol=1e-9)
    return missing | (column.text() != str(value))


class ChangedMemo:
    """Which rows of one frame differ from a value in a feature (:func:`_changed`), computed once per (feature,
    value) for every reader of the frame: a case's SHAP, LIME and Random readers ask about the same features of
    the same case on the same neighbours. Each column is converted once (:class:`ColumnArrays`), and
    :meth:`blocks` gives the memos of consecutive blocks of one frame (every case's neighbours, sent to the model
    together), whose columns are converted once for all blocks."""

    def __init__(self, rows: pd.DataFrame | None, *, source: tuple | None = None):
        self._rows, self._source, self._memo, self._columns, self._derived = rows, source, {}, {}, {}
        self.length = len(rows) if source is None else source[2] - source[1]
        #: the features (columns) of the rows
        self.features = list(rows.columns) if source is None else list(source[3])
        #: a block's rows ``(start, stop)`` in the frame of :meth:`blocks`, and that frame's columns
        self.span = None if source is None else (source[1], source[2])
        self.whole_columns = None if source is None else source[3]

    @classmethod
    def blocks(cls, rows: pd.DataFrame, size: int) -> list["ChangedMemo"]:
        """Memos of rows ``[k * size, (k + 1) * size)`` of ``rows``, for each ``k``, sharing the columns' arrays;
        each block's ``rows`` is a frame indexed from 0, made when first asked for."""
        whole = {f: ColumnArrays(rows[f]) for f in rows.columns}
        return [cls(None, source=(rows, start, min(start + int(size), len(rows)), whole))
                for start in range(0, len(rows), int(size))]

    @property
    def rows(self) -> pd.DataFrame:
        """The frame the memo compares."""
        if self._rows is None:
            whole, start, stop, _ = self._source
            self._rows = whole.iloc[start:stop].reset_index(drop=True)
        return self._rows

    def column(self, feature) -> ColumnArrays:
        """The feature's column, converted once."""
        if feature not in self._columns:
            if self._source is None:
                self._columns[feature] = ColumnArrays(self.rows[feature])
            else:
                _, start, stop, whole = self._source
                self._columns[feature] = whole[feature].block(start, stop)
        return self._columns[feature]

    def numbers(self, feature) -> np.ndarray | None:
        """The feature's values as floats, missing as NaN (``None`` if it is not numeric)."""
        return self.column(feature).numbers()

    def __call__(self, feature, value) -> np.ndarray:
        key = (feature, type(value).__name__, repr(value))
        if key not in self._memo:
            self._memo[key] = _differs(self.column(feature), value)
        return self._memo[key]

    def derived(self, key, compute):
        """``compute()`` (an array read from these rows' comparisons), worked out once per ``key`` and kept for
        the other readers of the rows."""
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    @staticmethod
    def compare_blocks(memos: list["ChangedMemo"], feature, values: list) -> np.ndarray:
        """Which rows of every block differ in ``feature`` from that block's value (``values``, one per memo of
        :meth:`blocks`, in order), compared over the whole frame at once; each memo keeps its block's part, as if
        it had been asked itself. The answer for the whole frame."""
        column = memos[0].whole_columns[feature]
        bounds = [m.span for m in memos]
        lengths = [b - a for a, b in bounds]
        missing_value = [v is None or (isinstance(v, float) and np.isnan(v)) or bool(pd.isna(v)) for v in values]
        missing = column.missing()[bounds[0][0]:bounds[-1][1]]
        if column.plain:
            numbers = column.numbers()[bounds[0][0]:bounds[-1][1]]
            target = np.repeat([np.nan if m else float(v) for v, m in zip(values, missing_value)], lengths)
            with np.errstate(invalid="ignore"):
                close = (numbers == target) | (np.abs(numbers - target) <= 1e-9)
            out = missing | ~close
        elif column.numeric and not column.boolean:
            numbers = column.numbers()[bounds[0][0]:bounds[-1][1]]
            target = np.repeat([np.nan if m else float(v) for v, m in zip(values, missing_value)], lengths)
            out = missing | ~np.isclose(numbers, target, rtol=0, atol=1e-9)
        else:
            text = column.text()[bounds[0][0]:bounds[-1][1]]
            target = np.repeat(np.array([None if m else str(v) for v, m in zip(values, missing_value)], dtype=object),
                               lengths)
            out = missing | (text != target)
        offset = bounds[0][0]
        for memo, (a, b), value, absent in zip(memos, bounds, values, missing_value):
            part = ~missing[a - offset:b - offset] if absent else out[a - offset:b - offset]
            if absent:
                out[a - offset:b - offset] = part
            memo._memo[(feature, type(value).__name__, repr(value))] = part
        return out


class Reader:
    """Base of the readers: ``predict(rows)`` gives a class index per row or ``-1`` (abstains). ``changed``, a
    :class:`ChangedMemo` of ``rows``, shares the per-feature comparisons between readers of the same rows."""

    def predict(self, rows: pd.DataFrame, *, changed=None) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError


class AttributionReader(Reader):
    """Reads the shown signed attributions (see the module docstring).

    Parameters
    ----------
    case : pandas.Series
        The explained case (raw values).
    shown : dict
        ``{feature: signed attribution towards explained_class}`` as shown.
    explained_class : int
    probability : float
        The model's probability of ``explained_class`` for the case, as shown.

    log_odds : bool
        The attributions are in log-odds units (the estimate is read against 0 on that scale).
    """

    def __init__(self, case, shown: dict, explained_class: int, probability: float, *, log_odds: bool = False):
        self.case, self.shown = case, dict(shown)
        self.explained_class, self.probability = int(explained_class), float(probability)
        self.log_odds = bool(log_odds)

    def predict(self, rows: pd.DataFrame, *, changed=None) -> np.ndarray:
        changed = changed or ChangedMemo(rows)
        p = min(max(self.probability, 1e-9), 1 - 1e-9)
        margin = np.log(p / (1 - p)) if self.log_odds else p - 0.5
        estimate = np.full(len(rows), margin)
        for feature, weight in self.shown.items():
            estimate -= float(weight) * changed(feature, self.case[feature])
        return np.where(estimate >= 0, self.explained_class, 1 - self.explained_class)


class RuleReader(Reader):
    """Predicts the rule's class inside the rule, abstains outside."""

    def __init__(self, conditions, explained_class: int, *, categorical=()):
        self.conditions, self.explained_class, self.categorical = list(conditions), int(explained_class), categorical

    def predict(self, rows: pd.DataFrame, *, changed=None) -> np.ndarray:
        inside = rule_mask(self.conditions, rows, categorical=self.categorical)
        return np.where(inside, self.explained_class, ABSTAIN)


class CounterfactualReader(Reader):
    """Predicts the other class for rows that follow a shown counterfactual, the case's class otherwise."""

    def __init__(self, counterfactuals, explained_class: int):
        self.changes = [dict(cf.changes) for cf in counterfactuals if cf.changes]
        self.explained_class = int(explained_class)

    def predict(self, rows: pd.DataFrame, *, changed=None) -> np.ndarray:
        follows = np.zeros(len(rows), dtype=bool)
        for changes in self.changes:
            ok = np.ones(len(rows), dtype=bool)
            for feature, (old, new) in changes.items():
                ok &= _follows(rows[feature], old, new)
            follows |= ok
        return np.where(follows, 1 - self.explained_class, self.explained_class)


class ExampleReader(Reader):
    """Predicts for each row the answer of the nearest shown point: the case and its shown same-outcome cases have the
    case's class, the shown other-outcome cases the other one; a tie abstains. Nearest over the shown features only
    (what the reader sees): a number's gap in units of the spread of the shown values of that feature, a category's
    mismatch 1, a missing value 1.

    Parameters
    ----------
    case : pandas.Series
    other, same : sequence of dict
        The shown differences ``{feature: (case value, example value)}`` of each case with the other / same outcome.
    features : sequence of str
        The features shown.
    explained_class : int
    """

    def __init__(self, case, other, same, features, explained_class: int):
        self.features = list(features)
        self.keeping = [{f: case[f] for f in self.features}] + [self._point(case, d) for d in same]
        self.flipping = [self._point(case, d) for d in other]
        self.explained_class = int(explained_class)

    def _point(self, case, differences: dict) -> dict:
        return {f: differences[f][1] if f in differences else case[f] for f in self.features}

    def predict(self, rows: pd.DataFrame, *, changed=None) -> np.ndarray:
        c = self.explained_class
        if not self.flipping or not self.features:
            return np.full(len(rows), c)  # nothing shown gets the other answer: the reader says it stays
        points = self.keeping + self.flipping
        gaps = {f: _feature_gap(rows[f], [p[f] for p in points]) for f in self.features}

        def nearest(group):
            return np.min([sum(gaps[f](p[f]) for f in self.features) for p in group], axis=0)

        keep, flip = nearest(self.keeping), nearest(self.flipping)
        return np.where(np.isclose(keep, flip), ABSTAIN, np.where(keep < flip, c, 1 - c))


def _feature_gap(column: pd.Series, values):
    """``gap(value) -> ndarray``: each row's gap on one feature to ``value`` (see :class:`ExampleReader`)."""
    numbers = [_number(v) for v in values]
    if pd.api.types.is_numeric_dtype(column) and all(n is not None for n in numbers):
        z = column.to_numpy(dtype=float, na_value=np.nan)
        spread = (max(numbers) - min(numbers)) or 1.0
        return lambda v: np.where(np.isfinite(z), np.abs(z - _number(v)) / spread, 1.0)
    text = column.astype(str).to_numpy()
    missing = column.isna().to_numpy()
    return lambda v: np.where(missing, 1.0, (text != str(v)).astype(float))


def _number(value) -> float | None:
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):  # a label, not a number: compared as text by the caller
        return None
    return None if np.isnan(number) else number


def _follows(column: pd.Series, old, new) -> np.ndarray:
    """Rows that moved from ``old`` towards ``new`` at least as far as ``new`` (or equal ``new``)."""
    a, b = _number(old), _number(new)
    if a is not None and b is not None and pd.api.types.is_numeric_dtype(column):
        z = column.to_numpy(dtype=float, na_value=np.nan)
        step = b - a
        with np.errstate(invalid="ignore"):
            return np.isfinite(z) & ((z - a) * np.sign(step) >= abs(step) - 1e-9) & (step != 0)
    return ~_changed(column, new)


def make_reader(explanation, *, data, top_k: int = DISPLAY_TOP_K, case: pd.Series | None = None) -> Reader:
    """The reader of one explanation, knowing only what it shows.

    Parameters
    ----------
    explanation : Explanation
        ``instance_id`` is a row position in ``data.X_test``.
    data : Dataset
    top_k : int
        Attributions / counterfactuals shown (``personas.top_k_features``).
    case : pandas.Series, optional
        ``data.X_test.iloc[instance_id]`` when the caller has it (read once per case, not per reader).

    Raises
    ------
    ValueError
        If the explanation failed or shows nothing a reader can apply (a narrative's text only).
    """
    if explanation.error is not None:
        raise ValueError(f"The {explanation.method} explanation of case {explanation.instance_id} failed "
                         f"({explanation.error}); there is nothing to read.")
    features = list(data.feature_names)
    named = named_features(explanation, feature_names=features, top_k=top_k)
    if named is None:
        raise ValueError(f"The {explanation.method} explanation of case {explanation.instance_id} has no "
                         "attributions, rule or counterfactuals a reader can apply.")
    c = int(explanation.predicted_class)
    if explanation.attributions is not None:
        case = data.X_test.iloc[int(explanation.instance_id)] if case is None else case
        shown = {f: float(explanation.attributions[f]) for f in named}
        log_odds = (explanation.extra or {}).get("output") == "log-odds"
        return AttributionReader(case, shown, c, explanation.probability, log_odds=log_odds)
    if explanation.rule is not None:
        return RuleReader(explanation.rule.conditions, c, categorical=data.categorical_features)
    if explanation.examples is not None:
        case = data.X_test.iloc[int(explanation.instance_id)] if case is None else case
        kept = set(named)
        return ExampleReader(case, [{f: v for f, v in d.items() if f in kept} for d in shown_examples(explanation, top_k=top_k)],
                             [{f: v for f, v in d.items() if f in kept}
                              for d in shown_examples(explanation, top_k=top_k, same=True)], named, c)
    return CounterfactualReader(explanation.counterfactuals[: int(top_k)], c)


def reader_neighbours(data, instance_id: int, *, n: int, replace_share: float, random_state: int) -> pd.DataFrame:
    """``n`` neighbours of a test case: each feature, independently with probability ``replace_share``,
    takes its value from a training row drawn at random (per feature), as Anchor's and LIME's tabular
    samplers perturb a case. Seeded by the run's seed and the case only: every method's reader of the
    case sees the same neighbours."""
    return reader_neighbourhoods(data, [instance_id], n=n, replace_share=replace_share,
                                 random_state=random_state)[int(instance_id)]


def reader_neighbourhoods(data, instance_ids, *, n: int, replace_share: float, random_state: int) -> dict:
    """``{instance_id: reader_neighbours(data, instance_id, ...)}`` for several cases, the training columns
    read once (the same frames, built with less pandas work per case)."""
    features = list(data.feature_names)
    train = data.X_train[features]
    dtypes = train.dtypes
    ids = list(dict.fromkeys(int(i) for i in instance_ids))
    if not ids:
        return {}
    # One pool for every case: the training rows, then the cases in order (case k at row len(train) + k).
    # The cases share their frame's dtypes, so each pooled column has the dtype a pool with one case has.
    pool = pd.concat([train, data.X_test[features].iloc[ids]], ignore_index=True)
    pooled = {}
    for f in features:
        column = pool[f]
        if column.dtype != dtypes[f]:
            column = column.astype(dtypes[f])
        pooled[f] = column.array
    out = {}
    for k, iid in enumerate(ids):
        rng = instance_rng(random_state, iid, "reader")
        donors = rng.integers(0, len(train), size=(int(n), len(features)))
        replace = rng.random((int(n), len(features))) < float(replace_share)
        pick = np.where(replace, donors, len(train) + k)
        out[iid] = pd.DataFrame({f: pooled[f].take(pick[:, j]) for j, f in enumerate(features)}, columns=features)
    return out


def reader_scores(expected, actual) -> tuple[float, float]:
    """Precision (share of answered rows where the reader expected the model's class) and coverage
    (share of rows answered); precision is ``NaN`` when the reader answered none."""
    expected, actual = np.asarray(expected, dtype=int), np.asarray(actual, dtype=int)
    answered = expected != ABSTAIN
    coverage = float(answered.mean()) if len(answered) else float("nan")
    precision = float((expected[answered] == actual[answered]).mean()) if answered.any() else float("nan")
    return precision, coverage


def reader_accuracy(precision: float, coverage: float, *, n_classes: int = 2) -> float:
    """Accuracy of the reader when each abstention is a guess at chance: ``coverage * precision +
    (1 - coverage) / n_classes`` (an abstaining reader is neither punished as wrong nor rewarded)."""
    if not np.isfinite(coverage):
        return float("nan")
    answered = coverage * precision if coverage > 0 else 0.0
    return float(answered + (1.0 - coverage) / n_classes)
