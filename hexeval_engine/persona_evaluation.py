"""Persona evaluation: each stakeholder persona rates each method's explanation of a few real cases.

``run_persona_evaluation(model, data, technical_result, config, *, rater)`` returns one row per
rating (personas × methods × instances × runs) with these columns:

=====================  ===================================================================
persona_name, persona_role   who rated
explanation_type       canonical method: SHAP, LIME, Anchor, DiCE
instance_index         row of ``data.X_test`` that was explained
run                    1 … ``personas.runs_per_method``
interpretability … decision_support   six scores, integers 1-5 (float column; NaN when failed)
comment                the persona's 2-3 sentences ("" when failed)
rater, model           ``"simulated"``/``"simulated-v1"`` or ``"openai"``/the LLM model
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
groups, mean_abs_diff, share_identical). ``attrs`` survive copies and slicing but not every
pandas operation: read them from the returned frame (or call :func:`persona_stats`).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .config.schema import HexevalConfig
from .errors import ConfigError
from .explanation import NARRATIVE_METHOD, Explanation
from .narratives.run import narrative_for
from .paths import generic_personas_path, project_root
from .personas import Persona, load_personas
from .progress import report
from .raters.agreement import rating_agreement
from .raters.base import DIMENSIONS, Rater, Rating, RatingTask
from .raters.case import build_cases
from .raters.prompt import COMPLETION_TOKENS_ESTIMATE, method_label, system_prompt

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

    def to_dict(self) -> dict:
        return asdict(self)


def run_persona_evaluation(model, data, technical_result, config: HexevalConfig, *, rater: Rater,
                           on_progress=None) -> pd.DataFrame:
    """Have every persona rate every method's explanation of the first persona instances.

    Parameters
    ----------
    model : HexevalModel
        The model (predicts the probability shown with each case).
    data : Dataset
        Raw test rows; ``instance_index`` refers to ``data.X_test``.
    technical_result : object or None
        Anything with ``.explanations`` (list of Explanation) and ``.instance_ids`` (the technical
        sample). The first ``personas.sample_instances`` ids are rated; their explanations are
        reused and those missing are generated with ``hexeval_engine.explainers.explain_instances``.
        ``None``: the first rows of ``data.X_test`` are used and all explanations generated.
    config : HexevalConfig
        ``personas`` (file, include, runs, instances, show_method_names), ``domain`` and the
        enabled explainers.
    rater : Rater
        From :func:`hexeval_engine.raters.make_rater`.
    on_progress : callable, optional
        ``on_progress(done, total, message)``.

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
    personas = configured_personas(config)
    methods = config.evaluation.explainers.enabled_methods()
    if not methods:
        raise ConfigError("No explainer is enabled, so personas have nothing to rate. Enable at least one of "
                          "evaluation.explainers.shap/lime/anchor/dice.")
    ids = _instance_ids(technical_result, data, settings.sample_instances)
    explanations = _gather(model, data, config, technical_result, ids, methods)
    narratives = [e for e in getattr(technical_result, "explanations", None) or [] if e.method == NARRATIVE_METHOD]
    methods = methods + [NARRATIVE_METHOD] * bool(narratives)  # written for each persona's audience
    cases = build_cases(model, data, config.domain, ids)
    labels = {m: method_label(m, show_method_names=settings.show_method_names) for m in methods}

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
    table.attrs["stats"] = stats.to_dict()
    return table


def estimate_persona_evaluation(config: HexevalConfig) -> dict:
    """A rough plan before anything runs (no data, model or explanations needed).

    Returns ``{"ratings", "calls", "prompt_tokens", "completion_tokens", "tokens"}``: ratings =
    personas × enabled methods × ``sample_instances`` × ``runs_per_method``; calls = ratings for
    the ``openai`` rater (0 for ``simulated``; the response cache may answer some). Tokens are
    exact for each persona's system prompt and approximate for the case and explanation
    (``_USER_CHARS`` characters). The LLM rater's exact pre-run figure is ``attrs["stats"]["estimate"]``.
    """
    settings = config.personas
    personas = configured_personas(config)
    methods = config.evaluation.explainers.enabled_methods()
    per_persona = settings.sample_instances * settings.runs_per_method * len(methods)
    ratings = len(personas) * per_persona
    if settings.rater != "openai":
        return {"ratings": ratings, "calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "tokens": 0}
    user_chars = _USER_CHARS + 45 * max(1, len(config.domain.feature_descriptions))
    prompt = sum(per_persona * (len(system_prompt(p, config.domain)) + user_chars) // 4 for p in personas)
    completion = ratings * COMPLETION_TOKENS_ESTIMATE
    return {"ratings": ratings, "calls": ratings, "prompt_tokens": prompt, "completion_tokens": completion,
            "tokens": prompt + completion}


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


def _instance_ids(technical_result, data, n: int) -> list[int]:
    pool = list(getattr(technical_result, "instance_ids", None) or []) if technical_result is not None else []
    if not pool:
        pool = list(range(len(data.X_test)))
    return [int(i) for i in pool[:n]]


def _gather(model, data, config, technical_result, ids, methods) -> dict[tuple[str, int], Explanation]:
    found: dict[tuple[str, int], Explanation] = {}
    for exp in getattr(technical_result, "explanations", None) or []:
        key = (exp.method, int(exp.instance_id))
        if exp.method in methods and key[1] in ids and key not in found:
            found[key] = exp
    missing = [(m, i) for m in methods for i in ids if (m, i) not in found]
    if missing:
        from .explainers import explain_instances  # lazy: the explainers pull in heavy libraries

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
        label_map=labels, show_method_names=settings.show_method_names, agreement=agreement)
