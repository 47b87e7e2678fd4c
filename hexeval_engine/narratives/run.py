"""``run_narratives``: narrate the source method's explanations, read them back and score their faithfulness.

Public interface
----------------
``run_narratives(data, technical, config, *, persona_audiences=(), tools=None, api_key=None, cache_dir=None,
on_progress=None) -> NarrativeRun``
``narrative_for(explanations, instance_id, persona_audience) -> Explanation | None``

For each narrated case and audience the narrator writes from the true top-n attribution table;
with ``narratives.manipulation_check`` it also writes from a table whose attribution values were
permuted among the top-n features (:func:`~hexeval_engine.narratives.facts.permuted`). Every
narrative is read back by the extractor and scored against the *true* table, so a faithful
narrator passes on the real narratives and is flagged on the manipulated ones.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..explainers.render import row_dicts
from ..explanation import NARRATIVE_METHOD, Explanation
from ..progress import report
from .facts import NarrativeFacts, build_facts, permuted
from .faithfulness import Faithfulness, flag, score
from .results import Extraction, Narration
from .tools import NarrativeTools, narrative_tools
from .wording import AUDIENCES, audience_of_persona

COLUMNS = ["narrative_id", "instance_id", "audience", "narrator", "narrator_model", "extractor", "source_method",
           "top_n", "manipulated", "text", "rank_agreement", "sign_agreement", "value_agreement", "top_n_mentioned",
           "hallucinated", "hallucinated_features", "n_mentioned", "flagged", "flag_reason", "error", "cached",
           "calls", "prompt_tokens", "completion_tokens"]
EXTRACTION_COLUMNS = ["narrative_id", "instance_id", "audience", "manipulated", "feature", "label", "in_table",
                      "mentioned", "true_rank", "stated_rank", "rank_ok", "true_sign", "stated_sign", "sign_ok",
                      "true_value", "stated_value", "value_ok"]


@dataclass
class NarrativeRun:
    """What the narrative stage produced.

    Attributes
    ----------
    table : DataFrame
        One row per narrative (:data:`COLUMNS`), manipulated ones marked ``manipulated``; saved as
        ``narratives.csv``.
    extractions : DataFrame
        One row per narrative and feature of its table or named by it (:data:`EXTRACTION_COLUMNS`);
        saved as ``narrative_extractions.csv``.
    explanations : list of Explanation
        The real (not manipulated) narratives as ``Explanation(method="Narrative")``; failures carry ``error``.
    stats : dict
        Narrator and extractor, counts, requests, tokens, the pre-run estimate and seconds.
    """

    table: pd.DataFrame
    extractions: pd.DataFrame
    explanations: list[Explanation]
    stats: dict = field(default_factory=dict)


def audiences_for(config, persona_audiences=()) -> list[str]:
    """The audiences to write for (``narratives.audience``; ``personas``: those of the personas, else both)."""
    choice = config.narratives.audience
    if choice == "both":
        return list(AUDIENCES)
    if choice in AUDIENCES:
        return [choice]
    wanted = {audience_of_persona(a) for a in persona_audiences}
    return [a for a in AUDIENCES if a in wanted] or list(AUDIENCES)


def narrated_ids(technical, config) -> list[int]:
    """The cases to narrate: the first ``narratives.sample_instances`` of the sample (default: the persona cases)."""
    n = config.narratives.sample_instances or config.personas.sample_instances
    return [int(i) for i in list(technical.instance_ids)[:n]]


def run_narratives(data, technical, config, *, persona_audiences=(), tools: NarrativeTools | None = None,
                   api_key: str | None = None, cache_dir=None, on_progress=None) -> NarrativeRun:
    """Narrate, read back and score (see the module docstring).

    Parameters
    ----------
    data : Dataset
    technical : TechnicalResult
        Its ``explanations`` of ``narratives.source`` are narrated.
    config : HexevalConfig
    persona_audiences : iterable of str
        The ``audience`` of each configured persona (``professional``/``end_user``).
    tools : NarrativeTools, optional
        From :func:`narrative_tools` (built here, and closed, when omitted).
    api_key, cache_dir
        For an LLM narrator or extractor built here.
    on_progress : callable, optional
        ``on_progress(done, total, message)``.
    """
    started = time.perf_counter()
    progress = report(on_progress)
    settings = config.narratives
    own = tools is None
    tools = tools or narrative_tools(config, data, api_key=api_key, cache_dir=cache_dir)
    try:
        jobs, failed = _jobs(data, technical, config, audiences_for(config, persona_audiences))
        facts = [j.written_from for j in jobs]
        estimate = _estimate(tools, facts)
        total = 2 * len(jobs) or 1
        progress(0, total, f"Narratives: {len(jobs)} to write"
                           + (f"; about {estimate['calls']} LLM call(s)" if estimate else ""))
        narrations = tools.narrator.narrate_many(facts, lambda d, t, m: progress(d, total, m))
        readable = [k for k, n in enumerate(narrations) if n.ok]
        extracted = tools.extractor.extract_many([narrations[k].text for k in readable], [facts[k] for k in readable],
                                                 lambda d, t, m: progress(len(jobs) + d, total, m))
        extractions: list[Extraction | None] = [None] * len(jobs)
        for k, e in zip(readable, extracted):
            extractions[k] = e
    finally:
        if own:
            tools.close()
    rows, checks, explanations = [], [], []
    for nid, (job, narration, extraction) in enumerate(zip(jobs, narrations, extractions)):
        faith = score(extraction, job.truth, job.row) if extraction is not None and extraction.ok else None
        flagged, reason = flag(faith, min_rank=settings.min_rank_agreement, min_sign=settings.min_sign_agreement)
        error = narration.error or ("" if narration.ok else "the narrator returned no text")
        if error:
            flagged, reason = False, ""
        elif extraction is not None and not extraction.ok:
            reason = f"{reason} ({extraction.error})"
        rows.append(_row(nid, job, narration, extraction, faith, flagged, reason, error, tools, settings.top_n))
        if faith is not None:
            checks += [{"narrative_id": nid, "instance_id": job.truth.instance_id, "audience": job.truth.audience,
                        "manipulated": job.manipulated, **_check_dict(c)} for c in faith.checks]
        if not job.manipulated:
            explanations.append(_explanation(job, narration, faith, flagged, reason, error, tools))
    explanations += failed
    table = pd.DataFrame(rows, columns=COLUMNS)
    stats = {"narrator": tools.narrator.name, "narrator_model": tools.narrator.model,
             "narrator_label": tools.narrator.label, "extractor": tools.extractor.name, "estimate": estimate,
             "narratives": int((~table["manipulated"]).sum()), "manipulated": int(table["manipulated"].sum()),
             "failed": int((table["error"] != "").sum()) + len(failed),
             "calls": int(table["calls"].sum()), "cached": int(table["cached"].sum()),
             "tokens": int(table["prompt_tokens"].sum() + table["completion_tokens"].sum()),
             "wall_seconds": round(time.perf_counter() - started, 3)}
    progress(total, total, "Narratives checked")
    return NarrativeRun(table, pd.DataFrame(checks, columns=EXTRACTION_COLUMNS), explanations, stats)


def narrative_for(explanations, instance_id: int, persona_audience: str) -> Explanation | None:
    """The narrative of ``instance_id`` written for a persona of ``persona_audience`` (``end_user`` → lay)."""
    audience = audience_of_persona(persona_audience)
    return next((e for e in explanations if e.method == NARRATIVE_METHOD and int(e.instance_id) == int(instance_id)
                 and e.extra.get("audience") == audience), None)


@dataclass
class _Job:
    truth: NarrativeFacts
    written_from: NarrativeFacts
    row: dict
    manipulated: bool


def _jobs(data, technical, config, audiences) -> tuple[list[_Job], list[Explanation]]:
    settings = config.narratives
    ids = narrated_ids(technical, config)
    rows = dict(zip(ids, row_dicts(data.X_test.iloc[ids][list(data.feature_names)]))) if ids else {}
    jobs, failed = [], []
    for iid in ids:
        source = technical.explanation(settings.source, iid)
        for audience in audiences:
            if source is None or not source.ok:
                why = source.error if source is not None else "it was not produced"
                failed.append(Explanation(NARRATIVE_METHOD, iid, source.predicted_class if source else 0,
                                          source.probability if source else math.nan,
                                          error=f"no {settings.source} explanation of this case to narrate ({why})",
                                          extra={"audience": audience, "source_method": settings.source}))
                continue
            truth = build_facts(source, rows[iid], data, config.domain, audience=audience, top_n=settings.top_n)
            jobs.append(_Job(truth, truth, rows[iid], False))
            if settings.manipulation_check:
                seed = int.from_bytes(hashlib.sha256(f"{config.evaluation.random_state}|{iid}|{audience}".encode())
                                      .digest()[:8], "little")
                fake = permuted(truth, np.random.default_rng(seed))
                if fake.manipulated:
                    jobs.append(_Job(truth, fake, rows[iid], True))
    return jobs, failed


def _estimate(tools: NarrativeTools, facts) -> dict:
    if not hasattr(tools.narrator, "estimate"):
        return {}
    return tools.narrator.estimate(facts)


def _row(nid, job: _Job, n: Narration, e: Extraction | None, faith: Faithfulness | None, flagged, reason, error,
         tools, top_n) -> dict:
    metrics = faith.as_dict() if faith else {k: math.nan for k in ("rank_agreement", "sign_agreement",
                                                                   "value_agreement", "top_n_mentioned")}
    return {"narrative_id": nid, "instance_id": job.truth.instance_id, "audience": job.truth.audience,
            "narrator": tools.narrator.name, "narrator_model": tools.narrator.model,
            "extractor": e.extractor if e is not None else tools.extractor.name,
            "source_method": job.truth.source_method, "top_n": top_n, "manipulated": job.manipulated,
            "text": n.text, **{k: metrics.get(k, math.nan) for k in ("rank_agreement", "sign_agreement",
                                                                     "value_agreement", "top_n_mentioned")},
            "hallucinated": faith.hallucinated if faith else math.nan,
            "hallucinated_features": ", ".join(faith.hallucinated_features) if faith else "",
            "n_mentioned": faith.n_mentioned if faith else math.nan, "flagged": bool(flagged), "flag_reason": reason,
            "error": error, "cached": bool(n.cached),
            "calls": n.calls + (e.calls if e else 0),
            "prompt_tokens": n.prompt_tokens + (e.prompt_tokens if e else 0),
            "completion_tokens": n.completion_tokens + (e.completion_tokens if e else 0)}


def _check_dict(c) -> dict:
    return {"feature": c.feature, "label": c.label, "in_table": c.in_table, "mentioned": c.mentioned,
            "true_rank": c.true_rank, "stated_rank": c.stated_rank, "rank_ok": c.rank_ok, "true_sign": c.true_sign,
            "stated_sign": c.stated_sign, "sign_ok": c.sign_ok, "true_value": c.true_value,
            "stated_value": c.stated_value, "value_ok": c.value_ok}


def _explanation(job: _Job, n: Narration, faith, flagged, reason, error, tools) -> Explanation:
    t = job.truth
    metrics = faith.as_dict() if faith else {}
    summary = ", ".join(f"{k.replace('_', ' ')} {v:.2f}" for k, v in metrics.items()
                        if k.endswith("agreement") and not math.isnan(v))
    technical = (f"Narrative of the top {len(t.top)} {t.source_method} attributions for {t.audience} readers by the "
                 f"{tools.narrator.label}; read back by the {tools.extractor.name} extractor"
                 + (f": {summary}" if summary else "") + (f". FLAGGED: {reason}" if flagged else ""))
    return Explanation(NARRATIVE_METHOD, t.instance_id, t.predicted_class, t.probability, text=n.text if not error else "",
                       technical_text=technical, algorithm=tools.narrator.label, seconds=n.latency_s,
                       error=error or None,
                       extra={"audience": t.audience, "narrator": tools.narrator.name, "source_method": t.source_method,
                              "faithfulness": json.loads(json.dumps(metrics, default=float)), "flagged": bool(flagged),
                              "flag_reason": reason,
                              "source_attributions": {f.feature: f.attribution for f in t.top}})
