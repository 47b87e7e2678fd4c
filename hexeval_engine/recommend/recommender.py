"""Recommend an explanation method per stakeholder from paired, case-by-case evidence.

How a recommendation is made (``docs/recommendations.md`` explains it for readers)
---------------------------------------------------------------------------------
1. **One shared set of cases.** Every method (and the ``Random`` baseline) was measured on the same
   cases (:mod:`hexeval_engine.technical.run`); personas rated a subset of them.
2. **Evidence per case.** Technical: the claim-scoped ``technical_claim_score`` of each explanation
   (claim sufficiency and reader accuracy on what it shows; :mod:`hexeval_engine.recommend.evidence`),
   computed identically for every method (older runs: ``fidelity_combined``).
   Stakeholder: per (persona, case), the six dimensions mapped from 1-5 to 0-1, averaged over
   repeated runs and weighed by the persona's ``dimension_weights``. Family-specific quantities (rule precision, counterfactual validity and
   plausibility) add no points: they raise concerns or exclude a method
   (:mod:`hexeval_engine.recommend.checks`). Parsimony adds no points either (see 6).
3. **Score.** ``w_t * mean technical evidence + w_s * mean stakeholder score`` with
   ``recommendations.weights.technical`` / ``stakeholder`` (renormalised; technical-only when no
   usable rating). Each card carries the ``weights`` it used. The
   interval is the stratified bootstrap of :func:`hexeval_engine.paired_stats.composite_difference`.
4. **Qualify against Random.** A method is recommendable only when its fidelity beats the random
   baseline on the shared cases (paired interval excludes 0). If none does, nothing is recommended.
5. **Clear lead or close call.** The best qualifying method is compared with every other qualifying
   method on the same units (paired differences of the score's parts); the p-values are Holm-corrected
   across those comparisons. The lead is **clear** only when the corrected p-value against the
   runner-up is below ``1 - confidence_level``, its paired interval excludes 0, there are at least
   :data:`MIN_UNITS_FOR_CLEAR` units, and the persona evidence does not come from the simulated rater
   (a simulator cannot establish a lead). Otherwise it is a **close call**.
6. **Parsimony breaks ties only.** In a close call, if ``technical_parsimony`` has a positive weight,
   the methods not significantly worse than the winner *and* whose fidelity is not significantly worse
   than the most faithful method's are eligible, and the one that relies on the fewest features
   (``num_important_features``) is recommended.
7. **No signal, no advice.** With the warning ``model_has_no_signal`` nothing is recommended.
8. **Narratives** retell their source attribution (``narratives.source``): a narrative is a way of
   telling, not a rival method. It is never a candidate; when the recommended method is its source,
   ``recommended_format`` is ``"narrative"`` if the stakeholder's score for the narrative is above
   the plain form's on the same units (paired interval above 0), else ``"plain"``. A narrator that
   failed the faithfulness checks is listed in ``excluded_methods`` and never offered as a format.
9. **The Random gate's mark.** An alternative that did not beat Random carries
   ``status = "excluded (does not beat random)"`` wherever it is listed.

Output (JSON-serialisable; every float finite or ``None``)::

    {"mode": "combined" | "technical_only" | "disabled",
     "weights": {...}, "confidence_level": .95, "methods": [candidates], "baseline": "Random" | None,
     "fidelity_source": "normalised" | "raw" | "none", "n_shared_cases": int,
     "excluded_methods": [{"method", "reason"}], "warnings": [{"code", "message", ...}],
     "technical": {method: {"family", "fidelity": {"value", "ci_low", "ci_high", "n"},
                            "parsimony": {...}, "vs_baseline": {...}, "concerns": [str]}},
     "stakeholders": {title: {
        "persona_role", "persona_names", "title", "mode", "n_ratings", "n_failed_ratings", "n_units",
        "n_cases", "recommended_method" (None with "reason"), "reason", "score", "score_ci_low",
        "score_ci_high", "lead": "clear" | "close_call" | "single_candidate" | "none", "clear_lead",
        "runner_up", "comparisons": [{"method", "diff", "ci_low", "ci_high", "p_value", "p_holm", "n"}],
        "tie_break": str | None, "strengths", "concerns", "reasoning", "recommended_format":
        "plain" | "narrative", "format_comparison", "weights": {"technical", "stakeholder", "dimensions"},
        "alternatives": [{"rank", "method", "family", "recommendable", "qualifies", "status", "score",
                          "score_ci_low", "score_ci_high", "components": {component: {"value",
                          "ci_low", "ci_high", "weight", "configured_weight", "contribution",
                          "detail", "n"}}, "ratings": {"n", "trust_mean", "satisfaction_mean"},
                          "notes"}],
        "notes"}},
     "notes": [str]}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..config.schema import HexevalConfig
from ..explanation import BASELINE_METHOD, METHOD_FAMILY, NARRATIVE_METHOD, NON_RECOMMENDABLE_FAMILIES
from ..paired_stats import composite_difference, holm, mean_ci
from .evidence import case_fidelity, case_parsimony, unit_ratings, usable_ratings
from .checks import baseline_comparison, constraint_findings, fidelity_summary
from .wording import ALL_COMPONENTS, fill_words
from ..metrics.table import as_long, canonical_method, method_errors, methods_in

__all__ = ["MIN_UNITS_FOR_CLEAR", "canonical_method", "generate_recommendations"]

#: Fewer paired units than this can never make a clear lead (an exact signed-rank test on 7 or
#: fewer pairs cannot reach p < 0.05 after correcting for two comparisons).
MIN_UNITS_FOR_CLEAR = 8
_RESAMPLES = 2000


def _config(config) -> HexevalConfig:
    if config is None:
        return HexevalConfig()
    if isinstance(config, HexevalConfig):
        return config
    if isinstance(config, Mapping):
        return HexevalConfig.model_validate(dict(config))
    raise TypeError(f"config must be a HexevalConfig, a dict or None, got {type(config).__name__}")


def _f(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _column(table: pd.DataFrame, method: str) -> np.ndarray:
    return table[method].to_numpy(float) if method in getattr(table, "columns", ()) else np.array([])


class _Evidence:
    """Per-case fidelity and per-unit persona scores of one stakeholder, aligned across methods."""

    def __init__(self, fidelity: pd.DataFrame, persona: dict, shares: tuple[float, float], level: float, seed: int):
        self.fidelity, self.persona, self.level, self.seed = fidelity, persona, level, seed
        wf, wp = shares
        has_persona = len(persona["score"]) > 0 and wp > 0
        if wf <= 0 and not has_persona:
            wf = 1.0
        self.wf, self.wp = wf, (wp if has_persona else 0.0)

    def parts(self, a: str, b: str | None = None) -> list:
        def diff(table):
            x = _column(table, a)
            if b is None or not len(x):
                return x
            y = _column(table, b)
            return x - y if len(y) else np.array([])
        return [(self.wf, diff(self.fidelity)), (self.wp, diff(self.persona["score"]))]

    def score(self, method: str):
        return composite_difference(self.parts(method), n_resamples=_RESAMPLES, confidence=self.level, seed=self.seed)

    def compare(self, a: str, b: str):
        return composite_difference(self.parts(a, b), n_resamples=_RESAMPLES, confidence=self.level, seed=self.seed)


def _component(values: np.ndarray, weight: float, configured: float, level: float, seed: int, detail: str) -> dict:
    mean, low, high = mean_ci(values, confidence=level, seed=seed)
    n = int(np.isfinite(values).sum()) if len(values) else 0
    if n == 0:
        return {"value": None, "ci_low": None, "ci_high": None, "weight": 0.0, "configured_weight": configured,
                "contribution": 0.0, "detail": "not available", "n": 0}
    return {"value": mean, "ci_low": low, "ci_high": high, "weight": weight, "configured_weight": configured,
            "contribution": weight * mean, "detail": detail.format(mean=mean, n=n), "n": n}


def _alternative(method: str, ev: _Evidence, weights: dict, technical: dict, level: float, seed: int) -> dict:
    total = ev.wf + ev.wp
    wf, wp = (ev.wf / total, ev.wp / total) if total > 0 else (0.0, 0.0)
    fid = fidelity_summary(ev.fidelity, method)
    trust = _column(ev.persona["trust"], method)
    sat = _column(ev.persona["satisfaction"], method)
    components = {
        "technical_fidelity": _component(fid, wf, weights["technical"], level, seed,
                                         "fidelity {mean:.2f} over {n} shared cases"),
        "technical_parsimony": {**technical[method]["parsimony"], "weight": 0.0, "contribution": 0.0,
                                "configured_weight": weights["technical_parsimony"]},
        "stakeholder_score": _component(_column(ev.persona["score"], method), wp, weights["stakeholder"], level,
                                        seed, "six ratings weighed by this stakeholder's needs {mean:.2f} "
                                              "from {n} rated cases"),
        # shown, not scored: they enter through the stakeholder score with the persona's weights
        "persona_trust": _component(trust, 0.0, 0.0, level, seed, "trust {mean:.2f} from {n} rated cases"),
        "persona_satisfaction": _component(sat, 0.0, 0.0, level, seed,
                                           "satisfaction {mean:.2f} from {n} rated cases"),
    }
    s = ev.score(method)
    return {"method": method, "family": METHOD_FAMILY.get(method, ""),
            "recommendable": METHOD_FAMILY.get(method) not in NON_RECOMMENDABLE_FAMILIES,
            "qualifies": technical[method]["vs_baseline"]["qualifies"],
            "excluded": technical[method].get("excluded"),
            "status": _status(method, technical),
            "score": _f(s.mean), "score_ci_low": _f(s.ci_low), "score_ci_high": _f(s.ci_high),
            "components": components, "notes": list(technical[method]["concerns"])}


EXCLUDED_NOT_ABOVE_RANDOM = "excluded (does not beat random)"
"""How a method that failed the paired comparison with the random baseline is marked wherever it is listed."""


def _status(method: str, technical: dict) -> str | None:
    """``EXCLUDED_NOT_ABOVE_RANDOM`` for a real method that did not beat Random, else ``None``."""
    if method == BASELINE_METHOD:
        return None
    return EXCLUDED_NOT_ABOVE_RANDOM if technical[method]["vs_baseline"].get("qualifies") is False else None


def _eligible(alt: dict) -> bool:
    return alt["recommendable"] and alt["qualifies"] is not False and not alt["excluded"] and alt["score"] is not None


def _decide(alternatives: list[dict], ev: _Evidence, cfg: HexevalConfig, simulated: bool, parsimony) -> dict:
    """Winner, lead, paired comparisons and the parsimony tie-break among eligible alternatives."""
    alpha = 1 - cfg.evaluation.confidence_level
    pool = [a for a in alternatives if _eligible(a)]
    if not pool:
        return {"winner": None, "lead": "none", "runner_up": None, "comparisons": [], "tie_break": None, "notes": []}
    winner = pool[0]
    if len(pool) == 1:
        return {"winner": winner, "lead": "single_candidate", "runner_up": None, "comparisons": [],
                "tie_break": None, "notes": []}
    raw = [(a["method"], ev.compare(winner["method"], a["method"])) for a in pool[1:]]
    adjusted = holm([d.p_value for _, d in raw])
    comparisons = [{"method": m, "vs": winner["method"], "diff": _f(d.mean), "ci_low": _f(d.ci_low),
                    "ci_high": _f(d.ci_high), "p_value": _f(d.p_value), "p_holm": _f(p), "n": d.n}
                   for (m, d), p in zip(raw, adjusted)]
    runner = comparisons[0]
    significant = (runner["p_holm"] is not None and runner["p_holm"] < alpha and runner["ci_low"] is not None
                   and runner["ci_low"] > 0)
    notes = []
    lead = "clear" if significant else "close_call"
    if lead == "clear" and runner["n"] < MIN_UNITS_FOR_CLEAR:
        lead = "close_call"
        notes.append(f"only {runner['n']} paired units: at least {MIN_UNITS_FOR_CLEAR} are needed before a lead "
                     "can be called clear")
    if lead == "clear" and simulated and ev.wp > 0:
        lead = "close_call"
        notes.append("the persona ratings come from the simulated rater, which cannot establish a clear lead; "
                     "use an LLM or real people to test it")
    tie_break = None
    if lead == "close_call" and cfg.recommendations.weights.technical_parsimony > 0:
        winner, tie_break = _parsimony_tie_break(winner, pool, comparisons, ev, parsimony, alpha)
    runner_up = next(c["method"] for c in comparisons) if winner["method"] == pool[0]["method"] else pool[0]["method"]
    return {"winner": winner, "lead": lead, "runner_up": runner_up, "comparisons": comparisons,
            "tie_break": tie_break, "notes": notes}


def _parsimony_tie_break(winner, pool, comparisons, ev: _Evidence, parsimony: pd.DataFrame, alpha: float):
    """Among methods tied with the winner and as faithful as the most faithful, the most parsimonious."""
    tied = [winner] + [a for a, c in zip(pool[1:], comparisons) if c["p_holm"] is None or c["p_holm"] >= alpha]
    fid_means = {a["method"]: a["components"]["technical_fidelity"]["value"] for a in tied}
    best = max((m for m in fid_means if fid_means[m] is not None), key=lambda m: fid_means[m], default=None)
    if best is None or parsimony.empty:
        return winner, None
    as_faithful = []
    for a in tied:
        if a["method"] == best:
            as_faithful.append(a)
            continue
        d = composite_difference([(1.0, _column(ev.fidelity, best) - _column(ev.fidelity, a["method"]))],
                                 n_resamples=_RESAMPLES, confidence=1 - alpha, seed=ev.seed)
        if not (math.isfinite(d.p_value) and d.p_value < alpha and d.ci_low > 0):
            as_faithful.append(a)
    sizes = {a["method"]: float(np.nanmean(_column(parsimony, a["method"])))
             if a["method"] in parsimony.columns else math.inf for a in tied}
    choice = min(as_faithful, key=lambda a: (sizes[a["method"]], -(a["score"] or 0)))
    if choice is winner or not math.isfinite(sizes[choice["method"]]):
        return winner, None
    return choice, (f"{winner['method']} and {choice['method']} are tied on the evidence and equally faithful; "
                    f"{choice['method']} relies on fewer features ({sizes[choice['method']]:.1f} against "
                    f"{sizes[winner['method']]:.1f}), so it is recommended")


def _stakeholder(role, names, n_ratings, n_failed, ev: _Evidence, candidates, technical, weights, cfg,
                 simulated: bool, parsimony, blocked: str | None, narrative_source: str | None = None) -> dict:
    level, seed = cfg.evaluation.confidence_level, cfg.evaluation.random_state
    mode = "combined" if ev.wp > 0 else "technical_only"
    methods = candidates + ([BASELINE_METHOD] if BASELINE_METHOD in technical else [])
    alternatives = [_alternative(m, ev, weights, technical, level, seed) for m in methods]
    order = {m: i for i, m in enumerate(methods)}
    alternatives.sort(key=lambda a: (not a["recommendable"], not _eligible(a), a["score"] is None,
                                     -(a["score"] or 0.0), order[a["method"]]))
    for rank, alt in enumerate(alternatives, start=1):
        alt["rank"] = rank
        alt["ratings"] = {"n": alt["components"]["persona_trust"]["n"],
                          "trust_mean": _f(1 + 4 * alt["components"]["persona_trust"]["value"])
                          if alt["components"]["persona_trust"]["value"] is not None else None,
                          "satisfaction_mean": _f(1 + 4 * alt["components"]["persona_satisfaction"]["value"])
                          if alt["components"]["persona_satisfaction"]["value"] is not None else None}
    decision = ({"winner": None, "lead": "none", "runner_up": None, "comparisons": [], "tie_break": None, "notes": []}
                if blocked else _decide(alternatives, ev, cfg, simulated, parsimony))
    winner = decision["winner"]
    entry = {
        "persona_role": role, "persona_names": names,
        "title": role if role is not None else "All stakeholders (technical-only ranking)",
        "mode": mode, "n_ratings": int(n_ratings), "n_failed_ratings": int(n_failed),
        "n_units": int(len(ev.persona["score"])), "n_cases": int(len(ev.fidelity)),
        "recommended_method": winner["method"] if winner else None,
        "score": winner["score"] if winner else None,
        "score_ci_low": winner["score_ci_low"] if winner else None,
        "score_ci_high": winner["score_ci_high"] if winner else None,
        "lead": decision["lead"], "clear_lead": decision["lead"] == "clear", "runner_up": decision["runner_up"],
        "comparisons": decision["comparisons"], "tie_break": decision["tie_break"],
        "alternatives": alternatives, "notes": decision["notes"],
        "weights": _card_weights(ev, ev.persona.get("dimension_weights") or {}),
    }
    entry.update(_format(winner["method"] if winner else None, narrative_source, ev))
    entry["reason"] = blocked or ("" if winner else _no_winner_reason(alternatives))
    fill_words(entry, technical, level)
    return entry


def _card_weights(ev: _Evidence, dimension_weights: dict) -> dict:
    """The weights this stakeholder's score used: the two shares and the six dimensions (mean over its personas)."""
    total = ev.wf + ev.wp
    dims = {}
    if dimension_weights:
        for d in next(iter(dimension_weights.values())):
            dims[d] = float(np.mean([w[d] for w in dimension_weights.values()]))
    return {"technical": ev.wf / total if total else 0.0, "stakeholder": ev.wp / total if total else 0.0,
            "dimensions": dims}


