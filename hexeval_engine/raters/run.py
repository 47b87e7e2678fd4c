"""Persona evaluation: each stakeholder persona rates each method's explanation of a few real cases.

``run_persona_evaluation(model, data, technical_result, config, *, rater)`` returns one row per
rating (personas × methods × instances × runs) with these columns:

=====================  ===================================================================
persona_name, persona_role   who rated
explanation_type       canonical method: SHAP, LIME, Anchor, DiCE, and Random (the baseline) when rated
instance_index         row of ``data.X_test`` that was explained (a case of the technical stage's shared set)
run                    1 … ``personas.runs_per_method``
interpretability … decision_support   six scores, integers 1-5 (float column; NaN when failed)
comment                the persona's 2-3 sentences ("" when failed)
rater, model           ``"simulated"``/``"simulated-v2"`` or ``"openai"``/the LLM model
status, error          ``"ok"``/``"failed"`` and the reason of a failure ("" when ok)
latency_s              seconds spent on the rating (retries included)
explanation_text       the exact text the persona read ("" when the explanation failed)
label_shown            what the persona was told it is ("Explanation A" or the method name)
cached                 answered from the response cache (no request sent)
prompt_tokens, completion_tokens   tokens of the answer (for a cached one: of the original call)
=====================  ===================================================================

Run statistics are attached as ``ratings.attrs["stats"]``, a JSON-serialisable dict (see
:class:`PersonaRunStats` for every key): the pre-run ``estimate`` (ratings, calls, cached,
prompt/completion tokens), ``calls_made`` (ratings that sent a request), ``http_requests``
(retries included), ``retries``, ``cached``, ``failed``, ``tokens_used`` (spent in this run),
``wall_seconds``, ``label_map`` and, when ``runs_per_method > 1``, ``agreement`` (per dimension:
groups, mean_abs_diff, share_identical), ``instances_requested``, ``case_source`` and ``notes``.
``attrs`` survive copies and slicing but not every pandas operation: read them from the returned
frame (or call :func:`persona_stats`).

Which cases are rated: the first ``personas.sample_instances`` of the technical stage's shared set
(``technical_result.shared_instance_ids``; without it, the cases every rated method explained), so
ratings pair with the technical metrics case by case. Each rated explanation carries that method's
per-instance metric values for the case in ``extra["metrics"]`` (from ``technical_result.per_instance``)
for raters that use them. :func:`per_case_ratings` averages ``runs_per_method`` repeats per case.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..config.schema import HexevalConfig
from ..errors import ConfigError, LLMError
from ..explainers.registry import enabled_methods, spec_of
from ..explanation import BASELINE_METHOD, NARRATIVE_METHOD, Explanation
from ..narratives.run import narrative_for
from ..paths import generic_personas_path, project_root
from ..personas import Persona, load_personas
from ..progress import report
from .agreement import rating_agreement
from .base import DIMENSIONS, Rater, Rating, RatingTask
from ..models.task import task_of
from .case import build_cases
from .prompt import COMPLETION_TOKENS_ESTIMATE, method_label, system_prompt
from .wording import count

CASE_KEYS = ["persona_name", "persona_role", "explanation_type", "instance_index"]
COLUMNS = ["persona_name", "persona_role", "explanation_type", "instance_index", "run", *DIMENSIONS, "comment",
           "rater", "model", "status", "error", "latency_s", "explanation_text", "label_shown", "cached",
           "prompt_tokens", "completion_tokens"]

_USER_CHARS = 900  # prediction sentence, instructions and a typical explanation text


@dataclass
class PersonaRunStats:
    """What a persona evaluation cost and how it went (stored as ``ratings.attrs["stats"]``)."""

    rater: str
    model: str
    personas: list[str]
    methods: list[str]
    instances: list[int]
    runs: int
    ratings: int
    ok: int
    failed: int
    estimate: dict
    calls_made: int
    http_requests: int
    retries: int
    cached: int
    prompt_tokens: int
    completion_tokens: int
    tokens_used: int
    wall_seconds: float
    label_map: dict
    show_method_names: bool
    agreement: dict = field(default_factory=dict)
    instances_requested: int = 0
    case_source: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def run_persona_evaluation(model, data, technical_result, config: HexevalConfig, *, rater: Rater,
                           on_progress=None, personas: list[Persona] | None = None) -> pd.DataFrame:
    """Have every persona rate every method's explanation of the first persona instances.

    Parameters
    ----------
    model : HexevalModel
        The model (predicts the probability shown with each case).
    data : Dataset
        Raw test rows; ``instance_index`` refers to ``data.X_test``.
    technical_result : object or None
        Anything with ``.explanations`` (list of Explanation) and ``.instance_ids`` (the technical
        sample); optionally ``.shared_instance_ids`` and ``.per_instance`` (``method, instance_id,
        metric, value``). The first ``personas.sample_instances`` cases of the shared set
        (:func:`shared_case_ids`) are rated; their explanations are reused, with their metric values
        attached, and any missing one is generated with ``hexeval_engine.explainers.explain_instances``
        (without metrics). ``None``: the first rows of ``data.X_test`` are used and all explanations
        generated.
    config : HexevalConfig
        ``personas`` (file, include, runs, instances, show_method_names, include_baseline),
        ``domain`` and the enabled explainers.
    rater : Rater
        From :func:`hexeval_engine.raters.make_rater`.
    on_progress : callable, optional
        ``on_progress(done, total, message)``.
    personas : list of Persona, optional
        The personas ``config.personas`` names, when the caller has read them already
        (:func:`configured_personas`); default: read from the persona file.

    Returns
    -------
    DataFrame
        The ratings table (columns above) with ``attrs["stats"]``.

    Raises
    ------
    ConfigError
        No persona file, a broken one, or no explainer enabled.
    """
    started = time.perf_counter()
    progress = report(on_progress)
    settings = config.personas
    personas = configured_personas(config) if personas is None else personas
    methods = rated_methods(config, technical_result)
    if not methods:
        raise ConfigError("No explainer is enabled, so personas have nothing to rate. Enable at least one of "
                          "evaluation.explainers.shap/lime/anchor/dice.")
    pool, source = shared_case_ids(technical_result, methods)
    if not pool:
        pool, source = list(range(len(data.X_test))), "first test rows (no technical sample was given)"
    ids = pool[:settings.sample_instances]
    notes = _case_notes(len(ids), settings.sample_instances, source)
    metrics = _instance_metrics(technical_result)
    explanations = {key: _with_metrics(exp, metrics.get(key))
                    for key, exp in _gather(model, data, config, technical_result, ids, methods).items()}
    narratives = [e for e in getattr(technical_result, "explanations", None) or [] if e.method == NARRATIVE_METHOD]
    narratives = [_with_metrics(e, metrics.get((e.extra.get("source_method", config.narratives.source), e.instance_id)))
                  for e in narratives]  # a narrative retells its source: the source's measured faithfulness
    methods = methods + [NARRATIVE_METHOD] * bool(narratives)  # written for each persona's audience
    task = task_of(data, config)
    cases = build_cases(model, data, config.domain, ids, class_names=task.class_names if data.n_classes > 2 else (),
                        quantity=task.value_text)
    labels = {m: method_label(m, show_method_names=settings.show_method_names, methods=methods) for m in methods}

    slots, tasks = [], []
    for persona in personas:
        for method in methods:
            for iid in ids:
                for run in range(settings.runs_per_method):
                    exp = (narrative_for(narratives, iid, persona.audience) if method == NARRATIVE_METHOD
                           else explanations.get((method, iid)))
                    slots.append((persona, method, iid, run, exp))
                    if _showable(exp):
                        tasks.append(RatingTask(persona, cases[iid], exp, config.domain, labels[method], run))
    total = len(slots)
    estimate = rater.estimate(tasks)
    check_prompt_budget(estimate, settings.max_prompt_tokens)
    pre_failed = total - len(tasks)
    progress(pre_failed, total, f"Persona ratings: {total} to make; about {estimate.calls} LLM call(s) and "
                                f"{estimate.tokens} tokens ({estimate.cached} cached)")
    rated = iter(rater.rate_many(tasks, lambda d, t, msg: progress(pre_failed + d, total, msg)))
    ratings = [next(rated) if _showable(e) else _missing(m, i, e) for _, m, i, _, e in slots]
    rows = [_row(p, m, i, r, e, rating, rater, labels[m]) for (p, m, i, r, e), rating in zip(slots, ratings)]
    table = pd.DataFrame(rows, columns=COLUMNS)
    for dim in DIMENSIONS:
        table[dim] = table[dim].astype(float)
    stats = _stats(table, ratings, rater, personas, methods, ids, settings, estimate.to_dict(), labels,
                   time.perf_counter() - started)
    stats.case_source, stats.notes = source, notes
    table.attrs["stats"] = stats.to_dict()
    return table


MIN_CASES_PER_CELL = 8
"""Rated cases each persona × method cell needs for an interval that means something (issue 9)."""


def estimate_persona_evaluation(config: HexevalConfig) -> dict:
    """A plan before anything runs (no data, model or explanations needed).

    Returns the keys of :func:`persona_plan` for the configured personas, plus tokens:
    ``{"personas", "methods", "cases", "runs", "ratings_per_cell", "ratings", "calls",
    "prompt_tokens", "completion_tokens", "tokens"}``. ratings = personas × rated methods × cases ×
    ``runs_per_method``; calls = ratings for the ``openai`` rater (0 for ``simulated``; the response
    cache may answer some). Tokens are exact for each persona's system prompt and approximate for the
    case and explanation (``_USER_CHARS`` characters). The LLM rater's exact pre-run figure is
    ``attrs["stats"]["estimate"]``.
    """
    personas = configured_personas(config)
    plan = persona_plan(config, n_personas=len(personas))
    if config.personas.rater != "openai":
        return {**plan, "prompt_tokens": 0, "completion_tokens": 0, "tokens": 0}
    per_persona = plan["cases"] * plan["runs"] * len(plan["methods"])
    user_chars = _USER_CHARS + 45 * max(1, len(config.domain.feature_descriptions))
    prompt = sum(per_persona * (len(system_prompt(p, config.domain)) + user_chars) // 4 for p in personas)
    completion = plan["ratings"] * COMPLETION_TOKENS_ESTIMATE
    return {**plan, "prompt_tokens": prompt, "completion_tokens": completion, "tokens": prompt + completion}


def persona_plan(config: HexevalConfig, *, n_personas: int) -> dict:
    """How many ratings and LLM calls ``config`` implies for ``n_personas`` personas.

    Returns
    -------
    dict
        ``personas``; ``methods`` (the enabled explainers, ``Narrative`` when narratives are on, then ``Random`` when
        ``personas.include_baseline``: the technical stage measures that baseline on every run);
        ``cases`` (cases rated per persona × method: ``personas.sample_instances``, capped by the
        cases every method explains — ``evaluation.sample_size`` and the Anchor/DiCE
        ``max_instances``); ``runs``; ``ratings_per_cell`` (cases × runs); ``ratings``; ``calls``
        (= ratings for the ``openai`` rater, 0 for ``simulated``).
    """
    settings = config.personas
    methods = [m for m in enabled_methods(config) if m != BASELINE_METHOD]
    if config.narratives.enabled and config.narratives.source in methods:
        methods = [*methods, NARRATIVE_METHOD]  # the narratives of the source's explanations are rated too
    if methods and settings.include_baseline:
        methods = [*methods, BASELINE_METHOD]
    cases = min(settings.sample_instances, shared_case_cap(config))
    ratings = n_personas * len(methods) * cases * settings.runs_per_method
    return {"personas": n_personas, "methods": methods, "cases": cases, "runs": settings.runs_per_method,
            "ratings_per_cell": cases * settings.runs_per_method, "ratings": ratings,
            "calls": ratings if settings.rater == "openai" else 0}


def shared_case_cap(config: HexevalConfig) -> int:
    """Cases every enabled method explains: the sample size, capped by each method's case cap (``max_instances``)."""
    n = config.evaluation.sample_size
    return min([n] + [spec_of(m, config).cap(config, n) for m in enabled_methods(config)])


