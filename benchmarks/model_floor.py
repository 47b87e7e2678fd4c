"""The physical floor of a run: every model call it made, replayed against the model's own ``predict_proba``.

Public interface
----------------
``CallRecorder()``                 ``with recorder.recording(): evaluate(...)`` records every model call
``recorder.calls``                 one :class:`Call` per call: model, rows, label (stage / method / activity)
``recorder.floor(rows, repeats=3) -> dict``   the floor: the same call sizes replayed on real rows
``real_rows(data) -> DataFrame``   the data's rows the floor is replayed on
``label(name)``                    context manager: calls inside it carry ``name`` (the benchmark's own wrapping)

What is recorded. HEXEval reaches every model through :class:`~hexeval_engine.models.HexevalModel`:
``_raw_proba`` (classifiers) and ``predict_value`` (regressors) are the only methods that call the
estimator, and they count ``HexevalModel.calls`` / ``rows``. A multi-class or regression run explains
*views* (``models.class_view``, ``models.band_view``): a view is itself a ``HexevalModel`` whose estimator
calls the underlying model's ``class_probabilities`` / ``predict_value``. The recorder wraps both methods
on the class for the duration of :meth:`CallRecorder.recording` and keeps only **leaf** calls (a call
during which no other wrapped call ran), so a view's call is counted once, as the underlying model's
call it made. The randomisation check's re-fitted model is a ``HexevalModel`` too (``source ==
"randomised copy"``): its calls are recorded under their own model and replayed against *its* fitted
estimator. Calls made in other processes (``evaluation.parallel.backend: loky`` or ``dask``) are not seen;
every benchmark workload runs sequentially.

Where a call comes from. ``recording()`` also wraps, for the same duration, the engine's existing entry
points that know the stage or method: ``StageClock.__call__`` (the pipeline stage: load, technical,
sanity_checks, personas ...), ``MethodClock.charge`` (the method a technical-stage block is charged to),
every explainer class's ``explain`` (the method that asked, also inside the sanity checks), and the
technical stage's and sanity checks' helpers (stability copies, metrics, claim/reader metrics, predicting
the sample, signal check, randomisation check, held-out performance). Labels live on one process-wide
stack, not a thread-local, so calls that Anchor's and DiCE's lock-step search threads make carry the label
of the block the main thread is in. Nothing is added to the engine.

The floor. After the run, :meth:`CallRecorder.floor` replays each recorded call with the same number of
rows against the fitted estimator (or pipeline) itself: ``estimator.predict_proba`` (``predict`` for a
regressor), after the artefact's own ``preprocessor`` when it keeps one apart, on real rows of the data
(cycled when a call asked for more rows than the data has). Column selection and the text-code mapping a
bare estimator needs (``data.categorical_encoding``) are done before the clock starts: they are HEXEval's
work, not the model's. Each call is timed ``repeats`` times and its fastest time counts (best of 3): the
floor is what the model itself needs for the rows the run asked about, in the call sizes the run used.
A forest whose calls HEXEval sends through ``models.fast_forest`` can spend *less* than this floor inside
its wrapper (``in_model`` seconds, also reported): the floor is the model's own ``predict_proba``.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: The labels of the block running now, outermost first (one stack for the process; see the module docstring).
_STACK: list[str] = []
#: Methods, in the order a per-method breakdown lists them.
METHODS = ("SHAP", "LIME", "Anchor", "DiCE", "Random", "Narrative")
#: ``source`` of the randomisation check's re-fitted model (``technical.sanity._randomised_model``).
RANDOMISED = "randomised copy"


@contextmanager
def label(name: str):
    """Calls made inside the block carry ``name`` (appended to the enclosing labels; a repeat is not doubled)."""
    pushed = not _STACK or _STACK[-1] != name
    if pushed:
        _STACK.append(name)
    try:
        yield
    finally:
        if pushed:
            _STACK.pop()


@dataclass(frozen=True)
class Call:
    """One leaf model call: which model (index into ``CallRecorder.models``), how many rows, the label path
    when it was made (``"technical / LIME / stability copies"``) and the seconds it took inside the wrapper."""

    model: int
    rows: int
    path: str
    seconds: float


def method_of(path: str) -> str:
    """The method a label path belongs to (its first method label), else its most specific activity."""
    parts = path.split(" / ") if path else []
    method = next((p for p in parts if p in METHODS), None)
    if method is not None:
        return method
    return parts[-1] if parts else "unlabelled"


class CallRecorder:
    """Records every leaf model call made inside :meth:`recording` (see the module docstring).

    Attributes
    ----------
    calls : list of Call
    models : list of HexevalModel
        Every model that made a recorded call, in first-call order (``Call.model`` indexes it).
    """

    def __init__(self):
        self.calls: list[Call] = []
        self.models: list = []
        self._lock = threading.Lock()  # Anchor's and DiCE's search threads may call at once
        self._thread = threading.local()  # per thread: depth of wrapped calls, whether one ran inside

    @contextmanager
    def recording(self):
        """Wrap the model's predicting methods and the engine's labelled entry points for the block."""
        patches = _label_patches() + self._model_patches()
        saved = [(owner, name, vars(owner)[name]) for owner, name, _ in patches]  # classes and modules alike
        for owner, name, replacement in patches:
            setattr(owner, name, replacement)
        try:
            yield self
        finally:
            for owner, name, original in reversed(saved):
                setattr(owner, name, original)

    def _model_patches(self) -> list:
        from hexeval_engine.models.model_wrapper import HexevalModel  # the engine loads in recording processes only

        recorder = self

        def leaf(original):
            def recorded(model, X):
                state = recorder._thread
                depth, state.depth, state.inner = getattr(state, "depth", 0), getattr(state, "depth", 0) + 1, False
                start = time.perf_counter()
                try:
                    return original(model, X)
                finally:
                    seconds = time.perf_counter() - start
                    if not state.inner:  # a leaf: no wrapped call ran inside it
                        recorder._add(model, len(X), seconds)
                    state.depth, state.inner = depth, True  # the enclosing call (if any) is not a leaf
            return recorded

        return [(HexevalModel, "_raw_proba", leaf(HexevalModel._raw_proba)),
                (HexevalModel, "predict_value", leaf(HexevalModel.predict_value))]

    def _add(self, model, rows: int, seconds: float) -> None:
        with self._lock:
            self._add_locked(model, rows, seconds)

    def _add_locked(self, model, rows: int, seconds: float) -> None:
        index = next((k for k, m in enumerate(self.models) if m is model), None)
        if index is None:
            self.models.append(model)
            index = len(self.models) - 1
        self.calls.append(Call(index, int(rows), " / ".join(_STACK), seconds))

    @property
    def rows(self) -> int:
        """Rows of every recorded call."""
        return sum(c.rows for c in self.calls)

    def floor(self, rows: pd.DataFrame, *, repeats: int = 3) -> dict:
        """Replay every recorded call on real ``rows`` against each model's own estimator; the floor's figures.

        Parameters
        ----------
        rows : DataFrame
            Real rows of the data (raw columns), cycled to each call's size.
        repeats : int
            Times each call is replayed; the fastest counts.

        Returns
        -------
        dict
            ``calls``, ``rows``, ``in_model`` (seconds inside HEXEval's wrapper during the run), ``floor``
            (seconds), ``randomised`` (``calls``, ``rows``, ``floor`` of the re-fitted model) and
            ``by_method`` / ``by_label``: ``{name: {"calls", "rows", "in_model", "floor"}}``.
        """
        seconds = [0.0] * len(self.calls)
        for index, model in enumerate(self.models):
            mine = [k for k, c in enumerate(self.calls) if c.model == index]
            if not mine:
                continue
            pool = _prepared_pool(model, rows, max(self.calls[k].rows for k in mine))
            predict = _own_predict(model)
            for k in mine:
                inputs = pool.iloc[:self.calls[k].rows] if isinstance(pool, pd.DataFrame) else pool[:self.calls[k].rows]
                best = float("inf")
                for _ in range(repeats):
                    start = time.perf_counter()
                    predict(inputs)
                    best = min(best, time.perf_counter() - start)
                seconds[k] = best
        by_method, by_label = _breakdown(self.calls, seconds, method_of), _breakdown(self.calls, seconds, lambda p: p)
        randomised = [k for k, c in enumerate(self.calls) if self.models[c.model].source == RANDOMISED]
        return {"calls": len(self.calls), "rows": self.rows, "in_model": sum(c.seconds for c in self.calls),
                "floor": sum(seconds), "repeats": repeats, "models": len(self.models),
                "randomised": {"calls": len(randomised), "rows": sum(self.calls[k].rows for k in randomised),
                               "floor": sum(seconds[k] for k in randomised)},
                "by_method": by_method, "by_label": by_label}


def real_rows(data) -> pd.DataFrame:
    """Every row of ``data`` (training and test rows, raw feature columns): the rows the floor is replayed on."""
    features = list(data.feature_names)
    return pd.concat([data.X_train[features], data.X_test[features]], ignore_index=True)


def _breakdown(calls: list[Call], seconds: list[float], key) -> dict:
    out: dict = defaultdict(lambda: {"calls": 0, "rows": 0, "in_model": 0.0, "floor": 0.0})
    for call, floor in zip(calls, seconds):
        entry = out[key(call.path)]
        entry["calls"] += 1
        entry["rows"] += call.rows
        entry["in_model"] += call.seconds
        entry["floor"] += floor
    return dict(sorted(out.items(), key=lambda kv: -kv[1]["floor"]))


def _prepared_pool(model, rows: pd.DataFrame, size: int):
    """``size`` real rows (cycled) as the model's estimator takes them: its columns, coded where it needs codes."""
    positions = np.arange(size) % len(rows)
    frame = rows.iloc[positions].reset_index(drop=True)
    return model._as_input(model._columns(frame))  # HEXEval's column selection and coding: not timed


def _own_predict(model):
    """The fitted model's own prediction function: preprocessing kept apart, then ``predict_proba`` / ``predict``."""
    estimator, preprocessor = model.estimator, model.preprocessor
    own = estimator.predict if model.regression else estimator.predict_proba
    if preprocessor is None:
        return own
    return lambda X: own(preprocessor.transform(X))


def _wrapped(function, name: str):
    def labelled(*args, **kwargs):
        with label(name):
            return function(*args, **kwargs)
    labelled.__wrapped__ = function
    return labelled


def _label_patches() -> list:
    """``(owner, attribute, replacement)`` for every engine entry point that knows where a call comes from."""
    # the engine loads in recording processes only (targets.py's parent process imports this module to print)
    import importlib

    import hexeval_engine.technical.measuring as measuring
    import hexeval_engine.technical.overlap as overlap
    import hexeval_engine.technical.run as technical
    import hexeval_engine.technical.sample_plan as sample_plan
    import hexeval_engine.technical.sanity as sanity
    from hexeval_engine.explainers.registry import EXPLAINERS
    from hexeval_engine.progress import StageClock
    from hexeval_engine.technical.timing import MethodClock

    pipeline = importlib.import_module("hexeval_engine.evaluate")  # the module (the package exports a function of that name)
    stage_call, charge = StageClock.__call__, MethodClock.charge

    @contextmanager
    def stage(self, name, **kwargs):
        with label(name), stage_call(self, name, **kwargs):
            yield

    @contextmanager
    def charged(self, account):
        with label(account), charge(self, account):
            yield

    patches = [(StageClock, "__call__", stage), (MethodClock, "charge", charged)]
    patches += [(cls, "explain", _wrapped(cls.explain, method)) for method, cls in EXPLAINERS.items()]
    for module, names in ((technical, {"stability_explanations": "stability copies",
                                       "case_groups": "predicting the sample"}),
                          (sample_plan, {"explained_classes": "predicting the sample"}),
                          (measuring, {"compute_instance_metrics": "metrics", "claim_rows": "claim/reader metrics"}),
                          (overlap, {"compute_instance_metrics": "metrics"}),
                          (sanity, {"signal_check": "signal check", "randomisation_check": "randomisation check"}),
                          (pipeline, {"held_out_performance": "held-out performance", "_validate": "validate"})):
        patches += [(module, name, _wrapped(getattr(module, name), text)) for name, text in names.items()
                    if hasattr(module, name)]
    return patches