def _format(method: str | None, narrative_source: str | None, ev: _Evidence) -> dict:
    """``recommended_format``: ``"narrative"`` when this stakeholder rated the narrative of ``method``
    above its plain form on the same cases (paired interval above 0), else ``"plain"``."""
    plain = {"recommended_format": "plain", "format_comparison": None}
    scores = ev.persona["score"]
    if method is None or method != narrative_source or NARRATIVE_METHOD not in getattr(scores, "columns", ()):
        return plain
    d = composite_difference([(1.0, _column(scores, NARRATIVE_METHOD) - _column(scores, method))],
                             n_resamples=_RESAMPLES, confidence=ev.level, seed=ev.seed)
    comparison = {"diff": _f(d.mean), "ci_low": _f(d.ci_low), "ci_high": _f(d.ci_high), "n": d.n}
    told = d.n > 0 and d.ci_low is not None and math.isfinite(d.ci_low) and d.ci_low > 0
    return {"recommended_format": "narrative" if told else "plain", "format_comparison": comparison}


def _no_winner_reason(alternatives: list[dict]) -> str:
    recommendable = [a for a in alternatives if a["recommendable"] and a["score"] is not None]
    if not recommendable:
        return "No explanation method could be evaluated: every method failed or none was enabled."
    if all(a["excluded"] for a in recommendable):
        return "Every method was excluded: " + "; ".join(f"{a['method']}: {a['excluded']}" for a in recommendable) + "."
    if all(a["qualifies"] is False or a["excluded"] for a in recommendable):
        n = max((a["components"]["technical_fidelity"]["n"] for a in recommendable), default=0)
        few = (f" With only {n} shared cases such a difference can hardly be shown: raise the number of cases "
               "every method explains (evaluation.sample_size and the Anchor and DiCE case limits)."
               if n < 10 else "")
        return ("No method's explanations were shown to be more faithful to the model than random feature weights "
                f"on these {n} cases (paired comparison with the random baseline), so none is recommended." + few)
    return "No method could be scored."