def rated_methods(config: HexevalConfig, technical_result=None) -> list[str]:
    """The methods personas rate: the enabled explainers, then the ``Random`` baseline when
    ``personas.include_baseline`` and the technical stage produced Random explanations."""
    methods = [m for m in enabled_methods(config) if m != BASELINE_METHOD]
    produced = {e.method for e in getattr(technical_result, "explanations", None) or []}
    if methods and config.personas.include_baseline and BASELINE_METHOD in produced:
        methods = [*methods, BASELINE_METHOD]
    return methods


def shared_case_ids(technical_result, methods: list[str]) -> tuple[list[int], str]:
    """The cases personas may rate, in sample order, and where they come from.

    ``technical_result.shared_instance_ids`` when the technical stage exposes it; otherwise the
    cases every method in ``methods`` explained successfully (methods with no successful
    explanation at all are left out of the intersection: their ratings are recorded as failures);
    otherwise (no explanations) the technical sample. ``([], "")`` without a technical result.
    """
    if technical_result is None:
        return [], ""
    shared = getattr(technical_result, "shared_instance_ids", None)
    if shared:
        return [int(i) for i in shared], "the technical stage's shared cases"
    sample = [int(i) for i in getattr(technical_result, "instance_ids", None) or []]
    explained: dict[str, set[int]] = {}
    for exp in getattr(technical_result, "explanations", None) or []:
        if exp.method in methods and exp.ok:
            explained.setdefault(exp.method, set()).add(int(exp.instance_id))
    if not explained:
        return sample, "the technical sample"
    common = set.intersection(*explained.values())
    order = sample + sorted(common - set(sample))
    return [i for i in order if i in common], "the cases every method explained"


