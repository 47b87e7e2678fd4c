"""Recommend an explanation method per stakeholder from measured evidence on the questions they ask.

How a recommendation is made (``docs/recommendations.md`` explains it for readers)
---------------------------------------------------------------------------------
1. **One shared set of cases.** Every method (and the ``Random`` baseline) was measured on the same cases.
2. **Evidence per question.** On each case every method has a *skill* on each of the four questions (why,
   what if, will it hold, how to change it): its reader's score minus that of a reader who saw no explanation,
   at the common size of the case (``metrics/questions``; :mod:`.question_evidence`).
3. **The stakeholder's questions.** Each persona declares how much it needs each question answered
   (``questions:`` in the persona file, with a reason; equal weights when it declares none). A role's weights
   are the mean of its personas'. The measured score of a method for the stakeholder is, per case, the
   question-weighted skill; its mean and interval are over the shared cases.
4. **Beat Random.** A method qualifies for a stakeholder only when its weighted skill beats the Random
   explanation's on the same cases (paired; Holm-corrected across the methods; interval above 0).
5. **Clear lead or close call.** The best qualifying method is compared with every other qualifying method
   on the same cases; p-values are Holm-corrected. The lead is **clear** when the corrected p-value against
   the runner-up is below ``1 - confidence_level``, the interval of the paired difference excludes 0 and at
   least :data:`MIN_UNITS_FOR_CLEAR` cases stand behind it. Otherwise it is a **close call** and the card lists
   every method the evidence cannot separate from it. There is no hidden tie-break.
6. **The deciding question.** The card names the question that contributed most to the lead (weight times
   the difference of skills) and says what its evidence shows, in numbers.
7. **Perceived is not measured.** Ratings (simulated, LLM or people) are perceived usefulness. They are shown
   beside the measured answer; where the stakeholder rated another method highest, the card says so. Only
   people's ratings enter the score, with the configured ``recommendations.weights.stakeholder`` share;
   simulated ratings never do; LLM ratings do not until the judge checks pass (not run here: the card says so).
8. **No signal, no advice.** With the warning ``model_has_no_signal`` nothing is recommended.
9. **Narratives** retell their source: a narrative is a way of telling, never a candidate. When people rated a
   narrative above its source's plain form (paired interval above 0), ``recommended_format`` is ``narrative``.
10. Family-specific findings (rule precision on held-out cases, counterfactual validity, plausibility) raise
    concerns or exclude a method; they add no points.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..config.schema import HexevalConfig
from ..explanation import BASELINE_METHOD, NARRATIVE_METHOD
from ..metrics.table import as_long, canonical_method, canonical_methods, method_errors, methods_in
from ..paired_stats import composite_difference, holm, mean_ci, smallest_p
from .checks import constraint_findings
from .evidence import unit_ratings_by_role, usable_ratings
from .question_evidence import QUESTIONS, has_question_evidence, question_tables, support_tables, weighted_skill
from .sentences import close_call_sentence, deciding_sentence, gap_sentence
from .wording import fill_words

__all__ = ["MIN_UNITS_FOR_CLEAR", "canonical_method", "generate_recommendations"]

#: Fewer paired cases than this can never make a clear lead.
MIN_UNITS_FOR_CLEAR = 8
_RESAMPLES = 2000
#: The rater kinds whose ratings may enter the score (people); the others are shown as perceived only.
PEOPLE = frozenset({"human", "people", "study"})
_SUPPORT = ("why_move_common", "what_if_balanced_accuracy_common", "will_it_hold_precision_common",
            "will_it_hold_coverage_common", "how_to_change_success_common", "shown_size_common")
_SOURCE_WORDS = {"simulated": "simulated ratings", "openai": "LLM ratings", "llm": "LLM ratings"}
EQUAL = {q: 1 / len(QUESTIONS) for q in QUESTIONS}


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


def _col(table: pd.DataFrame, method: str) -> np.ndarray:
    return table[method].to_numpy(float) if method in getattr(table, "columns", ()) else np.array([])


def ratings_source(rater_kind: str | None) -> str:
    """How the ratings' source is named on a card: ``people's ratings``, ``LLM ratings``, ``simulated ratings``."""
    if rater_kind in PEOPLE:
        return "people's ratings"
    return _SOURCE_WORDS.get(str(rater_kind or ""), "ratings")


@dataclass
class Stakeholder:
    """A role: its personas, its question weights and the reason they declared for them."""

    role: str | None
    names: list = field(default_factory=list)
    weights: dict = field(default_factory=lambda: dict(EQUAL))
    reasons: list = field(default_factory=list)
    declared: bool = False


def stakeholders_from(persona_questions: dict | None, rated: pd.DataFrame) -> list[Stakeholder]:
    """One stakeholder per role: from the personas' declared questions, then roles only the ratings name.

    ``persona_questions``: ``{persona name: {"role", "weights": {question: w}, "reason", "declared"}}``.
    """
    by_role: dict[str, list] = {}
    for name, q in (persona_questions or {}).items():
        by_role.setdefault(str(q.get("role") or name), []).append((name, q))
    out = []
    for role, members in by_role.items():
        weights = {qn: float(np.mean([m[1]["weights"].get(qn, 0.0) for m in members])) for qn in QUESTIONS}
        total = sum(weights.values()) or 1.0
        out.append(Stakeholder(role, sorted(n for n, _ in members), {k: v / total for k, v in weights.items()},
                               sorted({m[1].get("reason") for m in members if m[1].get("reason")}),
                               any(m[1].get("declared") for m in members)))
    for role in sorted(set(rated["role"].astype(str)) - set(by_role)) if len(rated) else []:
        names = sorted(rated.loc[rated["role"] == role, "persona_name"].dropna().astype(str).unique())
        out.append(Stakeholder(role, names))
    return out or [Stakeholder(None)]


class _Measured:
    """One stakeholder's per-case measured scores (question-weighted skill) of every method.

    ``question_stats``: :func:`question_stats` of the run (the same for every stakeholder), read by
    :meth:`question_summary`."""

    def __init__(self, tables: dict, weights: dict, methods: list[str], people: dict | None, people_share: float,
                 level: float, seed: int, question_stats: dict):
        self.tables, self.weights, self.level, self.seed = tables, weights, level, seed
        self.stats = question_stats
        self.cases = weighted_skill(tables, weights, methods)
        self.people = people  # persona units × methods (people's ratings on 0-1), or None
        self.share = people_share if people is not None and len(people) else 0.0

    def parts(self, a: str, b: str | None = None) -> list:
        def diff(table):
            x = _col(table, a)
            if b is None or not len(x):
                return x
            y = _col(table, b)
            return x - y if len(y) else np.array([])
        parts = [(1.0 - self.share, diff(self.cases))]
        if self.share > 0:
            parts.append((self.share, diff(self.people)))
        return parts

    def score(self, method: str):
        return composite_difference(self.parts(method), n_resamples=_RESAMPLES, confidence=self.level, seed=self.seed)

    def compare(self, a: str, b: str):
        return composite_difference(self.parts(a, b), n_resamples=_RESAMPLES, confidence=self.level, seed=self.seed)

    def question_summary(self, method: str) -> dict:
        return {q: {**self.stats[method][q], "weight": float(self.weights.get(q, 0.0))} for q in QUESTIONS}

    def deciding_question(self, winner: str, other: str | None) -> str:
        """The question with the largest weighted contribution to the winner's lead (or to its own skill)."""
        best, best_value = QUESTIONS[0], -math.inf
        for q in QUESTIONS:
            table = self.tables[q]
            cols = [winner] + ([other] if other else [])
            if any(c not in table.columns for c in cols):
                continue
            both = table[cols].dropna()
            if both.empty:
                continue
            gap = both[winner].mean() - (both[other].mean() if other else 0.0)
            value = self.weights.get(q, 0.0) * gap
            if value > best_value:
                best, best_value = q, value
        return best