def _technical(long, per_instance, fidelity, parsimony, candidates, cfg, *, paired: bool) -> dict:
    level, seed = cfg.evaluation.confidence_level, cfg.evaluation.random_state
    versus = baseline_comparison(fidelity if paired else pd.DataFrame(), candidates, confidence=level, seed=seed)
    out = {}
    for m in candidates + ([BASELINE_METHOD] if BASELINE_METHOD in fidelity.columns else []):
        fid = fidelity_summary(fidelity, m)
        mean, low, high = mean_ci(fid, confidence=level, seed=seed)
        sizes = _column(parsimony, m)
        sizes = sizes[np.isfinite(sizes)] if len(sizes) else sizes
        pm, pl, ph = mean_ci(sizes, confidence=level, seed=seed)
        concerns, excluded = constraint_findings(long, per_instance, m, cfg) if m != BASELINE_METHOD else ([], None)
        vs = versus.get(m, {"qualifies": False if m == BASELINE_METHOD else None})
        out[m] = {"family": METHOD_FAMILY.get(m, ""),
                  "fidelity": {"value": _f(mean), "ci_low": _f(low), "ci_high": _f(high), "n": int(fid.size)},
                  "parsimony": {"value": _f(pm), "ci_low": _f(pl), "ci_high": _f(ph), "n": int(sizes.size),
                                "detail": (f"{pm:.1f} features relied on (not scored; breaks ties only)"
                                           if sizes.size else "not available")},
                  "vs_baseline": vs, "concerns": concerns, "excluded": excluded}
    return out