def per_case_ratings(ratings: pd.DataFrame) -> pd.DataFrame:
    """One row per persona × method × case, each dimension averaged over that case's successful runs.

    ``runs_per_method`` repeats are averaged here, before any pairing of methods over cases.
    Columns: ``persona_name, persona_role, explanation_type, instance_index``, the six dimensions
    (mean of the ``ok`` runs; NaN when every run of the case failed), ``n_ratings`` (ok runs) and
    ``n_failed``. Rows keep the ratings table's order. Pair methods only over rows with
    ``n_ratings > 0``.
    """
    table = ratings.assign(_ok=ratings["status"].eq("ok"))
    groups = table.groupby(CASE_KEYS, sort=False)
    means = table[table["_ok"]].groupby(CASE_KEYS, sort=False)[list(DIMENSIONS)].mean()
    counts = groups["_ok"].agg(n_ratings="sum", n_all="size")
    out = counts.join(means, how="left").reset_index()
    out["n_ratings"] = out["n_ratings"].astype(int)
    out["n_failed"] = (out.pop("n_all") - out["n_ratings"]).astype(int)
    return out[[*CASE_KEYS, *DIMENSIONS, "n_ratings", "n_failed"]]


def with_default_personas(config: HexevalConfig) -> HexevalConfig:
    """``config`` with ``personas.file`` set to the generic persona set when personas are on and no file is named.

    Used for a user's own model and CSV (no bundled use case): the five domain-neutral personas of
    ``configs/generic/personas.yaml`` rate the explanations unless a persona file is given. A file that
    is named but missing stays an error (:func:`configured_personas`).
    """
    settings = config.personas
    if not settings.enabled or settings.file:
        return config
    return config.model_copy(update={"personas": settings.model_copy(update={"file": str(generic_personas_path())})})


