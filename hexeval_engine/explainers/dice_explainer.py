"""DiCE counterfactuals in raw values, honouring immutable features and valid ranges.

``dice_ml`` (model-agnostic ``sklearn`` backend, method from ``explainers.dice.method``) searches
over raw frames; the model it is given decodes nothing — it receives DiCE's raw rows, puts them
back into the CSV's types (DiCE turns categorical codes into strings) and asks the HEXEval model.
What may change comes from the config's ``actionability`` section
(:mod:`.actionability`): ``immutable`` and ``not_actionable`` features are never varied
(``features_to_vary`` = the rest), ``increase_only`` / ``decrease_only`` numeric features get a
``permitted_range`` that starts at the instance's own value (a one-way *categorical* feature is
held fixed: its codes have no direction), and ``feature_ranges`` become DiCE's ``permitted_range``
(widened to include the instance's own value, which DiCE requires; a counterfactual that changes
the feature must still land inside the configured range for the plausibility metric). Each
explanation carries the declarations (``extra["actionability"]``) and the count of its
counterfactuals that change a feature against them (``extra["non_actionable_counterfactuals"]``;
0 unless the search broke a constraint, which is then flagged, never hidden). When the search finds
nothing, that is the explanation: no change the person may make flips the prediction (an empty
``counterfactuals`` list, the reason in ``extra["no_counterfactual"]``; its validity counts as 0),
so the case stays among the cases every method explained.

Speed: for method ``random`` the search itself is :func:`.dice_random.random_search`, DiCE's
algorithm with array bookkeeping instead of its per-cell ``DataFrame.at`` writes (same
counterfactuals, same random draws; the library's search runs instead, logged once, when the
installed DiCE is not the version it reproduces).

DiCE's own post-hoc sparsity step moves one feature of one counterfactual by one unit per model
call (thousands of single-row calls for income-like features). It is replaced by the same
greedy search done in batches (:func:`_sparsify`): for each continuous feature, in DiCE's order,
every counterfactual whose change is within DiCE's threshold (10% quantile of the deviation from
the median, capped at the MAD) tries ``SPARSITY_STEPS`` values on the way back to the original,
all in one model call, and keeps the closest one that still flips the prediction. The searches of
all instances run together (:func:`~.lockstep.run_lockstep`) so each model call serves all of them.
"""

from __future__ import annotations

import copy
import logging
import threading
import time

import numpy as np
import pandas as pd

from ..errors import ConfigError
from ..explanation import Counterfactual, Explanation
from ..config.schema import DiceSettings
from .spec import MethodSpec
from ..vocabulary import noun, plural
from . import dice_random
from .actionability import feature_actionability, features_to_vary, forbidden_changes, one_way_range
from .base import CodedPredictor, ExplainerSpace, budget_setting, failure_text, log_failure, silenced
from ..runtime.lockstep import run_lockstep

log = logging.getLogger(__name__)

#: Points tried between a counterfactual's value and the original in the batched sparsity step.
SPARSITY_STEPS = 20
#: DiCE's default post-hoc sparsity quantile.
SPARSITY_QUANTILE = 0.1