def _json_safe(obj):
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _f(obj)
    return obj


def generate_recommendations(technical: pd.DataFrame | None, ratings: pd.DataFrame | None, config=None, *,
                             per_instance: pd.DataFrame | None = None, warnings: list[dict] | None = None,
                             rater_kind: str | None = None, excluded: dict[str, str] | None = None,
                             narratives: dict | None = None,
                             persona_weights: dict[str, dict[str, float]] | None = None) -> dict:
    """Recommend an explanation method per stakeholder (persona role).

    Parameters
    ----------
    technical : DataFrame or None
        The technical metrics, wide (one row per method, with an ``error`` column) or long.
    ratings : DataFrame or None
        Persona ratings (``persona_name, persona_role, explanation_type, instance_id, trust,
        satisfaction, status, ...``). ``None``/empty/only failed ratings give a technical-only ranking.
    config : HexevalConfig, dict or None
        Weights (``recommendations.weights``), the level (``evaluation.confidence_level``), seeds.
    per_instance : DataFrame, optional
        The per-case metric values on the shared cases (``TechnicalResult.per_instance``). Without it
        nothing can be paired: methods are ranked by their means, no lead is called clear and
        qualification against the baseline is not tested (the notes say so).
    warnings : list of dict, optional
        Run warnings (``{"code", "message"}``); ``model_has_no_signal`` blocks every recommendation.
    rater_kind : str, optional
        ``"simulated"`` marks persona evidence that cannot establish a clear lead.
    excluded : dict, optional
        ``{method: reason}`` for methods excluded by an earlier stage.
    narratives : dict, optional
        ``{"source": method, "summary": narrative_summary(...)}`` when the run told narratives. A
        narrative is a way of telling its source, not a rival: it decides ``recommended_format``.
    persona_weights : dict, optional
        ``{persona_name: {dimension: weight}}`` (``Persona.weights()``); personas not in it use the
        professional default.

    Returns
    -------
    dict
        See the module docstring.
    """
    cfg = _config(config)
    plan = _Plan(cfg=cfg, weights=_share_weights(cfg), long=as_long(technical), warnings=list(warnings or []))
    _exclude_failed_methods(plan, technical, excluded)
    _note_deprecated_weights(plan)
    _choose_candidates(plan)
    fidelity, plan.source = case_fidelity(per_instance)
    plan.parsimony = case_parsimony(per_instance)
    narrative_view = _narrative_view(plan, narratives, fidelity, ratings)
    plan.fidelity = _fidelity_for_ranking(plan, fidelity)
    plan.technical_view = _technical(plan.long, per_instance, plan.fidelity, plan.parsimony, plan.candidates, cfg,
                                     paired=plan.source != "none")
    if narrative_view is not None and (narratives or {}).get("source") in plan.technical_view:
        plan.technical_view[narratives["source"]]["told_as_narrative"] = narrative_view
    plan.blocked = next((w["message"] for w in plan.warnings if w.get("code") == "model_has_no_signal"), None)
    mode, stakeholders = _stakeholder_entries(plan, usable_ratings(ratings), rater_kind == "simulated",
                                              persona_weights)
    return _json_safe({
        "mode": mode, "weights": plan.weights, "confidence_level": cfg.evaluation.confidence_level,
        "methods": plan.candidates,
        "baseline": BASELINE_METHOD if BASELINE_METHOD in plan.technical_view else None,
        "fidelity_source": plan.source, "n_shared_cases": int(len(plan.fidelity)) if plan.source != "none" else 0,
        "excluded_methods": plan.excluded_methods, "warnings": plan.warnings, "technical": plan.technical_view,
        "components": list(ALL_COMPONENTS), "stakeholders": stakeholders, "notes": plan.notes,
    })


