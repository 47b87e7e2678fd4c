"""Never compute the same thing twice: keys of what determines a piece of work, and where pieces are looked up.

A *piece* is one case's explanation by one method in the technical stage (of a sample case, a noisy copy or a
re-run), the per-case metrics of one method's explanations (or the paired metrics of every method's), or the
technical stage's whole result together with the sanity checks and the held-out scores. Its key is a SHA-256 of
everything that determines it:

* the model file's hash and the view the stage explains it through (a class of a multi-class model, a band of a
  regressor: the view's own settings);
* the data as the stage sees it (the training and test rows and targets, hashed);
* the resolved settings that matter: the whole config except what only later stages read (``personas`` but its
  ``top_k_features``, ``narratives``, ``recommendations``, ``output``) and how the work is spread over processes
  (``evaluation.parallel``: every backend gives the same explanations); for one case's explanation, also not the
  settings that choose the cases or measure them (:func:`case_settings`), so a larger sample or an added method
  reuses the explanations it shares with an earlier run;
* the library versions and HEXEval's own code (a hash of the engine's source files: a change to any of them
  makes every key new);
* for one case's explanation: the method, the case id, its seed, its row's values, class and probability, and
  whether texts are rendered;
* for metrics: the keys of the explanations they were computed from (in order, with those of the noisy copies and
  re-runs), so metrics are stored only when every explanation they read is itself a stored piece
  (:meth:`Pieces.measured_key`).

:class:`Pieces` looks a key up in the run's own checkpoints (``pieces/`` of its working folder, see
:mod:`.resumable`), then in the runs root's shared store (:mod:`.explanation_store`); what it computes goes to the
run's checkpoints as soon as it is finished, and into the shared store when the run completes. It counts the
explanations reused and computed for the manifest's ``reuse`` section.

:meth:`Pieces.wrap` puts a :class:`StoredRunner` around an :class:`~hexeval_engine.runtime.parallel.ExplainRunner`:
the technical stage calls it as it calls the runner; a stored call is answered from the store (same objects for
``ready`` and ``explain``, so what was measured early still counts), the others go to the runner (and its helper
process) and are stored as they come back.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..explainers.registry import builtin_specs, enabled_methods
from ..runtime.parallel import ExplainJob, hash_rows_together
from .explanation_store import PieceStore, store_folder, store_secret
from .manifest import library_versions

log = logging.getLogger(__name__)

#: Config sections only later stages read (left out of the technical stage's key).
LATER_SECTIONS = ("personas", "narratives", "recommendations", "output", "source")
#: What the technical stage reads of ``personas``: how many attributions an explanation text shows.
PERSONA_FIELDS_READ = ("top_k_features",)


@lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 of HEXEval's engine source files (their paths and bytes)."""
    engine = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(engine.rglob("*.py")):
        digest.update(path.relative_to(engine).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def technical_settings(config) -> dict:
    """The resolved settings the technical stage, the sanity checks and the held-out scores read."""
    dumped = config.model_dump(mode="json")
    settings = {k: v for k, v in dumped.items() if k not in LATER_SECTIONS}
    settings["evaluation"] = {k: v for k, v in settings["evaluation"].items() if k != "parallel"}
    settings["personas"] = {k: dumped["personas"][k] for k in PERSONA_FIELDS_READ}
    return settings


#: Settings that say which cases are explained or how they are measured, never how one case is explained (the
#: explainers read none of them): left out of a case's key, so a larger sample or another metric setting reuses it.
NOT_PER_CASE = ("sample_size", "explain_unshared", "bootstrap_resamples", "confidence_level", "fidelity", "stability",
                "sanity", "parallel")
#: The same within a method's own explainer settings.
NOT_PER_CASE_EXPLAINER = ("enabled", "max_instances", "stability_test", "stability_subset", "seed_reruns")


def case_settings(config, method: str) -> dict:
    """The settings one case's explanation by ``method`` depends on: the technical settings without those of
    :data:`NOT_PER_CASE`, and of the explainers' sections only ``method``'s own (and the shared ones, such as
    plugins), without :data:`NOT_PER_CASE_EXPLAINER`."""
    settings = technical_settings(config)
    evaluation = {k: v for k, v in settings["evaluation"].items() if k not in NOT_PER_CASE}
    sections = set(type(config.evaluation.explainers).KEYS.values())
    own = type(config.evaluation.explainers).KEYS.get(method)
    evaluation["explainers"] = {
        k: ({n: x for n, x in v.items() if n not in NOT_PER_CASE_EXPLAINER} if k == own else v)
        for k, v in evaluation["explainers"].items() if k == own or k not in sections}
    return {**settings, "evaluation": evaluation}


def data_digest(data) -> str:
    """SHA-256 of the rows and targets the stages read (training and test parts, column names and types)."""
    digest = hashlib.sha256()
    for part in ("X_train", "X_test", "y_train", "y_test"):
        frame = getattr(data, part, None)
        if frame is None:
            digest.update(b"-")
            continue
        digest.update(part.encode() + repr(list(getattr(frame, "columns", [getattr(frame, "name", "")]))).encode())
        digest.update(repr([str(t) for t in np.atleast_1d(getattr(frame, "dtypes", getattr(frame, "dtype", "")))])
                      .encode())
        digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    digest.update(repr((getattr(data, "target", ""), getattr(data, "class_labels", None))).encode())
    return digest.hexdigest()


def model_fingerprint(model) -> dict | None:
    """What identifies ``model`` (or a view of it): its file's hash and every view setting; None when the model has
    no file hash (a model built in memory: nothing is stored for it)."""
    sha = getattr(model, "sha256", "")
    if not sha:
        return None
    estimator = getattr(model, "estimator", None)
    view = {}
    # a class or band view over the wrapped model (an ONNX model is opaque too, but wraps no HexevalModel:
    # its file's hash identifies it)
    if getattr(estimator, "opaque_graph", False) and hasattr(estimator, "model"):
        view = {"type": type(estimator).__name__,
                **{k: plain_data(v) for k, v in vars(estimator).items()
                   if k not in ("model", "classes_", "feature_names_in_")}}
        inner = model_fingerprint(estimator.model)
        view["inner"] = inner
    return {"sha256": sha, "threshold": float(getattr(model, "threshold", 0.5)),
            "class_labels": plain_data(getattr(model, "class_labels", ())),
            "input_codes": plain_data(model.input_codes),
            "class_order": plain_data(getattr(model, "class_order", None)), "view": view}


def digest(obj) -> str:
    """SHA-256 of ``obj`` as canonical JSON."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def built_in_methods() -> set[str]:
    """HEXEval's own methods: the only ones whose explanations are stored (a plugin's code is not in the keys)."""
    return {spec.name for spec in builtin_specs()}


def open_pieces(working, root, model, data) -> "Pieces":
    """The pieces of one evaluation: its working folder's checkpoints (``working``: a
    :class:`~hexeval_engine.runs.resumable.WorkingFolder`, or None for a run that is not saved) and the shared store
    of the runs root ``root`` (None: no reuse across runs)."""
    if root is None and working is None:
        return Pieces(None, None, model, data)
    try:
        secret = store_secret()
    except OSError as err:  # no signing key: nothing stored could be trusted, so nothing is stored
        log.warning("Finished pieces are not kept or reused: the run-signing key cannot be read (%s).", err)
        return Pieces(None, None, model, data)
    own = PieceStore(working.pieces, secret) if working is not None else None
    shared = PieceStore(store_folder(root), secret) if root is not None else None
    return Pieces(own, shared, model, data, run_id=working.run_id if working is not None else "")


class Pieces:
    """Where one evaluation looks pieces up and keeps them, and how many explanations it reused and computed.

    Parameters
    ----------
    own : PieceStore or None
        The run's checkpoints (``None``: the run is not saved, nothing is checkpointed).
    shared : PieceStore or None
        The runs root's shared store (``None``: no reuse across runs).
    model, data
        The run's model and data (their fingerprints enter every key).
    """

    def __init__(self, own: PieceStore | None, shared: PieceStore | None, model, data, *, run_id: str = ""):
        self.own, self.shared, self.run_id = own, shared, run_id
        fingerprint = model_fingerprint(model)
        self.enabled = fingerprint is not None and (own is not None or shared is not None)
        self.base = {"model": fingerprint, "data": data_digest(data) if self.enabled else "",
                     "versions": library_versions(), "code": code_digest()} if self.enabled else {}
        self._prefix: bytes | None = None  # self.base as canonical JSON (key)
        self.reused = self.computed = 0
        self.metrics_reused = 0  # metric frames answered from the store
        self.checks_reused = 0  # the randomisation check's re-fit and re-explanations answered from the store
        self.reused_from: set[str] = set()
        self._named: dict[int, tuple[str, object]] = {}  # id(explanation) -> (its key, the explanation)
        self.stage_reused = False
        self.source = ""  # the run whose technical stage was reused

    def key(self, kind: str, **parts) -> str:
        """SHA-256 of what determines a piece: this evaluation's model, data, library versions and code (written out
        once per evaluation: a model's codes make them most of a key's text, and a run works out hundreds of keys),
        then ``kind`` and ``parts`` as canonical JSON."""
        if self._prefix is None:
            self._prefix = (json.dumps(self.base, sort_keys=True, default=str) + "\n").encode("utf-8")
        overlap = set(parts) & set(self.base)
        if overlap:
            raise ValueError(f"a piece's parts cannot be named {sorted(overlap)}: those name the evaluation's inputs")
        text = json.dumps({"kind": kind, **parts}, sort_keys=True, default=str)
        return hashlib.sha256(self._prefix + text.encode("utf-8")).hexdigest()

    def get(self, key: str):
        """The piece under ``key`` from the run's checkpoints, else the shared store (None when neither has it)."""
        if not self.enabled:
            return None
        for store in (self.own, self.shared):
            if store is not None:
                piece = store.get(key)
                if piece is not None:
                    return piece
        return None

    def put(self, key: str, piece) -> None:
        """Keep a finished piece: in the run's checkpoints (moved to the shared store when the run completes), or,
        for a run that is not saved, directly in the shared store."""
        if not self.enabled:
            return
        store = self.own if self.own is not None else self.shared
        if store is not None:
            store.put(key, piece)

    def name(self, key: str, explanation) -> None:
        """Record that ``explanation`` (this object: an explanation or a metric frame) is the piece under ``key``."""
        self._named[id(explanation)] = (key, explanation)

    def measured_key(self, kind: str, config, model, explanations, copies: tuple = ()) -> str | None:
        """Key of metrics computed by ``model`` and ``config`` from ``explanations`` and the noisy copies and
        re-runs in ``copies`` (dicts ``{(method, ...): [explanation, ...]}``); None when the store is off or any
        of them is not a stored piece (explained elsewhere: a class view's mapped copy, a plugin's)."""
        view = model_fingerprint(model) if self.enabled else None
        if view is None:
            return None
        names = self._names(explanations)
        groups = []
        for copy in copies:
            groups.append([[repr(k), self._names(v)] for k, v in copy.items()])
        if names is None or any(n is None for group in groups for _, n in group):
            return None
        return self.key(kind, settings=technical_settings(config), view=view, explanations=names, copies=groups)

    def settings_key(self, kind: str, config, **parts) -> str:
        """Key of what ``config``'s technical settings and ``parts`` (made plain data: numpy numbers as numbers, tuples
        as lists) determine."""
        return self.key(kind, settings=technical_settings(config), **plain_data(parts))

    def frames_key(self, kind: str, config, frames, **parts) -> str | None:
        """Key of what is computed by ``config`` from ``frames`` (each a stored piece, :meth:`name`) and ``parts``;
        None when the store is off or any frame is not a stored piece."""
        names = self._names(frames) if self.enabled else None
        if names is None:
            return None
        return self.key(kind, settings=technical_settings(config), frames=names, **parts)

    def _names(self, explanations) -> list[str] | None:
        out = []
        for e in explanations:
            named = self._named.get(id(e))
            if named is None or named[1] is not e:
                return None
            out.append(named[0])
        return out

    def stage_key(self, config) -> str | None:
        """Key of the technical stage's whole result (with the sanity checks and held-out scores); None when a
        plugin explainer runs (its code is outside what the key covers, so its results are never stored)."""
        if not set(enabled_methods(config)) <= built_in_methods():
            return None
        return self.key("technical-stage", settings=technical_settings(config))

    def reuse_stage(self, stored: dict, progress) -> tuple:
        """``(technical, sanity, warnings, performance)`` of a stored technical stage, counted as reused."""
        technical, sanity, warnings, performance = stored["value"]
        self.stage_reused, self.source = True, str(stored.get("run_id", ""))
        self.reused += len(technical.explanations)
        progress(60, 100, f"Technical: reused {len(technical.explanations)} explanations and their metrics"
                 + (f" from run {self.source}" if self.source else ""))
        return technical, sanity, list(warnings), performance

    def keep_stage(self, key: str, value: tuple) -> None:
        """Keep the technical stage's result (with the checks and scores) for later runs."""
        self.put(key, {"run_id": self.run_id, "value": value})

    def finish(self, working, *, run_id: str) -> None:
        """The run is complete: its checkpoints join the shared store (pruned to its limit), its working folder goes."""
        if working is None:
            return
        if self.own is not None and self.shared is not None:
            self.own.move_into(self.shared)
            self.shared.prune()
        working.remove()

    def wrap(self, runner) -> "StoredRunner | object":
        """``runner`` answering stored explanation calls from the store (``runner`` itself when disabled)."""
        return StoredRunner(runner, self) if self.enabled else runner

    @property
    def rejected(self) -> int:
        return sum(s.rejected for s in (self.own, self.shared) if s is not None)

    def summary(self) -> dict:
        """The manifest's ``reuse`` section."""
        return {"explanations_reused": int(self.reused), "explanations_computed": int(self.computed),
                "technical_stage_reused": bool(self.stage_reused), "metric_sets_reused": int(self.metrics_reused),
                "sanity_work_reused": int(self.checks_reused),
                "reused_from": self.source,
                "damaged_entries_ignored": int(self.rejected), "store": "on" if self.enabled else "off"}