def uses_generic_personas(config: HexevalConfig) -> bool:
    """Whether ``config`` rates with the generic persona set (see :func:`with_default_personas`)."""
    settings = config.personas
    return bool(settings.enabled and settings.file) and Path(settings.file) == generic_personas_path()


def configured_personas(config: HexevalConfig) -> list[Persona]:
    """The personas ``config.personas`` names; ``ConfigError`` when the file is unset, missing or broken.

    ``evaluate`` calls it before the technical evaluation so a persona problem fails in seconds.
    """
    settings = config.personas
    return load_personas(_persona_path(settings.file), include=settings.include)


def persona_stats(ratings: pd.DataFrame) -> dict:
    """The stats dict of a ratings table (``attrs["stats"]``), or a ``ConfigError`` if it has none."""
    if "stats" not in ratings.attrs:
        raise ConfigError("This ratings table carries no run statistics (attrs['stats'] is missing); it did not come "
                          "straight from run_persona_evaluation. Re-run it or read the saved manifest.")
    return ratings.attrs["stats"]


def _persona_path(file: str | None) -> Path:
    if not file:
        raise ConfigError("personas.file is not set, so there are no personas to rate explanations. Point it at a "
                          "persona YAML file (e.g. configs/heart/personas.yaml; `--personas FILE` on the command "
                          "line) or turn personas off (personas.enabled: false; `--no-personas`) for a "
                          "technical-only evaluation.")
    path = Path(file)
    if not path.is_absolute() and not path.exists() and (project_root() / path).exists():
        return project_root() / path
    return path