@dataclass
class _Plan:
    """What :func:`generate_recommendations` has settled so far, passed from one step to the next.

    Attributes
    ----------
    cfg : HexevalConfig
    weights : dict
        ``technical``, ``stakeholder`` (the two shares) and ``technical_parsimony``.
    long : DataFrame
        The technical metrics in long form.
    warnings : list of dict
        The run warnings, as given.
    excluded_methods : list of dict
        ``{"method", "reason"}`` per method left out, in the order they were found.
    notes : list of str
        The notes of the result, in the order they were written.
    candidates : list of str
        Methods that can be recommended.
    source : str
        Where per-case fidelity came from (``case_fidelity``).
    fidelity, parsimony : DataFrame
        Per-case fidelity (or the means as one pseudo-case) and per-case feature counts.
    narrative_source : str or None
        The method whose narrative competes as a format, if any.
    technical_view : dict
        Per-method technical summary (``_technical``).
    blocked : str or None
        Why no recommendation may be made at all (a ``model_has_no_signal`` warning), if so.
    """

    cfg: HexevalConfig
    weights: dict
    long: pd.DataFrame
    warnings: list
    excluded_methods: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    candidates: list = field(default_factory=list)
    source: str = "none"
    fidelity: pd.DataFrame | None = None
    parsimony: pd.DataFrame | None = None
    narrative_source: str | None = None
    technical_view: dict = field(default_factory=dict)
    blocked: str | None = None


