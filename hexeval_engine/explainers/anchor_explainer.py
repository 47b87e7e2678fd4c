"""Anchor rules in raw values: ``loan_grade = D AND loan_percent_income > 0.31``.

``anchor.anchor_tabular.AnchorTabularExplainer`` runs on the coded training matrix (categorical
features declared through ``categorical_names``; numeric features discretised into quartiles by
the library). :class:`.anchor_sampling.AnchorSampler` draws the perturbations exactly as the
library's ``get_sample_fn`` does (same random numbers, compact results); the beam search is the
library's ``AnchorBaseBeam.anchor_beam`` algorithm run by :func:`.anchor_search.anchor_beam`
(same draws, same rules; array bookkeeping, so the search's own work per step and its memory per
sample do not grow with the number of columns; the number of steps does, see
``STEPS_PER_PREDICATE``). Each chosen predicate keeps its operator and bin, which are turned into
:class:`~hexeval_engine.explanation.Condition` objects on raw values (quartile boundaries of the
training data, category values and their display labels).

Anchor is bound by the number of model calls, not rows. Three things keep the count low:
the explained class is passed in (no call to find it); the search starts from
``MIN_SAMPLES_START`` samples so every candidate predicate already has samples (the library
otherwise makes one single-row call per candidate, then many bandit rounds); the searches of all
instances run together and share each model call (:mod:`.lockstep`); and predictions go through
a :class:`~hexeval_engine.explainers.base.CodedPredictor` whose cache already knows the instance
and never sends a row twice (except on wide data, where looking rows up costs more than predicting
them: ``UNCACHED_COLUMNS``). The search parameters are the library's ``explain_instance``
defaults (``delta`` 0.1, ``tau`` 0.15, ``beam_size`` 4) with ``threshold`` from
``explainers.anchor.precision_threshold``, except ``BATCH_SIZE`` and ``MAX_ANCHOR_SIZE`` below.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import pandas as pd

from ..explanation import Condition, Explanation, Rule
from ..config.schema import AnchorSettings
from .spec import MethodSpec
from ..models.class_view import view_probability
from .anchor_sampling import AnchorSampler
from .anchor_search import anchor_beam
from .base import (GLOBAL_RNG_LOCK, CodedPredictor, ExplainerSpace, TimeBudgetExceeded, budget_setting,
                   failure_text, log_failure, rows_per_call)
from ..runtime.lockstep import MAX_TOGETHER, run_lockstep

log = logging.getLogger(__name__)

#: Samples drawn for the empty rule before the beam search (``anchor_beam``'s ``min_samples_start``,
#: library default 1). Every candidate rule's precision starts from the samples that satisfy it,
#: so the bandit search needs far fewer extra rounds: on heart, 10 instances need 11 pooled model
#: calls instead of ~260, with rules of the same length and precision. One model call draws them.
MIN_SAMPLES_START = 5000
#: ``explain_instance`` defaults, except ``BATCH_SIZE`` (library default 100): with 200 samples per
#: step, the bounds separate in fewer steps; on the heart use case the pooled model calls drop from
#: ~720 to ~260 for 10 instances at the same precision threshold.
DELTA, TAU, BEAM_SIZE, BATCH_SIZE = 0.1, 0.15, 4, 200
#: Longest rule searched. Without a cap, an instance no short rule covers is searched up to
#: every feature (one credit-risk instance: 2,000 model calls for a 9-condition rule of precision
#: 0.73), and such long rules are hard to read anyway. Measured on the credit-risk benchmark
#: sample (10 instances): caps 4 and 3 give the same rules for the 8 instances that reach the
#: precision threshold; the 2 that do not end at precision 0.86/0.45 (cap 4) vs 0.83/0.41 (cap 3),
#: and cap 3 halves the pooled model calls (283 -> ~150).
MAX_ANCHOR_SIZE = 3
#: Training rows Anchor samples its perturbations from (and takes quartile boundaries and coverage
#: from). Larger training sets are subsampled once, deterministically from ``evaluation.random_state``:
#: 10,000 rows estimate quartiles and precision as well as 26,000 do, and the library's per-step
#: sampling cost grows with the matrix (credit risk: ~0.7 s saved for 10 instances).
MAX_SAMPLE_ROWS = 10_000
#: Memory the searches run together may hold (:func:`search_bytes` each; at most ``MAX_TOGETHER``
#: run together, so their model calls are pooled).
SEARCH_MEMORY_BUDGET = 1_000_000_000
#: ``anchor_beam``'s coverage sample size (library default).
COVERAGE_SAMPLES = 10_000
#: Bandit steps assumed per candidate predicate when budgeting memory. More candidates need more
#: steps to rank: on the synthetic benchmark the longest search took 0.6, 1.4, 2.8 and 3.1 steps per
#: predicate at 13, 30, 100 and 300 features (33 to 750 predicates); at least 250 steps are assumed.
STEPS_PER_PREDICATE = 4
#: Bytes one sample costs a search: its training row (4), label (1), the keys and features its rule
#: replaced (3 per predicate of the longest rule), its place in its rule's index array (8).
SAMPLE_BYTES = 4 + 1 + 3 * MAX_ANCHOR_SIZE + 8
#: Bytes of one candidate rule's record (Python object, dictionary slot, tuple key).
RULE_BYTES = 400
#: Feature columns from which Anchor's predictor keeps no row cache (``runtime.parallel.WIDE_COLUMNS``, wide
#: data). A sample is a training row with the few values its rule's conditions replaced, so on wide data few
#: sampled rows repeat (~8 % on 300 numeric columns), while looking a row up hashes every one of its values:
#: ~2 us a row on 300 columns, more than decoding, preprocessing and predicting it (~1.4 us with an XGBoost
#: pipeline); 4 cases took 21.3 CPU s with the cache, 16.8 s without. The model's answers are the same either
#: way (a cached row's answer is the model's own); only the rows sent (``pooled_model_calls``) differ.
UNCACHED_COLUMNS = 100


def search_bytes(features: int, predicates: int, train_rows: int) -> int:
    """Memory one search may hold at its largest (see ``SEARCH_MEMORY_BUDGET``).

    Per training row: its keys (one byte per feature), its weight in the coverage sample and a few
    coverage masks; per sample (``MIN_SAMPLES_START`` plus two batches per bandit step, twice over
    for the arrays' growth): ``SAMPLE_BYTES``; per candidate rule (every predicate, then
    ``BEAM_SIZE`` extensions per predicate per rule length): ``RULE_BYTES``; and the first draw's
    rows in flight (the draw, its copy in the pooled model call and the decoded frame).
    """
    steps = max(250, STEPS_PER_PREDICATE * predicates)
    samples = MIN_SAMPLES_START + steps * 2 * BATCH_SIZE
    return (train_rows * (features + 8 + BEAM_SIZE * MAX_ANCHOR_SIZE) + 2 * samples * SAMPLE_BYTES
            + predicates * (1 + BEAM_SIZE * MAX_ANCHOR_SIZE) * RULE_BYTES + 3 * 8 * MIN_SAMPLES_START * features)


class AnchorBudgetExceeded(TimeBudgetExceeded):
    """An Anchor search ran over its time budget; the message says how many candidate conditions it ranked."""

    def __init__(self, err: TimeBudgetExceeded, predicates: int, features: int):
        super().__init__(err.budget, err.spent, err.setting)
        self.args = (f"Stopped after {self.spent:.1f} s, over the time budget of {self.budget:g} s per case, while "
                     f"ranking {predicates} candidate conditions on {features} features (more conditions need "
                     f"more samples and model calls to rank, so wide data takes longer). Raise {self.setting} "
                     f"to let slow cases finish.",)


class AnchorExplainer:
    """Explain rows one by one with a shared ``AnchorTabularExplainer``.

    Parameters
    ----------
    model : HexevalModel
    data : Dataset
    config : HexevalConfig
    """

    method = "Anchor"

    def __init__(self, model, data, config, *, seed: int | None = None):  # seed: the uniform factory (unused)
        from anchor.anchor_tabular import AnchorTabularExplainer  # heavy library: loaded only when Anchor runs

        self.model, self.data, self.config = model, data, config
        self.threshold = config.evaluation.explainers.anchor.precision_threshold
        self.budget = config.evaluation.explainers.anchor.time_budget_seconds
        self.space = ExplainerSpace.from_data(data)
        coder = data.coder
        names = {j: [coder.label(col, v) for v in coder.categories[col]]
                 for j, col in enumerate(coder.feature_names) if col in coder.categories}
        self.predictor = CodedPredictor(model, coder, cache=len(coder.feature_names) < UNCACHED_COLUMNS)
        self._classes = None  # ClassPredictor for searches over several one-class views (explain(explained=...))
        with GLOBAL_RNG_LOCK:
            self._anchor = AnchorTabularExplainer(["0", "1"], list(coder.feature_names),
                                                  _sample_rows(self.space.train, config.evaluation.random_state), names)

    def explain(self, X_raw: pd.DataFrame, instance_ids, classes, probabilities, seeds, *,
                on_instance=None, request_caps=None, explained=None) -> list[Explanation]:
        """One :class:`Explanation` per row; ``seeds[i]`` seeds the global RNG the library draws from for row ``i``.

        The searches of all rows run together (:func:`~.lockstep.run_lockstep`), so each model call
        serves every row still searching. A row whose search fails gets an explanation with ``error``.
        ``request_caps[i]`` (``None``: no cap) bounds row ``i``'s model requests (``anchor_beam``'s
        ``max_requests``); a search stopped there keeps the rule found so far and says so in its
        ``extra["stopped_at_request_cap"]``. Every explanation records ``extra["model_requests"]``.

        ``explained`` (multi-class): the class index each row is explained for. The model is then the
        multi-class model, and row ``i``'s search classifies samples by its one-class view
        (:func:`hexeval_engine.models.class_view.view_probability` of class ``explained[i]``, at 0.5), exactly
        as a search on that view would, while every row's samples share the pooled model calls whatever
        class they are explained for. ``classes`` and ``probabilities`` are then those of the views.
        """
        start = time.perf_counter()
        M, filled = self.space.encode(X_raw)
        classes = np.asarray(classes, dtype=int)
        probabilities = np.asarray(probabilities, dtype=float)
        if explained is None:
            positive = np.where(classes == 1, probabilities, 1.0 - probabilities)
            known = ~np.array([bool(f) for f in filled], dtype=bool)
            self.predictor.seed(M[known], positive[known])
            threshold, pooled = self.model.threshold, self.predictor.positive
            views = [None] * len(M)
        else:
            threshold, pooled = 0.5, self._class_predictor().class_rows
            views = [int(c) for c in explained]

        caps = list(request_caps) if request_caps is not None else [None] * len(M)

        def search(i):
            def run(predict):
                def classify(Z):
                    scores = predict(Z) if views[i] is None else view_probability(predict(Z), views[i])
                    return (scores >= threshold).astype(int)

                sampler = AnchorSampler(self._anchor, M[i])
                try:
                    found = anchor_beam(
                        sampler, lambda raw: (classify(raw) == int(classes[i])).astype(int), delta=DELTA,
                        epsilon=TAU, batch_size=BATCH_SIZE, desired_confidence=self.threshold, beam_size=BEAM_SIZE,
                        min_samples_start=MIN_SAMPLES_START, max_anchor_size=MAX_ANCHOR_SIZE,
                        coverage_samples=COVERAGE_SAMPLES, max_requests=caps[i])
                except TimeBudgetExceeded as err:
                    raise AnchorBudgetExceeded(err, sampler.n_predicates, len(self.data.feature_names)) from err
                return [sampler.mapping[idx] for idx in found["feature"]], found
            return run

        predictor = self.predictor if explained is None else self._class_predictor()
        calls_before = predictor.calls
        together = self.together()
        results = run_lockstep([search(i) for i in range(len(M))], list(seeds), pooled,
                               on_finish=None if on_instance is None else (lambda i: on_instance()),
                               max_together=together, budget_seconds=self.budget,
                               budget_setting=budget_setting("anchor"))
        seconds = (time.perf_counter() - start) / max(len(M), 1)
        shared = {"pooled_model_calls": predictor.calls - calls_before, "pooled_instances": len(M)}
        return [self._explanation(iid, int(classes[i]), float(probabilities[i]), results[i],
                                  filled[i], seconds, shared) for i, iid in enumerate(instance_ids)]

    def _class_predictor(self) -> "ClassPredictor":
        """The multi-class model's class probabilities over coded rows (built on first use; with a row cache when
        ``self.predictor`` has one)."""
        if self._classes is None:
            self._classes = ClassPredictor(self.model, self.data.coder, cache=self.predictor.cache)
        return self._classes

    def together(self) -> int:
        """How many searches run together: as many as fit in ``SEARCH_MEMORY_BUDGET``, at most ``MAX_TOGETHER``."""
        predicates = len(self.data.categorical_features) + 3 * len(self.data.numeric_features)  # at most
        need = search_bytes(len(self.data.feature_names), predicates, len(self._anchor.train))
        return max(1, min(MAX_TOGETHER, int(SEARCH_MEMORY_BUDGET // need)))

    def _explanation(self, iid, cls, probability, result, filled, seconds, shared) -> Explanation:
        base = dict(method=self.method, instance_id=int(iid), predicted_class=cls, probability=probability,
                    algorithm=f"AnchorTabularExplainer (precision threshold {self.threshold:g})", seconds=seconds)
        if isinstance(result, BaseException):
            log_failure(log, "Anchor", iid, result)
            return Explanation(**base, error=failure_text(result))
        predicates, found = result
        precision = found["precision"][-1] if found["precision"] else found["all_precision"]
        coverage = found["coverage"][-1] if found["coverage"] else 1.0
        conditions = self._conditions(predicates)
        used = {c.feature for c in conditions}
        extra = dict(shared, meets_threshold=bool(precision >= self.threshold),
                     model_requests=int(found["model_requests"]))
        if found.get("stopped_at_request_cap"):
            extra["stopped_at_request_cap"] = True
        if filled:
            extra["filled_for_explainer"] = filled
        return Explanation(**base, rule=Rule(conditions, float(precision), float(coverage)),
                           importance={f: (1.0 if f in used else 0.0) for f in self.data.feature_names},
                           importance_derived=True, extra=extra)

    def _conditions(self, predicates) -> list[Condition]:
        """Turn the library's ``(feature index, op, value)`` predicates into raw-value conditions.

        Numeric predicates refer to quartile bins: ``leq b`` means ``x <= upper edge of bin b``,
        ``geq b`` means ``x > upper edge of bin b``. Several predicates on one feature merge into
        one range condition.
        """
        coder, disc = self.data.coder, self._anchor.disc
        names = coder.feature_names
        ranges: dict[int, list] = {}
        order: list[int] = []
        conditions: dict[int, Condition] = {}
        for f, op, v in predicates:
            if f not in order:
                order.append(f)
            col = names[f]
            if op == "eq":
                value = coder.categories[col][int(v)]
                conditions[f] = Condition(col, "=", value, f"{col} = {coder.label(col, value)}")
                continue
            low, high = ranges.setdefault(f, [-np.inf, np.inf])
            edge = float(disc.maxs[f][int(v)])
            ranges[f] = [max(low, edge), high] if op == "geq" else [low, min(high, edge)]
        for f, (low, high) in ranges.items():
            col = names[f]
            if np.isfinite(low) and np.isfinite(high):
                conditions[f] = Condition(col, "in", (low, high),
                                          f"{coder.label(col, low)} < {col} <= {coder.label(col, high)}")
            elif np.isfinite(low):
                conditions[f] = Condition(col, ">", low, f"{col} > {coder.label(col, low)}")
            else:
                conditions[f] = Condition(col, "<=", high, f"{col} <= {coder.label(col, high)}")
        return [conditions[f] for f in order]


class ClassPredictor(CodedPredictor):
    """``(n, K)`` class probabilities of a multi-class model over coded rows, with :class:`CodedPredictor`'s
    cache (each row's probabilities are kept whole, so searches explaining different classes share them)."""

    def class_rows(self, M: np.ndarray) -> np.ndarray:
        """Class probabilities (the data's class order) for each coded row."""
        M = np.ascontiguousarray(np.atleast_2d(M), dtype=float)
        if not self.cache:
            return self._class_predict(M)
        return np.array(self._cached(M, self._class_predict), dtype=float).reshape(len(M), -1)

    def _class_predict(self, M: np.ndarray) -> np.ndarray:
        step = rows_per_call(M.shape[1])
        proba = np.concatenate([self.model.class_probabilities(self.coder.decode(M[k:k + step]))
                                for k in range(0, len(M), step)])
        self.calls += -(-len(M) // step)
        self.rows += len(M)
        return proba


def _sample_rows(train: np.ndarray, random_state: int) -> np.ndarray:
    """At most ``MAX_SAMPLE_ROWS`` training rows, the same ones for the same seed."""
    if len(train) <= MAX_SAMPLE_ROWS:
        return train
    keep = np.random.default_rng(random_state).choice(len(train), MAX_SAMPLE_ROWS, replace=False)
    return train[np.sort(keep)]


SPEC = MethodSpec(
    "Anchor", "rule", "if-then rules with precision and coverage",
    "An if-then rule: while these conditions hold, the model keeps its answer (with the rule's precision).",
    factory=AnchorExplainer, settings_key="anchor", settings_model=AnchorSettings,
    color="#009E73", dash="dashdot", symbol="diamond",  # bluish green
    runs_in_helper=True, pools_model_calls=True, pooled_over_classes=True, bounded_reruns=True,
    instance_cap="max_instances")