def question_stats_of(tables: dict, methods: list[str], level: float, seed: int) -> dict:
    """Per method and question, the mean skill over the cases with its interval and count: what every card and the
    run's question evidence show (it does not depend on the stakeholder's weights)."""
    out = {}
    for method in methods:
        out[method] = {}
        for q in QUESTIONS:
            values = _col(tables[q], method)
            values = values[np.isfinite(values)] if len(values) else values
            mean, low, high = mean_ci(values, confidence=level, seed=seed)
            out[method][q] = {"value": _f(mean), "ci_low": _f(low), "ci_high": _f(high), "n": int(values.size)}
    return out


def _perceived(units_by_role, role: str | None, methods: list[str], level: float,
               seed: int) -> tuple[dict, pd.DataFrame]:
    """Per method the stakeholder's perceived score (0-1 and on 1-5) and the per-unit table.

    ``units_by_role``: the run's :func:`~.evidence.unit_ratings_by_role` (``None`` without ratings)."""
    if role is None or units_by_role is None:
        return {}, pd.DataFrame(columns=methods)
    units = units_by_role[role]
    score = units["score"]
    out = {}
    for m in methods:
        values = _col(score, m)
        values = values[np.isfinite(values)] if len(values) else values
        if not values.size:
            continue
        mean, low, high = mean_ci(values, confidence=level, seed=seed)
        out[m] = {"value": _f(mean), "ci_low": _f(low), "ci_high": _f(high), "n": int(values.size),
                  "on_five": _f(1 + 4 * mean)}
    return out, score