def _share_weights(cfg: HexevalConfig) -> dict:
    """The technical and stakeholder shares and the parsimony weight from ``recommendations.weights``."""
    wcfg = cfg.recommendations.weights
    return {"technical": wcfg.technical_share(), "stakeholder": wcfg.stakeholder_share(),
            "technical_parsimony": wcfg.technical_parsimony}


def _exclude_failed_methods(plan: _Plan, technical, excluded: dict[str, str] | None) -> None:
    """Exclude methods that failed in the technical evaluation or were excluded by an earlier stage."""
    errors = method_errors(technical)
    plan.excluded_methods += [{"method": m, "reason": f"{m} failed in the technical evaluation: {errors[m]}"}
                              for m in methods_in(technical) if m in errors]
    plan.excluded_methods += [{"method": m, "reason": r} for m, r in (excluded or {}).items()]
    plan.notes += [e["reason"] + "; it is excluded from the recommendations." for e in plan.excluded_methods]


def _note_deprecated_weights(plan: _Plan) -> None:
    """Note that ``recommendations.weights`` uses older keys, if it does."""
    wcfg = plan.cfg.recommendations.weights
    if wcfg.deprecated_keys():
        plan.notes.append("recommendations.weights uses the older keys " + ", ".join(wcfg.deprecated_keys())
                          + "; they are read as the technical and stakeholder shares; write technical and "
                            "stakeholder instead (each stakeholder's dimensions are weighed by its persona's "
                            "dimension_weights)")