class StoredRunner:
    """An :class:`~hexeval_engine.runtime.parallel.ExplainRunner` whose stored explanations are answered from the
    store, case by case; every other attribute is the runner's.

    Each case's explanation by a method is one piece (its key: the method, view and settings, whether texts are
    rendered, and the case's id, seed, row values, class and probability). A call asks the runner only for the
    cases not stored, as one call (LIME's in chunks of :data:`CHUNK`, as the helper takes them, so a chunk is kept
    as soon as it is complete); ``ready`` and ``explain`` give the same objects for the same call.
    """

    def __init__(self, runner, pieces: Pieces):
        self._runner, self._pieces = runner, pieces
        self._answers: dict[str, object] = {}  # case key -> explanation (the same object for ready() and explain())
        self._from_store: set[str] = set()  # case keys answered from the store (the runner never saw them)
        self._announced: list[tuple[list[str], ExplainJob]] = []  # chunks the runner was told of, not kept yet
        self._settings: dict[str, str] = {}  # method -> digest of case_settings
        self._keys_of: dict[int, tuple] = {}  # id(job) -> (job, its case keys)
        self._view = model_fingerprint(runner.model)
        self._built_in = built_in_methods()

    def __getattr__(self, name):
        return getattr(self._runner, name)

    def _case_keys(self, job: ExplainJob) -> list[str]:
        """Each case's piece key (worked out once per job: the technical stage plans, looks up and keeps the same
        job several times, and hashing its rows is most of the cost; a job's rows are not changed after it is
        made)."""
        known = self._keys_of.get(id(job))
        if known is None or known[0] is not job:
            known = self._keys_of[id(job)] = (job, self._work_out_keys(job))  # the job kept: its id is not reused
        return known[1]

    def _work_out_keys(self, job: ExplainJob) -> list[str]:
        rows = job.row_hashes()
        if job.method not in self._settings:
            self._settings[job.method] = digest(case_settings(self._runner.config, job.method))
        call = digest({"view": self._view, "settings": self._settings[job.method], "method": job.method,
                       "render": bool(job.render), "columns": [str(c) for c in job.X_raw.columns]})
        classes = np.asarray(job.classes).tolist()
        probabilities = np.asarray(job.probabilities, dtype=float)
        return [self._pieces.key("explanation", call=call, id=int(i), seed=int(s), row=int(r), cls=c,
                                 probability=float(p).hex())
                for i, s, r, c, p in zip(job.ids, job.seeds, rows, classes, probabilities)]

    def _lookup(self, keys: list[str], render: bool) -> list[int]:
        """Positions of ``keys`` not answered from the store (each case is looked up once)."""
        missing = []
        for k, key in enumerate(keys):
            if key not in self._answers:
                piece = self._pieces.get(key)
                if piece is not None:
                    self._answers[key] = piece
                    self._pieces.name(key, piece)
                    self._from_store.add(key)
                    self._pieces.reused += 1 if render else 0  # counted: the cases' explanations, not noisy copies
            if key not in self._from_store:
                missing.append(k)
        return missing

    def _keep(self, keys: list[str], explanations: list, render: bool) -> list:
        out = []
        for key, explanation in zip(keys, explanations):
            if key not in self._answers:
                self._answers[key] = explanation
                self._pieces.name(key, explanation)
                self._pieces.computed += 1 if render else 0
                self._pieces.put(key, explanation)
            out.append(self._answers[key])
        return out

    def _plan(self, job: ExplainJob) -> tuple[list[str], list[tuple[list[str], ExplainJob]]]:
        """The job's case keys and the chunks of its cases not stored (with their keys); a plugin's job whole,
        never stored."""
        if job.method not in self._built_in:
            return [], [([], job)]
        keys = self._case_keys(job)
        missing = self._lookup(keys, job.render)
        if not missing:
            return keys, []
        todo = job if len(missing) == len(keys) else job.cut(missing)
        todo_keys = [keys[k] for k in missing]
        out, start = [], 0
        for chunk in chunks(todo):
            out.append((todo_keys[start:start + len(chunk.ids)], chunk))
            start += len(chunk.ids)
        return keys, out

    def _harvest(self) -> None:
        """Keep every announced chunk that is complete by now, wherever it ran (the helper's answers are taken in
        without waiting), so an interruption loses none of them."""
        left = []
        for keys, chunk in self._announced:
            if not keys or all(key in self._answers for key in keys):  # a plugin's job is never stored
                continue
            answer = self._runner.ready(chunk)
            if answer is None:
                left.append((keys, chunk))
            else:
                self._keep(keys, answer, chunk.render)
        self._announced = left

    def prefetch(self, jobs: list, *, first: tuple = ()) -> list:
        """Announce only the cases not stored (the stored ones are answered from the store when asked for); when
        some are stored, the runner judges whether to use its helper by the whole run (``whole_run``)."""
        hash_rows_together(jobs)
        planned = [self._plan(job) for job in jobs]
        self._announced = [item for _, todo in planned for item in todo]
        stored = any(len(keys) > sum(len(k) for k, _ in todo) for keys, todo in planned)
        return self._runner.prefetch([chunk for _, chunk in self._announced], first=first, whole_run=stored)

    def work_ahead(self, *, on_instance=None, charge=None, meanwhile=None, idle=None) -> None:
        """The runner's ``work_ahead``; each time it reports a case or calls back in between, the chunks complete
        by then are kept. ``idle``: as the runner's."""
        def step(job):
            self._harvest()
            if on_instance is not None:
                on_instance(job)

        def between():
            self._harvest()
            if meanwhile is not None:
                meanwhile()

        self._runner.work_ahead(on_instance=step, charge=charge, meanwhile=between, idle=idle)

    def ready(self, job: ExplainJob) -> list | None:
        """The job's explanations if every case is stored or complete (as the runner's ``ready``), else None."""
        if job.method not in self._built_in:
            return self._runner.ready(job)
        keys, todo = self._plan(job)
        for chunk_keys, chunk in todo:
            if all(key in self._answers for key in chunk_keys):
                continue
            answer = self._runner.ready(chunk)
            if answer is None:
                return None
            self._keep(chunk_keys, answer, chunk.render)
        return [self._answers[key] for key in keys]

    def explain(self, method: str, X_raw, instance_ids, classes, probabilities, seeds, *, on_instance=None,
                render: bool = True) -> list:
        """As the runner's ``explain``: stored cases from the store, the others from the runner (which returns the
        objects its ``ready`` gave, and reports their progress)."""
        if len(instance_ids) == 0:
            return []
        if method not in self._built_in:
            return self._runner.explain(method, X_raw, instance_ids, classes, probabilities, seeds,
                                        on_instance=on_instance, render=render)
        job = ExplainJob(method, X_raw, list(instance_ids), np.asarray(classes), np.asarray(probabilities),
                         list(seeds), render)
        keys, todo = self._plan(job)
        for chunk_keys, chunk in todo:
            self._keep(chunk_keys, self._runner.explain_job(chunk, on_instance=on_instance), render)
        if on_instance is not None:
            for _ in range(len(keys) - sum(len(k) for k, _ in todo)):
                on_instance()
        return [self._answers[key] for key in keys]


#: Cases per chunk of a method's call the runner is asked for. LIME's cases are explained one by one (the helper
#: process takes them in chunks of 25 too), so a chunk is kept as soon as it is complete; Anchor and DiCE pool their
#: model calls over a whole call, and SHAP and Random are explained in one batch, so theirs stay whole.
CHUNK = {"LIME": 25}


def chunks(job: ExplainJob) -> list[ExplainJob]:
    """``job`` split into the chunks asked for separately (each case's explanation depends on its own seed only,
    never on the other cases of its call, so chunks explain exactly what the whole call would)."""
    size = CHUNK.get(job.method)
    if size is None or len(job.ids) <= size:
        return [job]
    return [job.cut(range(a, min(a + size, len(job.ids)))) for a in range(0, len(job.ids), size)]


def plain_data(value):
    """``value`` as JSON-friendly data (arrays and tuples as lists, numpy scalars as numbers)."""
    if isinstance(value, dict):
        return {str(k): plain_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_data(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)