class DiceExplainer:
    """Counterfactuals for many rows, generated together.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
    """

    method = "DiCE"

    def __init__(self, model, data, config, *, seed: int | None = None):  # seed: the uniform factory (unused)
        import dice_ml  # heavy library: loaded only when DiCE runs

        self.model, self.data, self.config = model, data, config
        self.settings = config.evaluation.explainers.dice
        _check_settings(self.settings, data)
        self.space = ExplainerSpace.from_data(data)
        self.predictor = CodedPredictor(model, data.coder)
        train = _categoricals_as_text(self.space.decode(self.space.train), data.categorical_features)
        train[data.target] = data.y_train.to_numpy()
        train = self._with_unseen_categories(train)
        #: per categorical column with a label longer than ``STAND_IN_AFTER``: its text -> stand-in
        self._short = stand_ins(train, data.categorical_features)
        #: and each stand-in -> the coder's code of the value it stands for
        self._stand_in_codes = {col: {short: _code(data.coder, col, text) for text, short in table.items()}
                                for col, table in self._short.items()}
        train = self.shorten(train)
        self._data = dice_ml.Data(dataframe=train, continuous_features=list(data.numeric_features),
                                  outcome_name=data.target)
        self._backend = _PooledModel(data.coder, self._stand_in_codes)
        self._model = dice_ml.Model(model=self._backend, backend="sklearn", model_type="classifier")
        self.kinds = feature_actionability(config, data.feature_names)
        self.vary = [f for f in features_to_vary(self.kinds)
                     if not (f in data.categorical_features and self.kinds[f] != "actionable")]
        if not self.vary:
            raise ConfigError("The actionability section leaves no feature a counterfactual may change (every feature "
                              "is immutable, not_actionable or a one-way categorical). Declare at least one feature "
                              "actionable, increase_only or decrease_only.")
        numeric = [f for f in data.numeric_features if f in train.columns]
        self._bounds = {f: (float(pd.to_numeric(train[f]).min()), float(pd.to_numeric(train[f]).max()))
                        for f in numeric}
        self._data.get_decimal_precisions = KnownPrecisions(self._data.get_decimal_precisions)
        self._precision = self._data.get_decimal_precisions(output_type="dict")

    def _with_unseen_categories(self, train: pd.DataFrame) -> pd.DataFrame:
        """``train`` plus the test rows holding a category no training row has.

        DiCE refuses a query whose category lies outside its dataset ("has a value outside the
        dataset"); with a column of thousands of levels (an id-like merchant or postcode) most test
        rows hold one. Those rows join DiCE's search space, so every category the coder knows is in it.
        """
        data = self.data
        new = pd.Series(False, index=data.X_test.index)
        for col in data.categorical_features:
            # the distinct values first (vectorised): a set of every training value iterates ~26,000 rows per column
            new |= ~data.X_test[col].isin(set(data.X_train[col].dropna().unique())) & data.X_test[col].notna()
        if not new.any():
            return train
        M, _ = self.space.encode(data.X_test[new])
        extra = _categoricals_as_text(self.space.decode(M), data.categorical_features)
        extra[data.target] = data.y_test[new].to_numpy()
        return pd.concat([train, extra], ignore_index=True)

    def explain(self, X_raw: pd.DataFrame, instance_ids, classes, probabilities, seeds, *,
                on_instance=None) -> list[Explanation]:
        """One :class:`Explanation` per row; ``seeds[i]`` seeds DiCE's sampling for row ``i``."""
        start = time.perf_counter()
        M, filled = self.space.encode(X_raw)
        queries = _categoricals_as_text(self.space.decode(M), self.data.categorical_features)
        classes = np.asarray(classes, dtype=int)
        probabilities = np.asarray(probabilities, dtype=float)
        calls_before = self.predictor.calls

        searched = self.shorten(queries)

        def search(i):
            return lambda predict: self._search(searched.iloc[[i]].reset_index(drop=True), int(seeds[i]), predict)

        with silenced("dice_ml"):
            results = run_lockstep([search(i) for i in range(len(M))], list(seeds), self.predictor.positive,
                                   on_finish=None if on_instance is None else (lambda i: on_instance()),
                                   budget_seconds=self.settings.time_budget_seconds,
                                   budget_setting=budget_setting("dice"))
        cfs = {i: self._to_raw(r) for i, r in enumerate(results) if isinstance(r, pd.DataFrame) and len(r)}
        cfs = _sparsify(self, queries, classes, cfs)
        seconds = (time.perf_counter() - start) / max(len(M), 1)
        shared = {"pooled_model_calls": self.predictor.calls - calls_before, "pooled_instances": len(M)}
        out = []
        for i, iid in enumerate(instance_ids):
            base = dict(method=self.method, instance_id=int(iid), predicted_class=int(classes[i]),
                        probability=float(probabilities[i]), algorithm=f"DiCE ({self.settings.method}, model-agnostic)",
                        seconds=seconds)
            if isinstance(results[i], BaseException):
                if _found_nothing(results[i]):  # a result of the search, not a crash: an explanation saying so
                    log.info("DiCE found no counterfactual for instance %s", iid)
                    out.append(Explanation(**base, counterfactuals=[],
                                           importance={f: 0.0 for f in self.data.feature_names},
                                           importance_derived=True,
                                           extra=dict(shared, immutable_features=[f for f in self.data.feature_names
                                                                                  if f not in self.vary],
                                                      actionability=dict(self.kinds), non_actionable_counterfactuals=0,
                                                      no_counterfactual=self._nothing_found_text())))
                else:
                    log_failure(log, "DiCE", iid, results[i])
                    out.append(Explanation(**base, error=failure_text(results[i])))
                continue
            fixed = [f for f in self.data.feature_names if f not in self.vary]
            extra = dict(shared, immutable_features=fixed, actionability=dict(self.kinds))
            if filled[i]:
                extra["filled_for_explainer"] = filled[i]
            row = {f: X_raw[f].iloc[i] for f in self.data.feature_names}
            counterfactuals = self._counterfactuals(row, int(classes[i]), cfs.get(i))
            broken = [forbidden_changes(cf.changes, self.kinds) for cf in counterfactuals]
            extra["non_actionable_counterfactuals"] = sum(bool(b) for b in broken)
            if any(broken):
                extra["non_actionable_features"] = sorted({f for b in broken for f in b})
                log.warning("DiCE proposed a change the actionability section forbids for instance %s: %s",
                            iid, ", ".join(extra["non_actionable_features"]))
            out.append(Explanation(**base, counterfactuals=counterfactuals,
                                   importance=_change_shares(counterfactuals, self.data.feature_names),
                                   importance_derived=True, extra=extra))
        return out

    # ------------------------------------------------------------------ helpers
    def _search(self, query: pd.DataFrame, seed: int, predict, *, library: bool = False):
        """One instance's DiCE search: its counterfactual frame (feature columns) or ``None``.

        ``predict`` answers coded rows with the probability of class 1 (the pooled model call).
        The random method runs :func:`.dice_random.random_search` (the library's algorithm without
        its per-cell pandas writes, same counterfactuals) unless ``library`` is set or the
        installed DiCE is not the one it reproduces; other methods run the library's search.
        """
        import dice_ml  # heavy library: loaded only when DiCE runs

        self._backend.bind(predict)
        # One DiCE object per search: DiCE keeps per-query state on the explainer object.
        dice = dice_ml.Dice(self._data, self._model, method=self.settings.method)
        kwargs = dict(total_CFs=self.settings.num_counterfactuals, features_to_vary=self.vary,
                      permitted_range=self._ranges(query.iloc[0]), random_seed=seed % (2**31))
        if not library and self.settings.method == "random":
            reason = dice_random.unsupported_reason(dice)
            if reason is None:
                return dice_random.random_search(dice, query, **kwargs, positive=predict,
                                                 encode=lambda frame: encode_loose(self.data.coder, frame,
                                                                                   self._stand_in_codes))
            _log_once(f"DiCE's own random search is used because {reason}.")
        found = dice.generate_counterfactuals(query, desired_class="opposite", posthoc_sparsity_param=None,
                                              verbose=False, **kwargs)
        frame = found.cf_examples_list[0].final_cfs_df
        return None if frame is None else frame[self.data.feature_names].reset_index(drop=True)

    def _nothing_found_text(self) -> str:
        return (f"DiCE found no counterfactual: none of the changes it tried ({plural(len(self.vary), 'feature')} free to vary, "
                "within their allowed ranges) flips the model's prediction for this case.")

    def _ranges(self, query: pd.Series) -> dict:
        ranges = {}
        for feature, (low, high) in self.settings.feature_ranges.items():
            if feature in self.vary:
                value = float(query[feature])
                ranges[feature] = [min(float(low), value), max(float(high), value)]
        for feature in self.vary:
            kind = self.kinds[feature]
            if kind in ("increase_only", "decrease_only") and feature in self._bounds:
                value = float(query[feature])
                low, high = ranges.get(feature, self._bounds[feature])
                one_way = one_way_range(kind, value, low, high)
                ranges[feature] = [one_way[0], one_way[1]]
        return ranges

    def _to_raw(self, frame: pd.DataFrame) -> pd.DataFrame:
        """DiCE frame (categoricals possibly as strings, numbers as floats) -> raw CSV types."""
        return self.space.decode(encode_loose(self.data.coder, frame, self._stand_in_codes))

    def shorten(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` (categoricals as text) with long labels replaced by their stand-ins (:func:`stand_ins`)."""
        if not self._short:
            return frame
        frame = frame.copy()
        for col, table in self._short.items():
            frame[col] = frame[col].map(table).astype(object)
        return frame

    def _counterfactuals(self, row: dict, cls: int, frame) -> list[Counterfactual]:
        if frame is None or not len(frame):
            return []
        # a feature DiCE may not vary keeps the case's own value (a gap filled for the search is no change);
        # the model is asked about exactly the rows reported
        frame = frame.copy()
        for f in self.data.feature_names:
            if f not in self.vary:
                frame[f] = pd.Series([row[f]] * len(frame), index=frame.index, dtype=frame[f].dtype)
        M = self.data.coder.encode(frame)
        positive = self.predictor.positive(M)
        out = []
        for k in range(len(frame)):
            cf = {f: frame[f].iloc[k] for f in self.data.feature_names}
            changes = {f: (_plain(row[f]), _plain(cf[f])) for f in self.data.feature_names if _differs(row[f], cf[f])}
            p_cls = positive[k] if cls == 1 else 1.0 - positive[k]
            new_class = int(positive[k] >= self.model.threshold)
            out.append(Counterfactual(changes=changes, probability=float(p_cls), flips=new_class != cls,
                                      row={f: _plain(cf[f]) for f in self.data.feature_names}))
        return out


class _PooledModel:
    """What DiCE sees as the model: raw frames in, ``(n, 2)`` probabilities out (through the pool).

    Each search runs in its own thread and registers its pooled ``predict`` in thread-local
    storage, so interleaved searches never answer each other's requests.
    """

    def __init__(self, coder, stand_in_codes=None):
        self.coder = coder
        self.stand_in_codes = stand_in_codes
        self._local = threading.local()

    def bind(self, predict) -> None:
        self._local.predict = predict

    def predict_proba(self, frame: pd.DataFrame) -> np.ndarray:
        predict = getattr(self._local, "predict", None)
        if predict is None:
            raise RuntimeError("The DiCE model was called outside a HEXEval search.")
        p1 = np.asarray(predict(encode_loose(self.coder, frame, self.stand_in_codes)), dtype=float)
        return np.column_stack([1.0 - p1, p1])


_LOGGED: set[str] = set()


def _log_once(message: str) -> None:
    if message not in _LOGGED:
        _LOGGED.add(message)
        log.info(message)


def encode_loose(coder, frame: pd.DataFrame, stand_in_codes: dict | None = None) -> np.ndarray:
    """Code a frame whose categorical values may come back as strings (``"1"`` for ``1``) or as the
    stand-ins of long labels (``stand_in_codes``: column -> stand-in -> code, see :func:`stand_ins`)."""
    out = np.empty((len(frame), len(coder.feature_names)))
    for j, col in enumerate(coder.feature_names):
        if col in coder.categories:
            lookup = {}
            for code, value in enumerate(coder.categories[col]):
                lookup[value] = code
                lookup[str(value)] = code
            if stand_in_codes and col in stand_in_codes:
                lookup.update(stand_in_codes[col])
            get = lookup.get
            out[:, j] = np.array([get(v, get(str(v), np.nan)) for v in frame[col].tolist()], dtype=float)
        else:
            out[:, j] = pd.to_numeric(frame[col], errors="coerce").astype(float).to_numpy()
    return out


#: Categorical labels longer than this many characters make DiCE work with stand-ins (:func:`stand_ins`).
STAND_IN_AFTER = 64


def stand_ins(train: pd.DataFrame, categorical) -> dict:
    """Short stand-in labels for the categorical columns with a label longer than ``STAND_IN_AFTER``.

    DiCE copies, compares, sorts and one-hot encodes its categorical labels as text many times per search;
    a free-text column of 100,000-character notes made every such step handle megabytes. The stand-ins
    (``"c"`` and the label's rank, zero-padded to one width) sort as the labels sort and map one to one, so
    every order DiCE takes from them (sorted levels, first appearance) and with it every draw is the same;
    :func:`encode_loose` and :meth:`DiceExplainer._to_raw` map them back. Returns column -> label -> stand-in.
    """
    out = {}
    for col in categorical:
        labels = train[col].dropna().astype(str).unique()
        if len(labels) and max(len(v) for v in labels) > STAND_IN_AFTER:
            ranked = sorted(labels)
            width = len(str(len(ranked) - 1))
            out[col] = {label: f"c{rank:0{width}d}" for rank, label in enumerate(ranked)}
    return out


def _code(coder, col, text):
    """The coder's code of the category whose text is ``text`` (NaN for the text of a missing value)."""
    for code, value in enumerate(coder.categories[col]):
        if value == text or str(value) == text:
            return code
    return np.nan


def _found_nothing(err: BaseException) -> bool:
    """DiCE's way of saying its search found no counterfactual (it raises rather than returning none)."""
    return type(err).__name__ == "UserConfigValidationException" and "No counterfactuals found" in str(err)


def _sparsify(explainer: DiceExplainer, queries: pd.DataFrame, classes: np.ndarray, cfs: dict) -> dict:
    """Batched version of DiCE's linear post-hoc sparsity search (see module docstring)."""
    if not cfs:
        return cfs
    data_interface = explainer._data
    quantiles = data_interface.get_quantiles_from_training_data(quantile=SPARSITY_QUANTILE)
    mads = data_interface.get_valid_mads()
    limits = {f: min(quantiles[f], mads[f]) for f in quantiles}
    order = sorted(limits, key=lambda f: limits[f], reverse=True)
    coder = explainer.data.coder
    coded = {i: coder.encode(frame) for i, frame in cfs.items()}
    q_coded = coder.encode(queries)
    threshold = explainer.model.threshold
    for feature in order:
        if feature not in explainer.vary:
            continue
        j = coder.feature_names.index(feature)
        digits = int(explainer._precision.get(feature, 0))
        jobs, rows = [], []
        for i, M in coded.items():
            target = q_coded[i, j]
            for k in range(len(M)):
                diff = target - M[k, j]
                if not np.isfinite(diff) or diff == 0 or abs(diff) > limits[feature]:
                    continue
                steps = np.round(M[k, j] + diff * np.arange(1, SPARSITY_STEPS + 1) / SPARSITY_STEPS, digits)
                steps[-1] = target
                candidates = np.repeat(M[k:k + 1], SPARSITY_STEPS, axis=0)
                candidates[:, j] = steps
                jobs.append((i, k, steps))
                rows.append(candidates)
        if not rows:
            continue
        positive = explainer.predictor.positive(np.vstack(rows))
        for n, (i, k, steps) in enumerate(jobs):
            flipped = (positive[n * SPARSITY_STEPS:(n + 1) * SPARSITY_STEPS] >= threshold).astype(int) != classes[i]
            ok = int(np.argmin(flipped)) if not flipped.all() else SPARSITY_STEPS
            if ok:
                coded[i][k, j] = steps[ok - 1]
    return {i: coder.decode(M) for i, M in coded.items()}


def _categoricals_as_text(frame: pd.DataFrame, categorical: list[str]) -> pd.DataFrame:
    """DiCE handles categorical values as text; numeric codes (heart's ``cp`` = 0..3) must be text too.

    Otherwise DiCE writes ``"3"`` into a float column, which pandas 3 refuses.
    """
    frame = frame.copy()
    for col in categorical:
        frame[col] = frame[col].astype(str).astype(object)
    return frame


def _change_shares(counterfactuals: list[Counterfactual], features: list[str]) -> dict:
    """Derived importance: share of the counterfactuals that change each feature."""
    if not counterfactuals:
        return {f: 0.0 for f in features}
    return {f: sum(f in cf.changes for cf in counterfactuals) / len(counterfactuals) for f in features}


def _check_settings(settings, data) -> None:
    unknown = [f for f in [*settings.immutable_features, *settings.feature_ranges] if f not in data.feature_names]
    if unknown:
        raise ConfigError(f"evaluation.explainers.dice names {noun(len(unknown), 'a feature', 'features')} {', '.join(unknown)} that the data does not "
                          f"have (features: {', '.join(data.feature_names)}). Fix immutable_features/feature_ranges.")
    not_numeric = [f for f in settings.feature_ranges if f in data.categorical_features]
    if not_numeric:
        raise ConfigError(f"evaluation.explainers.dice.feature_ranges gives ranges for categorical {noun(len(not_numeric), 'feature')} "
                          f"{', '.join(not_numeric)}; ranges apply to numeric features only. Remove them.")
    if len(set(settings.immutable_features)) >= len(data.feature_names):
        raise ConfigError("evaluation.explainers.dice.immutable_features lists every feature, so no counterfactual "
                          "can change anything. Leave at least one feature free to vary.")
    bad = {f: r for f, r in settings.feature_ranges.items() if not r[0] <= r[1]}
    if bad:
        raise ConfigError(f"evaluation.explainers.dice.feature_ranges has ranges with low > high: {bad}. "
                          "Write them as [low, high].")


def _differs(a, b) -> bool:
    if isinstance(a, (int, float, np.integer, np.floating)) and isinstance(b, (int, float, np.integer, np.floating)):
        if np.isnan(a) and np.isnan(b):
            return False
        return not np.isclose(float(a), float(b), rtol=0, atol=1e-9)
    if pd.isna(a) and pd.isna(b):
        return False
    return a != b


def _plain(value):
    """numpy scalars -> Python scalars (JSON-friendly), missing -> None."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


SPEC = MethodSpec(
    "DiCE", "counterfactual", "counterfactuals: what would change the outcome",
    "Counterfactuals: small changes to this case's inputs that would change the model's answer.",
    factory=DiceExplainer, settings_key="dice", settings_model=DiceSettings,
    color="#CC79A7", dash="longdash", symbol="triangle-up",  # reddish purple
    runs_in_helper=True, pools_model_calls=True, aims_at_target=True, instance_cap="max_instances")


class KnownPrecisions:
    """A DiCE data interface's ``get_decimal_precisions``, worked out once per output type.

    The library works every continuous column's precision out again on every search, from the ``str()`` of each of its
    modes: on columns of distinct values every value is a mode, so 300 such columns of 1,000 training rows cost 300,000
    ``str()`` calls a search. The training frame behind them does not change after the data interface is built, so
    the answer does not either. Each call returns a copy, as each of the library's calls returns a new list or dict
    (a ``defaultdict(int)``, which a caller's look-up of another column would change).
    """

    def __init__(self, compute):
        self.compute, self.known = compute, {}

    def __call__(self, output_type="list"):
        if output_type not in self.known:
            self.known[output_type] = self.compute(output_type=output_type)
        return copy.copy(self.known[output_type])