def _gate(measured: _Measured, candidates: list[str], alpha: float) -> dict:
    """Paired comparison of each candidate with Random on this stakeholder's measured score (Holm-corrected)."""
    if BASELINE_METHOD not in measured.cases.columns:
        return {m: {"diff": None, "ci_low": None, "ci_high": None, "p_value": None, "p_holm": None, "n": 0,
                    "qualifies": None} for m in candidates}
    raw = {m: measured.compare(m, BASELINE_METHOD) for m in candidates}
    adjusted = dict(zip(raw, holm([d.p_value for d in raw.values()])))
    out = {}
    for m, d in raw.items():
        p = adjusted[m]
        qualifies = bool(d.n > 1 and math.isfinite(d.ci_low) and d.ci_low > 0 and p is not None
                         and math.isfinite(p) and p < alpha)
        out[m] = {"diff": _f(d.mean), "ci_low": _f(d.ci_low), "ci_high": _f(d.ci_high), "p_value": _f(d.p_value),
                  "p_holm": _f(p), "n": int(d.n), "qualifies": qualifies}
    return out


def _alternative(method: str, measured: _Measured, vs: dict | None, perceived: dict, technical: dict) -> dict:
    s = measured.score(method)
    recommendable = method != BASELINE_METHOD and technical.get(method, {}).get("recommendable", True)
    questions = measured.question_summary(method)
    components = {"measured": {"value": _f(s.mean), "ci_low": _f(s.ci_low), "ci_high": _f(s.ci_high),
                               "weight": 1.0 - measured.share, "n": int(s.n)}}
    components.update({q: {**v, "weight": v["weight"] * (1.0 - measured.share)} for q, v in questions.items()})
    if method in perceived:
        components["perceived"] = {**perceived[method], "weight": measured.share}
    return {"method": method, "family": technical.get(method, {}).get("family", ""),
            "recommendable": recommendable,
            "qualifies": None if vs is None else vs["qualifies"], "vs_baseline": vs,
            "excluded": technical.get(method, {}).get("excluded"),
            "status": ("excluded (does not beat random)" if vs is not None and vs["qualifies"] is False
                       and recommendable else None),
            "score": _f(s.mean), "score_ci_low": _f(s.ci_low), "score_ci_high": _f(s.ci_high),
            "components": components, "questions": questions,
            "ratings": {"n": perceived.get(method, {}).get("n", 0),
                        "perceived_mean": perceived.get(method, {}).get("on_five")},
            "n_cases": int(s.n) if measured.share == 0 else int(np.isfinite(_col(measured.cases, method)).sum()),
            "n_ratings": int(perceived.get(method, {}).get("n", 0)),
            "notes": list(technical.get(method, {}).get("concerns", []))}