def _choose_candidates(plan: _Plan) -> None:
    """The recommendable methods with technical values; those without any are excluded with a note."""
    blocked_names = {e["method"] for e in plan.excluded_methods}
    long = plan.long
    for m in methods_in(long):
        if m in blocked_names or METHOD_FAMILY.get(m) in NON_RECOMMENDABLE_FAMILIES:
            continue
        if long[long["method"] == m]["value"].notna().any():
            plan.candidates.append(m)
        else:
            plan.excluded_methods.append({"method": m, "reason": f"{m} has no technical metric values"})
            plan.notes.append(f"{m} has no technical metric values and is excluded from the recommendations.")


def _narrative_view(plan: _Plan, narratives: dict | None, fidelity: pd.DataFrame, ratings) -> dict | None:
    """The narrators' summary (or ``None``); sets ``plan.narrative_source`` when the narrative competes as a format."""
    narrative_view = None
    if narratives and narratives.get("summary"):
        narrative_view, reason = _narrative_candidate(narratives, fidelity, ratings)
        if reason:
            plan.excluded_methods.append({"method": NARRATIVE_METHOD, "reason": reason})
            plan.notes.append(f"{NARRATIVE_METHOD}: {reason}; it is excluded from the recommendations.")
    plan.narrative_source = (narratives["source"] if narrative_view is not None and not any(
        e["method"] == NARRATIVE_METHOD for e in plan.excluded_methods) else None)
    return narrative_view


def _fidelity_for_ranking(plan: _Plan, fidelity: pd.DataFrame) -> pd.DataFrame:
    """Per-case fidelity, or the means as one pseudo-case without per-case values; notes what is missing."""
    if plan.source == "none":
        plan.notes.append("No per-case metric values were available, so methods could not be compared case by "
                          "case: no lead is called clear and the random baseline comparison is not tested.")
        fidelity = _means_as_single_case(plan.long, plan.candidates)
    elif plan.source == "raw":
        plan.notes.append("This run has only the raw deletion/insertion areas; fidelity uses them un-normalised.")
    if BASELINE_METHOD not in fidelity.columns:
        plan.notes.append("This run has no random baseline, so no method could be checked against it.")
    return fidelity