def _case_notes(n_cases: int, requested: int, source: str) -> list[str]:
    if n_cases >= min(requested, MIN_CASES_PER_CELL):
        notes = []
    else:
        notes = [f"Each persona rated {count(n_cases, 'case')} per method because only {n_cases} of the requested "
                 f"{requested} were among {source}; intervals need at least {MIN_CASES_PER_CELL}. Raise "
                 "evaluation.explainers.anchor.max_instances and dice.max_instances (and the sample size)."]
    if requested < MIN_CASES_PER_CELL:
        notes.append(f"personas.sample_instances is {requested}: with fewer than {MIN_CASES_PER_CELL} cases per "
                     "persona and method, the persona intervals are too wide to separate methods.")
    return notes


def _instance_metrics(technical_result) -> dict[tuple[str, int], dict[str, float]]:
    """``{(method, instance_id): {metric: value}}`` from ``technical_result.per_instance`` (empty without one)."""
    table = getattr(technical_result, "per_instance", None)
    if table is None or len(table) == 0:
        return {}
    out: dict[tuple[str, int], dict[str, float]] = {}
    for method, iid, metric, value in zip(table["method"], table["instance_id"], table["metric"], table["value"]):
        out.setdefault((str(method), int(iid)), {})[str(metric)] = float(value)
    return out


def _with_metrics(exp: Explanation, metrics: dict | None) -> Explanation:
    """A copy of ``exp`` with its per-instance metric values in ``extra["metrics"]`` (``exp`` is not changed)."""
    if not metrics:
        return exp
    return replace(exp, extra={**exp.extra, "metrics": dict(metrics)})