def _eligible(alt: dict) -> bool:
    return alt["recommendable"] and alt["qualifies"] is not False and not alt["excluded"] and alt["score"] is not None


def _decide(alternatives: list[dict], measured: _Measured, alpha: float) -> dict:
    """The best qualifying method, compared with every other method that could be shown (qualifying or not)."""
    pool = [a for a in alternatives if _eligible(a)]
    none = {"winner": None, "lead": "none", "runner_up": None, "comparisons": [], "tied": [], "notes": []}
    if not pool:
        return none
    winner = pool[0]
    rivals = [a for a in alternatives if a is not winner and a["recommendable"] and not a["excluded"]
              and a["score"] is not None]
    if not rivals:
        return {**none, "winner": winner, "lead": "single_candidate"}
    raw = [(a["method"], measured.compare(winner["method"], a["method"])) for a in rivals]
    adjusted = holm([d.p_value for _, d in raw])
    floor = smallest_p(_RESAMPLES) + 1e-12  # no resample crossed 0: the p-value is an upper bound ("p ≤ 0.003")
    comparisons = [{"method": m, "vs": winner["method"], "diff": _f(d.mean), "ci_low": _f(d.ci_low),
                    "ci_high": _f(d.ci_high), "p_value": _f(d.p_value), "p_holm": _f(p), "n": int(d.n),
                    "p_at_floor": bool(math.isfinite(d.p_value) and d.p_value <= floor)}
                   for (m, d), p in zip(raw, adjusted)]
    runner = comparisons[0]

    def separated(c):
        return c["p_holm"] is not None and c["p_holm"] < alpha and c["ci_low"] is not None and c["ci_low"] > 0

    notes = []
    lead = "clear" if separated(runner) else "close_call"
    if lead == "clear" and runner["n"] < MIN_UNITS_FOR_CLEAR:
        lead = "close_call"
        notes.append(f"only {runner['n']} paired cases: at least {MIN_UNITS_FOR_CLEAR} are needed before a lead "
                     "can be called clear")
    tied = [c["method"] for c in comparisons if not separated(c) or c["n"] < MIN_UNITS_FOR_CLEAR]
    return {"winner": winner, "lead": lead, "runner_up": runner["method"], "comparisons": comparisons,
            "tied": tied if lead == "close_call" else [], "notes": notes}