def _stakeholder_entries(plan: _Plan, rated: pd.DataFrame, simulated: bool,
                         persona_weights: dict | None) -> tuple[str, dict[str, dict]]:
    """The mode (``combined`` or ``technical_only``) and one entry per stakeholder role (or one for all)."""
    for m in sorted(set(rated["method"]) - set(plan.candidates) - {BASELINE_METHOD}
                    - ({NARRATIVE_METHOD} if plan.narrative_source else set())):
        plan.notes.append(f"ratings of {m} are ignored: it is not among the methods that can be recommended")
    methods = plan.candidates + ([BASELINE_METHOD] if BASELINE_METHOD in plan.technical_view else [])
    usable = rated[rated["usable"] & rated["method"].isin(methods)]
    if len(usable):
        return "combined", _per_role(plan, rated, methods, simulated, persona_weights)
    n_failed = int((~rated["usable"]).sum())
    if len(rated):
        plan.notes.append(f"no usable persona rating ({n_failed} failed or incomplete); the ranking is technical only")
    ev = _evidence(plan, unit_ratings(rated.iloc[0:0], "", methods))
    only = _stakeholder(None, [], 0, n_failed, ev, plan.candidates, plan.technical_view, plan.weights, plan.cfg,
                        simulated, plan.parsimony, plan.blocked)
    return "technical_only", {only["title"]: only}


def _per_role(plan: _Plan, rated: pd.DataFrame, methods: list[str], simulated: bool,
              persona_weights: dict | None) -> dict[str, dict]:
    """One entry per persona role, from its ratings and the shared technical evidence."""
    stakeholders: dict[str, dict] = {}
    for role in sorted(rated["role"].unique()):
        of_role = rated[rated["role"] == role]
        names = sorted(of_role["persona_name"].dropna().astype(str).unique())
        persona = unit_ratings(rated, role, methods + ([NARRATIVE_METHOD] if plan.narrative_source else []),
                               dimension_weights=persona_weights)
        if not len(persona["score"]):
            plan.notes.append(f"no usable rating from {role}; its entry is a technical-only ranking")
        stakeholders[role] = _stakeholder(role, names, int(of_role["usable"].sum()), int((~of_role["usable"]).sum()),
                                          _evidence(plan, persona), plan.candidates, plan.technical_view,
                                          plan.weights, plan.cfg, simulated, plan.parsimony, plan.blocked,
                                          plan.narrative_source)
    return stakeholders


def _evidence(plan: _Plan, persona: dict) -> _Evidence:
    """One stakeholder's evidence: the shared per-case fidelity and its persona scores."""
    return _Evidence(plan.fidelity, persona, (plan.weights["technical"], plan.weights["stakeholder"]),
                     plan.cfg.evaluation.confidence_level, plan.cfg.evaluation.random_state)


def _narrative_candidate(narratives: dict, fidelity: pd.DataFrame, ratings) -> tuple[dict | None, str | None]:
    """The narrators' faithfulness summary, and why the narrative cannot be a candidate (or ``None``)."""
    summary, src = narratives["summary"], narratives.get("source", "SHAP")
    view = {"source": src, "narrators": summary}
    failing = {name: s["reason"] for name, s in summary.items() if not s.get("recommendable")}
    if failing:
        return view, "its narratives did not pass the faithfulness checks (" + "; ".join(
            f"{name} narrator: {reason}" for name, reason in failing.items()) + ")"
    if src not in getattr(fidelity, "columns", ()):
        return view, f"its source ({src}) has no per-case fidelity to stand on"
    rated = ratings is not None and len(ratings) and "explanation_type" in ratings.columns and \
        ratings["explanation_type"].map(canonical_method).eq(NARRATIVE_METHOD).any()
    if not rated:
        return view, "no persona rated the narratives"
    return view, None


def _means_as_single_case(long: pd.DataFrame, methods) -> pd.DataFrame:
    """Without per-case values: each method's mean fidelity as one pseudo-case (nothing can be tested)."""
    values = {}
    for m in [*methods, BASELINE_METHOD]:
        rows = long[long["method"] == m].set_index("metric")["value"]
        if "technical_claim_score" in rows.index:
            values[m] = rows["technical_claim_score"]
        elif "fidelity_combined" in rows.index:
            values[m] = rows["fidelity_combined"]
        elif {"fidelity_insertion", "fidelity_deletion"} <= set(rows.index):
            values[m] = (1 + rows["fidelity_insertion"] - rows["fidelity_deletion"]) / 2
    return pd.DataFrame([values]) if values else pd.DataFrame()