def _gather(model, data, config, technical_result, ids, methods) -> dict[tuple[str, int], Explanation]:
    found: dict[tuple[str, int], Explanation] = {}
    for exp in getattr(technical_result, "explanations", None) or []:
        key = (exp.method, int(exp.instance_id))
        if exp.method in methods and key[1] in ids and key not in found:
            found[key] = exp
    # The Random baseline comes only from the technical stage (the explainers cannot make it).
    missing = [(m, i) for m in methods if m != BASELINE_METHOD for i in ids if (m, i) not in found]
    if missing:
        from ..runtime.explain import explain_instances  # lazy: the explainers pull in heavy libraries

        need_ids = sorted({i for _, i in missing})
        need_methods = [m for m in methods if any(mm == m for mm, _ in missing)]
        for exp in explain_instances(model, data, config, need_ids, methods=need_methods,
                                     seed=config.evaluation.random_state):
            key = (exp.method, int(exp.instance_id))
            if key in missing and key not in found:
                found[key] = exp
    return found


def _showable(exp: Explanation | None) -> bool:
    return exp is not None and exp.ok and bool(exp.text.strip())


def _missing(method: str, iid: int, exp: Explanation | None) -> Rating:
    if exp is None:
        return Rating.failed(f"no {method} explanation was produced for instance {iid}; nothing was shown")
    if exp.ok:
        return Rating.failed(f"the {method} explanation of instance {iid} has no plain-language text; "
                             "nothing was shown")
    return Rating.failed(f"the {method} explanation failed ({exp.error}); nothing was shown")


def _row(persona: Persona, method: str, iid: int, run: int, exp, rating: Rating, rater: Rater, label: str) -> dict:
    scores = rating.scores if rating.ok and rating.scores else {}
    return {"persona_name": persona.name, "persona_role": persona.role, "explanation_type": method,
            "instance_index": iid, "run": run + 1, **{d: scores.get(d, np.nan) for d in DIMENSIONS},
            "comment": rating.comment if rating.ok else "", "rater": rater.name, "model": rater.model,
            "status": rating.status, "error": rating.error, "latency_s": round(rating.latency_s, 4),
            "explanation_text": exp.text if _showable(exp) else "", "label_shown": label,
            "cached": bool(rating.cached), "prompt_tokens": rating.prompt_tokens,
            "completion_tokens": rating.completion_tokens}


def check_prompt_budget(estimate, budget: int) -> None:
    """``LLMError`` before anything is sent when the plan's estimated prompt tokens exceed ``budget``."""
    if estimate.prompt_tokens > budget:
        raise LLMError(
            f"The persona stage would send about {estimate.prompt_tokens:,} prompt tokens in {estimate.calls:,} "
            f"LLM calls, more than the budget of {budget:,} (personas.max_prompt_tokens). Nothing was sent. Rate "
            "fewer cases (personas.sample_instances), personas or runs per method, or raise "
            "personas.max_prompt_tokens if you mean to spend that much.")


def _stats(table, ratings: list[Rating], rater, personas, methods, ids, settings, estimate, labels,
           wall) -> PersonaRunStats:
    live = table[~table["cached"]]
    agreement = {}
    if settings.runs_per_method > 1:
        agreement = {r.dimension: {"groups": int(r.groups), "mean_abs_diff": float(r.mean_abs_diff),
                                   "share_identical": float(r.share_identical)}
                     for r in rating_agreement(table).itertuples()}
    return PersonaRunStats(
        rater=rater.name, model=rater.model, personas=[p.name for p in personas], methods=methods, instances=ids,
        runs=settings.runs_per_method, ratings=len(table), ok=int((table["status"] == "ok").sum()),
        failed=int((table["status"] == "failed").sum()), estimate=estimate,
        calls_made=sum(r.calls > 0 for r in ratings), http_requests=sum(r.calls for r in ratings),
        retries=sum(r.retries for r in ratings), cached=int(table["cached"].sum()),
        prompt_tokens=int(live["prompt_tokens"].sum()), completion_tokens=int(live["completion_tokens"].sum()),
        tokens_used=int(live["prompt_tokens"].sum() + live["completion_tokens"].sum()),
        wall_seconds=round(wall, 3),
        label_map=labels, show_method_names=settings.show_method_names, agreement=agreement,
        instances_requested=settings.sample_instances)