def _stakeholder(who: Stakeholder, plan: "_Plan", rated: pd.DataFrame) -> dict:
    cfg = plan.cfg
    level, seed = cfg.evaluation.confidence_level, cfg.evaluation.random_state
    alpha = 1 - level
    methods = plan.candidates + ([BASELINE_METHOD] if plan.has_baseline else [])
    perceived, units = _perceived(plan.units, who.role, methods, level, seed)
    people = plan.rater_kind in PEOPLE and bool(perceived)
    measured = _Measured(plan.tables, who.weights, methods, units if people else None,
                         plan.people_share if people else 0.0, level, seed, plan.question_stats)
    gate = _gate(measured, plan.candidates, alpha)
    alternatives = [_alternative(m, measured, gate.get(m), perceived, plan.technical) for m in methods]
    order = {m: i for i, m in enumerate(methods)}
    alternatives.sort(key=lambda a: (not a["recommendable"], not _eligible(a), a["score"] is None,
                                     -(a["score"] or 0.0), order[a["method"]]))
    for rank, alt in enumerate(alternatives, start=1):
        alt["rank"] = rank
    decision = (_decide(alternatives, measured, alpha) if not plan.blocked else
                {"winner": None, "lead": "none", "runner_up": None, "comparisons": [], "tied": [], "notes": []})
    winner = decision["winner"]
    entry = {
        "persona_role": who.role, "persona_names": who.names,
        "title": who.role if who.role is not None else "All stakeholders (equal weight on every question)",
        "mode": "measured_and_people" if people else "measured",
        "questions": who.weights, "questions_declared": who.declared, "questions_reason": "; ".join(who.reasons),
        "n_ratings": int((rated["role"] == who.role).sum()) if len(rated) and who.role else 0,
        "n_failed_ratings": int(((rated["role"] == who.role) & ~rated["usable"]).sum()) if len(rated) and who.role
        else 0,
        "n_units": int(len(units)), "n_cases": int(measured.cases.dropna(how="all").shape[0]),
        "recommended_method": winner["method"] if winner else None,
        "score": winner["score"] if winner else None,
        "score_ci_low": winner["score_ci_low"] if winner else None,
        "score_ci_high": winner["score_ci_high"] if winner else None,
        "lead": decision["lead"], "clear_lead": decision["lead"] == "clear", "runner_up": decision["runner_up"],
        "comparisons": decision["comparisons"], "tied": decision["tied"], "tie_break": None,
        "alternatives": alternatives, "notes": list(decision["notes"]),
        "weights": {"measured": 1.0 - measured.share, "people": measured.share, "questions": who.weights},
        "ratings_source": plan.source_words if perceived else None,
        "perceived": {m: v for m, v in perceived.items()},
        "per_question": {a["method"]: a["questions"] for a in alternatives},
    }
    entry.update(_format(winner["method"] if winner else None, plan, units if people else None, level, seed))
    entry["reason"] = plan.blocked or ("" if winner else _no_winner_reason(alternatives, entry["n_cases"]))
    _explain(entry, measured, plan, perceived)
    fill_words(entry, plan.technical, level)
    return entry


def _explain(entry: dict, measured: _Measured, plan: "_Plan", perceived: dict) -> None:
    """The deciding question and its sentence, the close call's list and the perceived-versus-measured gap."""
    method = entry["recommended_method"]
    entry["deciding_question"], entry["decided_by"], entry["gap"] = None, None, None
    if method is None:
        return
    other = entry["runner_up"]
    q = measured.deciding_question(method, other)
    entry["deciding_question"] = q
    entry["decided_by"] = deciding_sentence(q, method, other, plan.support)
    if entry["lead"] == "close_call" and len(entry["tied"]) > 1:  # the lead sentence already names the runner-up
        entry["notes"].append(close_call_sentence([method, *entry["tied"]]))
    rated = {m: v for m, v in perceived.items() if m in plan.candidates and v.get("value") is not None}
    if rated:
        top = max(v["value"] for v in rated.values())
        best = [m for m in rated if abs(rated[m]["value"] - top) < 1e-9]  # methods rated alike are named together
        if method not in best:
            baseline = perceived.get(BASELINE_METHOD) or {}
            entry["gap"] = gap_sentence(entry["title"], best, method, plan.source_words, rated[best[0]]["on_five"],
                                        baseline.get("on_five") if baseline.get("value") is not None else None)


def _format(method: str | None, plan: "_Plan", people: pd.DataFrame | None, level: float, seed: int) -> dict:
    """``recommended_format``: ``narrative`` when people rated the narrative of ``method`` above its plain form."""
    plain = {"recommended_format": "plain", "format_comparison": None}
    if method is None or method != plan.narrative_source or people is None \
            or NARRATIVE_METHOD not in getattr(people, "columns", ()):
        return plain
    d = composite_difference([(1.0, _col(people, NARRATIVE_METHOD) - _col(people, method))],
                             n_resamples=_RESAMPLES, confidence=level, seed=seed)
    comparison = {"diff": _f(d.mean), "ci_low": _f(d.ci_low), "ci_high": _f(d.ci_high), "n": d.n}
    told = d.n > 0 and d.ci_low is not None and math.isfinite(d.ci_low) and d.ci_low > 0
    return {"recommended_format": "narrative" if told else "plain", "format_comparison": comparison}


