"""``evaluate``: the whole pipeline — load, validate, explain & measure, rate, recommend, save.

The dashboard, the CLI and Python users all call this one function.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pandas as pd

from .config import HexevalConfig
from .inputs import load_inputs
from .runtime.helper_pool import start_helper
from .runtime.parallel import helper_worth
from .runtime.blas_threads import one_blas_thread
from .models.model_loading import file_sha256
from .models.model_performance import held_out_performance
from .llm.failures import failure_warning
from .narratives import narrative_summary, narrative_tools, run_narratives
from .narratives.run import audiences_for
from .paths import configured_outputs_root
from .progress import StageClock, report, sub_progress
from .raters import rater_from_config
from .raters.run import configured_personas, run_persona_evaluation
from .recommend.recommender import generate_recommendations, technical_evidence_of
from .runs.checkpoints import open_pieces
from .runs.extend import amend_with_extension, extension_inputs
from .runs.folders import check_output_root
from .runs.inputs import copies_for
from .runs.manifest import build_manifest
from .runs.record import add_evaluation_sections, save_evaluation
from .runs.resumable import WorkingFolder
from .runs.store import new_run_id
from .runtime.gc_freeze import old_objects_frozen
from .explainers.plugin_warnings import plugin_warnings
from .technical.run import run_technical_evaluation
from .technical.sanity import run_sanity_checks

log = logging.getLogger(__name__)


@dataclass
class EvaluationResult:
    """What ``evaluate`` returns. Also indexable like the original HEXEval result dict."""

    run_id: str
    usecase: str
    config: HexevalConfig
    technical: object  # TechnicalResult
    persona_ratings: pd.DataFrame | None
    persona_stats: dict
    recommendations: dict
    validation: dict
    manifest: dict
    output_path: Path | None = None
    warnings: list[dict] = field(default_factory=list)
    sanity: dict = field(default_factory=dict)
    narratives: pd.DataFrame | None = None  # one row per narrative (hexeval_engine.narratives.COLUMNS)
    data: object = field(default=None, repr=False)
    model: object = field(default=None, repr=False)
    narrative_extractions: pd.DataFrame | None = None  # what was checked in each narrative (narratives.csv's sibling)

    @property
    def technical_metrics(self) -> pd.DataFrame:
        return self.technical.metrics

    def __getitem__(self, key: str):
        legacy = {"technical_metrics": self.technical_metrics, "persona_ratings": self.persona_ratings,
                  "recommendations": self.recommendations.get("stakeholders", {}), "output_path": self.output_path}
        return legacy[key]


@old_objects_frozen()  # the collector's full passes skip what was alive before the run (runtime.gc_freeze)
def evaluate(
    model_path=None,
    data_path=None,
    target_column: str | None = None,
    config_path=None,
    output_dir=None,
    config_overrides: dict | None = None,
    *,
    usecase: str | None = None,
    rater=None,
    on_progress=None,
    allow_pickle: bool = False,
    save: bool = True,
    api_key: str | None = None,
    operator_key: bool = False,
    allowed_urls: str | None = None,
    run_name: str | None = None,
    keep_inputs: bool = False,
    resume: str | None = None,
    reuse: bool | None = None,
) -> EvaluationResult:
    """Run a complete HEXEval evaluation and save it as a run folder.

    Parameters
    ----------
    model_path, data_path : path, optional
        The model file and CSV. Omit both and pass ``usecase`` for a bundled use case.
    target_column : str, optional
        Target column of the CSV (default: the config's ``data.target`` or the use case's).
    config_path : path, optional
        Evaluation config YAML (default: the use case's config, or built-in defaults). With ``usecase`` it
        overlays the use case's config: the keys it leaves out keep the use case's values.
    output_dir : path, optional
        Runs root; the run goes to ``output_dir/<use-case>/<run-id>/`` (default ``outputs/``).
    config_overrides : dict, optional
        Nested overrides merged over the config, e.g. ``{"evaluation": {"sample_size": 20}}``.
    usecase : str, optional
        A bundled use case name (``heart``, ``credit_risk``).
    rater : str or rater object, optional
        ``"simulated"``, ``"openai"`` or an object from ``make_rater``; default from ``personas.rater``.
    on_progress : callable, optional
        ``on_progress(done, total, message)`` with ``total == 100``.
    allow_pickle : bool
        Let ``model_path`` be a pickle/joblib file (only for the operator's own files).
    save : bool
        Write the run folder (default). ``False`` keeps everything in memory.
    api_key : str, optional
        LLM API key (the dashboard passes ``st.secrets`` here); default ``OPENAI_API_KEY`` / ``.env``.
        Never saved.
    operator_key : bool
        ``api_key`` is the operator's own (the dashboard's ``st.secrets``), not one a user typed in:
        like ``OPENAI_API_KEY`` it goes only to OpenAI or the ``HEXEVAL_LLM_BASE_URLS`` allow-list,
        whatever base URL a config names (``personas.base_url``, ``narratives.base_url``).
    allowed_urls : str, optional
        Extra allow-list entries for the operator's key (the dashboard's ``st.secrets`` value).
    run_name : str, optional
        For your own model and CSV: the name runs are filed under (``outputs/custom-<name>/``);
        default the CSV's file name.
    keep_inputs : bool
        Copy the model file and the CSV into the run folder (the dashboard does for uploads, whose
        temporary files disappear), so the run can be reopened and explored later.
    resume : str, optional
        The id of an interrupted run (``hexeval runs list`` shows them as resumable) under ``output_dir``:
        it is continued with the inputs and settings it was started with (the inputs arguments above are
        then ignored; a pickle model needs ``allow_pickle`` again), reusing every piece it had finished; its
        tables are those an uninterrupted run gives.
    reuse : bool, optional
        Look finished pieces up in the runs root's store (``<output>/.store``) and keep this run's pieces there
        (default: when the run is saved). Results are identical either way (see :mod:`hexeval_engine.runs.checkpoints`).
    """
    progress = report(on_progress)
    clock = StageClock()
    working = None
    if resume is not None:  # the interrupted run's own inputs and settings, its id and its finished pieces
        working = WorkingFolder.reopen(Path(output_dir) if output_dir else configured_outputs_root("outputs"), resume)
        given = working.state["arguments"]
        model_path, data_path, target_column = given.get("model_path"), given.get("data_path"), given.get("target_column")
        config_path, config_overrides, usecase = given.get("config_path"), given.get("config_overrides"), given.get("usecase")
        # a pickle model is loaded again only if the run was allowed to load it and this caller allows it now
        allow_pickle = allow_pickle and bool(given.get("allow_pickle"))
        run_name, keep_inputs = given.get("run_name"), bool(given.get("keep_inputs"))
        rater = rater if rater is not None else given.get("rater")
        output_dir = working.path.parent.parent
    slot = _Slot(working)
    try:
        return _evaluate(model_path, data_path, target_column, config_path, output_dir, config_overrides,
                         usecase=usecase, rater=rater, progress=progress, clock=clock, allow_pickle=allow_pickle,
                         save=save, api_key=api_key, operator_key=operator_key, allowed_urls=allowed_urls,
                         run_name=run_name, keep_inputs=keep_inputs, slot=slot, reuse=reuse)
    except BaseException as err:  # Ctrl-C, Stop, a killed helper, an LLM outage: what is finished stays resumable
        _keep_resumable(slot.folder, err)
        raise
    finally:
        if slot.folder is not None:
            slot.folder.release()


@dataclass
class _Slot:
    """The run's working folder once there is one (a resumed run's from the start)."""

    folder: WorkingFolder | None = None


def _keep_resumable(folder: WorkingFolder | None, err: BaseException) -> None:
    """A run that stopped: keep its working folder if it got past loading (``err.resumable_run`` names it for the
    caller's message), else remove it (nothing to resume)."""
    if folder is None:
        return
    if folder.state.get("stage") == "load" and not any(folder.pieces.glob("*.piece")):
        folder.remove()
        return
    try:
        err.resumable_run = folder.run_id
    except AttributeError:  # an exception type without instance attributes: the listing still shows the run
        pass


def _evaluate(model_path, data_path, target_column, config_path, output_dir, config_overrides, *, usecase, rater,
              progress, clock, allow_pickle, save, api_key, operator_key, allowed_urls, run_name, keep_inputs,
              slot, reuse) -> EvaluationResult:
    """:func:`evaluate`'s stages; ``slot.folder``: the working folder of a resumed run (else one is made here)."""
    arguments = {"model_path": _text(model_path), "data_path": _text(data_path), "target_column": target_column,
                 "config_path": _text(config_path), "config_overrides": config_overrides, "usecase": usecase,
                 "rater": rater if isinstance(rater, str) else None, "allow_pickle": allow_pickle,
                 "run_name": run_name, "keep_inputs": keep_inputs}
    progress(0, 100, "Loading data and model")
    inputs = load_inputs(model_path, data_path, target_column, config_path, config_overrides, usecase=usecase,
                         allow_pickle=allow_pickle, clock=clock).checked()  # the same check as `hexeval validate`
    uc, config, data, model, model_path, data_path = (inputs.usecase, inputs.config, inputs.data, inputs.model,
                                                      inputs.model_path, inputs.data_path)
    validation = inputs.validation
    if helper_worth(config, columns=len(data.feature_names)):  # backend auto, 2 cores, enough work: the helper's start overlaps this process's work
        start_helper(background=True)  # a no-op when it already runs
    outputs_root = Path(output_dir) if output_dir else configured_outputs_root(config.output.dir)
    if save:  # an unwritable output folder fails now, before the explainers and the LLM run (issue 14)
        check_output_root(outputs_root)
    # Persona file and rater problems (no file, no API key) fail now, not after the technical stage.
    # The persona file is read once here: the narratives, the ratings and the recommendations use these personas.
    personas, rater_obj, created, rater_info = _persona_rater(rater, config, outputs_root, api_key, operator_key,
                                                              allowed_urls)
    name = uc.name if uc else _custom_name(run_name or Path(str(data_path)).stem)
    if save and slot.folder is None:  # kept if the run is interrupted: `hexeval evaluate --resume RUN` continues it
        slot.folder = WorkingFolder.create(outputs_root, name, new_run_id(), arguments)
    working = slot.folder
    pieces = open_pieces(working, outputs_root if (save if reuse is None else reuse) else None, model, data)
    ratings, stats, narration, narratives = None, {}, None, None
    try:
        if config.narratives.enabled:  # a missing key or a switched-off source fails now, before the technical stage
            narration = narrative_tools(config, data, api_key=api_key, cache_dir=outputs_root,
                                        operator_key=operator_key, allowed_urls=allowed_urls)
        technical, sanity, warnings, performance, narratives, evidence = _measured(
            model, data, config, narration, personas, pieces, working, clock, progress)
        warnings += plugin_warnings(config, technical.metrics)  # plugins left out or failed, with the fix
        if narratives is not None:
            technical.explanations += narratives.explanations  # they join the explanations personas rate
            warnings += _failures("narratives", narratives.table["error"] if len(narratives.table) else [])
        if rater_obj is not None:
            _mark(working, "personas")
            with clock("personas"):
                ratings = run_persona_evaluation(model, data, technical, config, rater=rater_obj, personas=personas,
                                                 on_progress=sub_progress(progress, 65, 30, 100, "Personas"))
                stats = dict(ratings.attrs.get("stats", {}))
                warnings += _failures("personas",
                                      ratings["error"] if getattr(rater_obj, "kind", "") == "openai" else [])
    finally:
        if created:
            rater_obj.close()
        if narration is not None:
            narration.close()
    _mark(working, "recommendations")
    with clock("recommendations"):
        recommendations = _recommend(technical, ratings, config, personas, warnings=warnings, narratives=narratives,
                                     rater_kind=rater_info.get("kind"), pieces=pieces, evidence=evidence)
    timings = clock.finish()

    copies = copies_for(model_path, data_path) if keep_inputs else {}
    manifest = build_manifest(
        run_id=working.run_id if working is not None else new_run_id(), usecase=name,
        usecase_title=uc.title if uc else _custom_title(run_name, model_path, data_path),
        config=config, data=data, data_sha256=_sha(data_path), model=model, validation=validation,
        technical=technical, ratings=ratings, persona_stats=stats, rater=rater_info, timings=timings,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    add_evaluation_sections(manifest, warnings=warnings, sanity=sanity, narratives=narratives,
                            performance=performance, copies=copies)
    manifest["reuse"] = pieces.summary()
    result = EvaluationResult(manifest["run_id"], name, config, technical, ratings, stats, recommendations, validation,
                              manifest, warnings=warnings, sanity=sanity,
                              narratives=narratives.table if narratives is not None else None, data=data, model=model,
                              narrative_extractions=narratives.extractions if narratives is not None else None)
    if save:
        _mark(working, "saving")
        progress(96, 100, "Saving the run")
        result.output_path = save_evaluation(outputs_root, name, manifest=manifest, technical=technical,
                                             ratings=ratings, narratives=narratives, recommendations=recommendations,
                                             save_explanations=config.output.save_explanations, copies=copies)
        result.run_id = manifest["run_id"]
    pieces.finish(working, run_id=manifest["run_id"])  # its pieces serve later runs; the working folder goes
    progress(100, 100, "Done")
    return result


def extend_run(run_dir, *, rater: str | None = None, llm_model: str | None = None, llm_base_url: str | None = None,
               personas=None, narratives: bool | None = None, methods=None, sample_size: int | None = None,
               on_progress=None, api_key: str | None = None, operator_key: bool = False,
               allowed_urls: str | None = None, allow_pickle: bool = False) -> dict:
    """Add LLM ratings, personas, narratives, methods or cases to a saved run (``hexeval runs extend``).

    The run's model and data are evaluated again with its settings plus the additions; what did not change is
    reused from the explanation store, so only what depends on the additions is computed (the ratings, narratives
    or new explanations, and the recommendations). The files that changed are written into the run as an amendment
    (the tamper check reads them as HEXEval's own) and their earlier versions, the earlier recommendations among
    them, are kept in ``extensions/<n>/`` (see :mod:`hexeval_engine.runs.extend`).

    Parameters
    ----------
    run_dir : path
        The saved run's folder.
    rater, llm_model, llm_base_url : str, optional
        Rate with this rater (``"openai"``: this model and server).
    personas : path, optional
        Have the personas of this file rate.
    narratives : bool, optional
        Also tell the source explanations as narratives.
    methods : list of str, optional
        Methods to add (``SHAP``, ``LIME``, ``Anchor``, ``DiCE``).
    sample_size : int, optional
        A larger number of cases.
    on_progress, api_key, operator_key, allowed_urls
        As for :func:`evaluate`.
    allow_pickle : bool
        The run's model is a pickle/joblib file and may be loaded (the operator's own files; the dashboard passes
        whether pickle uploads are switched on).

    Returns
    -------
    dict
        ``run_id``, ``what`` (the additions in words), ``reuse`` (explanations reused and computed), ``changed``
        (files added or replaced), ``kept`` (where their earlier versions are), ``recommendation_changes``
        (``{role: (before, after)}``), ``technical_metrics`` and ``recommendations`` (now).
    """
    arguments, words = extension_inputs(run_dir, rater=rater, llm_model=llm_model, llm_base_url=llm_base_url,
                                        personas=personas, narratives=narratives, methods=methods,
                                        sample_size=sample_size)
    result = evaluate(**arguments, on_progress=on_progress, api_key=api_key, operator_key=operator_key,
                      allowed_urls=allowed_urls, allow_pickle=allow_pickle)
    outcome = amend_with_extension(run_dir, result, words=words)
    return {**outcome, "run_id": Path(run_dir).name, "reuse": result.manifest.get("reuse", {}),
            "technical_metrics": result.technical_metrics, "recommendations": result.recommendations}


def _measured(model, data, config: HexevalConfig, narration, personas, pieces, working, clock, progress):
    """The technical stage, the narratives, the held-out scores and the sanity checks: ``(technical, sanity,
    warnings, performance, narratives, evidence)``. With the same model, data and settings as a stored run, its
    technical stage, checks and scores are reused as computed then (only the narratives are told again).

    ``evidence``: what the recommendations read of the technical stage alone (:func:`_recommendation_evidence`),
    computed before the sanity checks, which wait for the helper process's last re-explanations, so that this
    process computes it meanwhile instead of after them (``None`` when the stage was reused or recommendations are
    off: read when the recommendations are made)."""
    stage_key = pieces.stage_key(config) if pieces.enabled else None
    stored = pieces.get(stage_key) if stage_key else None
    narratives = None
    if stored is not None:
        technical, sanity, warnings, performance = pieces.reuse_stage(stored, progress)
        if narration is not None:
            with clock("narratives"):
                narratives = _narrate(data, technical, config, narration, personas, pieces)
        return technical, sanity, warnings, performance, narratives, None
    evidence = None
    with one_blas_thread():  # idle BLAS workers only spin on these small products; same results
        with clock("technical"):
            _mark(working, "technical")
            technical = run_technical_evaluation(model, data, config, pieces=pieces,
                                                 on_progress=sub_progress(progress, 5, 55, 100, "Technical"))
        # Told before the sanity checks, which read only the source explanations: the randomisation check
        # waits for the helper process's last re-explanations, and the recommendations' evidence, the narratives
        # and the held-out scores are work the main process does meanwhile instead of after it (their results are
        # the same).
        if config.recommendations.enabled:
            with clock("recommendations"):
                evidence = _recommendation_evidence(technical, config, pieces)
        if narration is not None:
            with clock("narratives"):
                narratives = _narrate(data, technical, config, narration, personas, pieces)
        performance = held_out_performance(model, data)
        with clock("sanity_checks"):
            _mark(working, "sanity_checks")
            progress(60, 100, "Sanity checks: model signal and randomised model")
            sanity, warnings = run_sanity_checks(model, data, config, technical)
    if stage_key:
        pieces.keep_stage(stage_key, (technical, sanity, warnings, performance))
    return technical, sanity, warnings, performance, narratives, evidence


def _mark(working, stage: str) -> None:
    """Record in the working folder the stage the run reached (an interrupted run is listed with it)."""
    if working is not None:
        working.mark(stage)


def _text(path) -> str | None:
    return str(path) if path is not None else None



def _narrate(data, technical, config: HexevalConfig, narration, personas: list, pieces):
    """Tell the source explanations as narratives (the caller adds them to the explanations personas rate).

    Told by the offline narrator and read back by the offline extractor, they are a function of the technical
    stage's result and the narrative settings: kept under a key of both (and the audiences), so a later run of the
    same stage (another persona file with the same audiences, another rater) or a resumed run takes them as they were
    told (with their recorded seconds). An LLM's narratives are not kept here: its answers have their own cache."""
    audiences = [p.audience for p in personas]
    key = _narratives_key(pieces, config, narration, audiences)
    stored = pieces.get(key) if key is not None else None
    if stored is not None:
        return stored
    narratives = run_narratives(data, technical, config, tools=narration, persona_audiences=audiences)
    if key is not None:
        pieces.put(key, narratives)
    return narratives


def _narratives_key(pieces, config: HexevalConfig, narration, audiences: list) -> str | None:
    """Key of the narratives of this technical stage, settings and audiences; None when they are not kept (the store
    is off, an LLM narrates or reads back, or a plugin explainer runs)."""
    if not pieces.enabled or not narration.offline:
        return None
    stage = pieces.stage_key(config)
    if stage is None:
        return None
    return pieces.key("narratives", stage=stage, narratives=config.narratives.model_dump(mode="json"),
                      sample_instances=config.personas.sample_instances,
                      audiences=audiences_for(config, audiences))  # those written for, not the personas


def _recommend(technical, ratings, config: HexevalConfig, personas: list, *, warnings, narratives,
               rater_kind, pieces, evidence=None) -> dict:
    """Recommendations per stakeholder, or the note that they were switched off; ``evidence``: what they read of the
    technical stage alone, when already computed (else :func:`_recommendation_evidence` here)."""
    if not config.recommendations.enabled:
        return {"mode": "disabled", "stakeholders": {}, "warnings": warnings,
                "notes": ["Recommendations were switched off for this run (recommendations.enabled: false)."]}
    told = ({"source": config.narratives.source, "summary": narrative_summary(narratives.table, config)}
            if narratives is not None else None)
    weights = {p.name: p.weights() for p in personas} if personas else None
    questions = {p.name: {"role": p.role, "weights": p.question_weights(), "declared": p.questions is not None,
                          "reason": p.questions.reason if p.questions is not None else ""} for p in personas}
    if evidence is None:
        evidence = _recommendation_evidence(technical, config, pieces)
    return generate_recommendations(technical.metrics, ratings, config, per_instance=technical.per_instance,
                                    warnings=warnings, rater_kind=rater_kind, narratives=told,
                                    persona_weights=weights, persona_questions=questions or None,
                                    technical_evidence=evidence)


def _recommendation_evidence(technical, config: HexevalConfig, pieces):
    """What the recommendations read of the technical stage alone (:func:`~.recommend.recommender.technical_evidence_of`:
    the per-question tables, gates against Random, constraint findings). It is kept under the stage's key and the
    recommendation settings, so a later run of the same stage (another persona file or rater) takes it as computed."""
    stage = pieces.stage_key(config) if pieces.enabled else None
    key = (pieces.key("recommendation-evidence", stage=stage, recommendations=config.recommendations.model_dump(
        mode="json")) if stage is not None else None)
    evidence = pieces.get(key) if key is not None else None
    if evidence is None:
        evidence = technical_evidence_of(technical.metrics, technical.per_instance, config)
        if key is not None:
            pieces.put(key, evidence)
    return evidence


def _persona_rater(rater, config: HexevalConfig, outputs_root: Path, api_key: str | None, operator_key: bool,
                   allowed_urls: str | None):
    """(personas, rater or None, created here, rater record for the manifest); personas switched off: no personas
    and no rater."""
    if not config.personas.enabled:
        return [], None, False, {"kind": "none"}
    personas = configured_personas(config)  # a missing or invalid persona file fails here
    rater_obj, created = _resolve_rater(rater, config, outputs_root, api_key, operator_key, allowed_urls)
    return personas, rater_obj, created, _rater_info(rater_obj, config)


def _resolve_rater(rater, config: HexevalConfig, outputs_root: Path, api_key: str | None, operator_key: bool = False,
                   allowed_urls: str | None = None):
    """(rater, created_here): a rater object passed in is used as is and not closed by us."""
    if rater is not None and not isinstance(rater, str):
        return rater, False
    if isinstance(rater, str):  # unchecked copy: rater_from_config rejects an unknown kind
        config = config.model_copy(update={"personas": config.personas.model_copy(update={"rater": rater})})
    return rater_from_config(config, api_key=api_key, cache_dir=outputs_root, operator_key=operator_key,
                             allowed_urls=allowed_urls), True


def _rater_info(rater_obj, config: HexevalConfig) -> dict:
    info = {"kind": getattr(rater_obj, "kind", type(rater_obj).__name__),
            "model": getattr(rater_obj, "model", "")}
    base_url = getattr(rater_obj, "base_url", None)
    if base_url:
        info["base_url"] = _strip_credentials(str(base_url))
    info["show_method_names"] = config.personas.show_method_names
    return info


def _failures(stage: str, errors) -> list[dict]:
    """The stage's failure warning (how many LLM answers failed and why) as a list of zero or one."""
    warning = failure_warning(stage, list(errors))
    return [warning] if warning else []


def _strip_credentials(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))



def _custom_name(name: str) -> str:
    """``custom-<name>`` in lower-case letters, digits and dashes (a folder name on every system)."""
    return "custom-" + (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60] or "data")


def _custom_title(run_name, model_path, data_path) -> str:
    files = f"{Path(str(model_path)).name} on {Path(str(data_path)).name}"
    return f"{run_name} ({files})" if run_name else f"Custom: {files}"


def _sha(path) -> str:
    return file_sha256(path) if isinstance(path, (str, Path)) and Path(path).exists() else ""