def _no_winner_reason(alternatives: list[dict], n: int) -> str:
    recommendable = [a for a in alternatives if a["recommendable"] and a["score"] is not None]
    if not recommendable:
        return "No explanation method could be evaluated: every method failed or none was enabled."
    if all(a["excluded"] for a in recommendable):
        return "Every method was excluded: " + "; ".join(f"{a['method']}: {a['excluded']}" for a in recommendable) + "."
    few = (f" With only {n} shared cases such a difference can hardly be shown: raise evaluation.sample_size and "
           "the methods' case limits." if n < 10 else "")
    return ("No method answered this stakeholder's questions better than random explanations on these "
            f"{n} cases (paired comparison with the random baseline), so none is recommended." + few)


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


@dataclass
class _Plan:
    """What :func:`generate_recommendations` settled before the stakeholders: shared by every card."""

    cfg: HexevalConfig
    long: pd.DataFrame
    warnings: list
    rater_kind: str | None = None
    excluded_methods: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    candidates: list = field(default_factory=list)
    tables: dict = field(default_factory=dict)
    support: dict = field(default_factory=dict)
    has_baseline: bool = False
    technical: dict = field(default_factory=dict)
    blocked: str | None = None
    narrative_source: str | None = None
    people_share: float = 0.0
    source_words: str = "ratings"
    question_stats: dict = field(default_factory=dict)  # question_stats_of the shown methods (every card's)
    units: dict | None = None  # unit_ratings_by_role of the usable ratings (None without ratings)


def generate_recommendations(technical: pd.DataFrame | None, ratings: pd.DataFrame | None, config=None, *,
                             per_instance: pd.DataFrame | None = None, warnings: list[dict] | None = None,
                             rater_kind: str | None = None, excluded: dict[str, str] | None = None,
                             narratives: dict | None = None,
                             persona_weights: dict[str, dict[str, float]] | None = None,
                             persona_questions: dict | None = None, families: dict | None = None,
                             technical_evidence: dict | None = None) -> dict:
    """Recommend an explanation method per stakeholder from the questions they ask.

    Parameters
    ----------
    technical : DataFrame or None
        The technical metrics, wide (one row per method, with ``error`` and ``family`` columns) or long.
    ratings : DataFrame or None
        Persona ratings (``persona_name, persona_role, explanation_type, instance_id``, the six dimensions,
        ``status``): perceived usefulness, shown beside the measured answer.
    config : HexevalConfig, dict or None
        ``evaluation.confidence_level``, seeds, ``recommendations.weights.stakeholder`` (people's share).
    per_instance : DataFrame, optional
        The per-case metric values on the shared cases, with the question skills (``skill_<q>_common``).
    warnings : list of dict, optional
        Run warnings; ``model_has_no_signal`` blocks every recommendation.
    rater_kind : str, optional
        Where the ratings come from (``simulated``, ``openai``, ``human``): only people's enter the score.
    excluded : dict, optional
        ``{method: reason}`` for methods excluded by an earlier stage.
    narratives : dict, optional
        ``{"source": method, "summary": narrative_summary(...)}`` when the run told narratives.
    persona_weights : dict, optional
        ``{persona_name: {dimension: weight}}``: how each persona's six ratings make its perceived score.
    persona_questions : dict, optional
        ``{persona_name: {"role", "weights", "reason", "declared"}}`` (``Persona.question_weights()``); without
        it, every rated role (or, with no ratings, one entry for all stakeholders) weighs the questions equally.
    families : dict, optional
        ``{method: family}``; default from the technical table's ``family`` column.
    technical_evidence : dict, optional
        :func:`technical_evidence_of` these ``technical``, ``per_instance``, ``config``, ``excluded`` and
        ``families``, computed before (it reads no rating, persona or warning; ``evaluate`` keeps it with the
        technical stage). Default: computed here.
    """
    cfg = _config(config)
    shared = (copy.deepcopy(technical_evidence) if technical_evidence is not None  # the caller's stays as it was
              else technical_evidence_of(technical, per_instance, cfg, excluded=excluded, families=families))
    plan = _Plan(cfg=cfg, long=shared["long"], warnings=list(warnings or []), rater_kind=rater_kind,
                 source_words=ratings_source(rater_kind),
                 people_share=float(cfg.recommendations.weights.stakeholder_share()))
    for name in _SHARED_FIELDS:
        setattr(plan, name, shared[name])
    plan.blocked = plan.blocked or next((w["message"] for w in plan.warnings
                                         if w.get("code") == "model_has_no_signal"), None)
    plan.narrative_source = _narrative_source(plan, narratives)
    rated = usable_ratings(ratings)
    if len(rated) and rater_kind not in PEOPLE:
        plan.notes.append(f"The {plan.source_words} are shown as how each stakeholder perceives the explanations; "
                          "they do not enter the recommendation"
                          + (" (LLM ratings enter only after the judge checks pass: label swap and test-retest, "
                             "which this run did not run)" if plan.source_words == "LLM ratings" else "") + ".")
    if len(rated):  # every stakeholder's rated units, in one pass
        shown = plan.candidates + ([BASELINE_METHOD] if plan.has_baseline else [])
        plan.units = unit_ratings_by_role(rated, shown + [NARRATIVE_METHOD], dimension_weights=persona_weights)
    evidence = shared["question_evidence"]
    people = stakeholders_from(persona_questions, rated)
    stakeholders = {}
    for who in people:
        entry = _stakeholder(who, plan, rated)
        stakeholders[entry["title"]] = entry
    return _json_safe({
        "mode": "questions", "basis": "questions", "confidence_level": cfg.evaluation.confidence_level,
        "methods": plan.candidates, "baseline": BASELINE_METHOD if plan.has_baseline else None,
        "n_shared_cases": int(max((len(t.dropna(how="all")) for t in plan.tables.values()), default=0)),
        "excluded_methods": plan.excluded_methods, "warnings": plan.warnings, "technical": plan.technical,
        "ratings_source": plan.source_words if len(rated) else None, "rater_kind": rater_kind,
        "stakeholders": stakeholders, "notes": plan.notes, "question_evidence": evidence,
    })


#: The :class:`_Plan` fields :func:`technical_evidence_of` settles.
_SHARED_FIELDS = ("excluded_methods", "notes", "candidates", "tables", "support", "has_baseline", "technical",
                  "blocked", "question_stats")


def technical_evidence_of(technical: pd.DataFrame | None, per_instance: pd.DataFrame | None, config=None, *,
                          excluded: dict[str, str] | None = None, families: dict | None = None) -> dict:
    """What :func:`generate_recommendations` reads of the technical stage alone (no rating, persona or warning):
    the candidates and exclusions, the per-question tables, the constraint findings, every method's gate against
    Random and the question evidence. The same for every stakeholder and persona file of a run; a dict of plain
    data and tables (it can be stored)."""
    cfg = _config(config)
    plan = _Plan(cfg=cfg, long=as_long(technical), warnings=[])
    families = dict(families or _families(technical))
    _exclude(plan, technical, excluded, families)
    if not has_question_evidence(per_instance):
        plan.notes.append("This run has no per-question evidence (it was made before HEXEval measured each "
                          "method on the questions stakeholders ask), so no method can be recommended from it; "
                          "run the evaluation again.")
        plan.blocked = plan.blocked or "No per-question evidence in this run: run the evaluation again."
        per_instance = pd.DataFrame(columns=["method", "instance_id", "metric", "value", "derived"])
    else:  # method names made canonical once for every table below
        per_instance = per_instance.assign(method=canonical_methods(per_instance["method"]))
    methods = plan.candidates + [BASELINE_METHOD]
    plan.tables = question_tables(per_instance, methods) if len(per_instance) else \
        {q: pd.DataFrame(columns=methods) for q in QUESTIONS}
    plan.has_baseline = any(BASELINE_METHOD in t.columns and t[BASELINE_METHOD].notna().any()
                            for t in plan.tables.values())
    if not plan.has_baseline:
        plan.notes.append("This run has no random baseline, so no method could be checked against it.")
    plan.support = support_tables(per_instance, _SUPPORT, methods) if len(per_instance) else {}
    for m in plan.candidates + ([BASELINE_METHOD] if plan.has_baseline else []):
        concerns, excluded_reason = constraint_findings(plan.long, per_instance, m, cfg) if m != BASELINE_METHOD \
            else ([], None)
        plan.technical[m] = {"family": families.get(m, ""), "concerns": concerns, "excluded": excluded_reason,
                             "recommendable": m != BASELINE_METHOD and families.get(m) != "baseline"}
    shown = plan.candidates + ([BASELINE_METHOD] if plan.has_baseline else [])
    plan.question_stats = question_stats_of(plan.tables, shown, cfg.evaluation.confidence_level,
                                            cfg.evaluation.random_state)
    # the gate on equal question weights: the run-level answer to "does each method beat Random at all"
    overall = _gate(_Measured(plan.tables, EQUAL, methods, None, 0.0, cfg.evaluation.confidence_level,
                              cfg.evaluation.random_state, plan.question_stats),
                    plan.candidates, 1 - cfg.evaluation.confidence_level)
    for m in plan.technical:
        plan.technical[m]["vs_baseline"] = overall.get(m, {"qualifies": False})
    return {"long": plan.long, **{name: getattr(plan, name) for name in _SHARED_FIELDS},
            "question_evidence": _question_evidence(plan)}


def _question_evidence(plan: _Plan) -> dict:
    """Per method and question, on every shared case: the mean skill with its interval and the paired difference
    from Random (Holm-corrected over the methods, per question): what the Results page and the report show."""
    cfg = plan.cfg
    level, seed = cfg.evaluation.confidence_level, cfg.evaluation.random_state
    methods = plan.candidates + ([BASELINE_METHOD] if plan.has_baseline else [])
    out: dict = {m: {} for m in methods}
    for q in QUESTIONS:
        one = _Measured(plan.tables, {q: 1.0}, methods, None, 0.0, level, seed, plan.question_stats)
        gate = _gate(one, plan.candidates, 1 - level)
        for m in methods:
            out[m][q] = {**one.question_summary(m)[q], "vs_random": gate.get(m)}
            out[m][q].pop("weight", None)
    return out


def _families(technical) -> dict:
    if isinstance(technical, pd.DataFrame) and {"method", "family"} <= set(technical.columns):
        return {canonical_method(m): str(f) for m, f in zip(technical["method"], technical["family"])
                if isinstance(f, str)}
    return {}


def _exclude(plan: _Plan, technical, excluded: dict | None, families: dict) -> None:
    """Failed methods and earlier exclusions out; the recommendable methods with values are the candidates."""
    errors = method_errors(technical)
    plan.excluded_methods += [{"method": m, "reason": f"{m} failed in the technical evaluation: {errors[m]}"}
                              for m in methods_in(technical) if m in errors]
    plan.excluded_methods += [{"method": m, "reason": r} for m, r in (excluded or {}).items()]
    plan.notes += [e["reason"] + "; it is excluded from the recommendations." for e in plan.excluded_methods]
    blocked = {e["method"] for e in plan.excluded_methods}
    for m in methods_in(plan.long):
        if m in blocked or m in (BASELINE_METHOD, NARRATIVE_METHOD) or families.get(m) == "baseline":
            continue
        if plan.long[plan.long["method"] == m]["value"].notna().any():
            plan.candidates.append(m)


def _narrative_source(plan: _Plan, narratives: dict | None) -> str | None:
    """The method whose narrative may be recommended as its format (its narrators passed the checks)."""
    if not narratives or not narratives.get("summary"):
        return None
    failing = {name: s["reason"] for name, s in narratives["summary"].items() if not s.get("recommendable")}
    if failing:
        reason = "its narratives did not pass the faithfulness checks (" + "; ".join(
            f"{name} narrator: {r}" for name, r in failing.items()) + ")"
        plan.excluded_methods.append({"method": NARRATIVE_METHOD, "reason": reason})
        plan.notes.append(f"{NARRATIVE_METHOD}: {reason}; it is excluded from the recommendations.")
        return None
    return narratives.get("source")
