"""Recommend an explanation method per stakeholder from technical metrics and persona ratings.

How a score is made
-------------------
Every method gets four components on a [0, 1] scale (1 = best):

- ``technical_fidelity`` and ``technical_parsimony``: scored separately and per method family
  (see :mod:`hexeval_engine.technical_scores` for the exact normalisation of each family);
- ``persona_trust`` and ``persona_satisfaction``: the stakeholder's mean rating mapped from 1-5
  to 0-1 as ``(rating - 1) / 4``.

The combined score is the weighted mean of the components a method has,
``sum(w_c * v_c) / sum(w_c)`` with the weights of ``config.recommendations.weights``; a component
that is missing (not measured, or not rated by this stakeholder) drops out of both sums and the
method carries a note saying so.

Uncertainty and "clear lead"
----------------------------
The persona part's interval is the t-interval (``config.evaluation.confidence_level``) of the
per-rating values ``(w_trust * trust + w_sat * satisfaction) / (w_trust + w_sat)`` (so the
correlation between a rater's trust and satisfaction is respected); with fewer than two ratings
it spans the whole scale. Technical components use the metrics' bootstrap intervals mapped through
the same normalisation. The deviations are combined as independent errors through the weights
(root sum of squares of ``w_c * deviation_c``, divided by ``sum(w_c)``). The lead is **clear**
when the winner's interval lies entirely above the runner-up's, otherwise it is a **close call**.

Output shape (JSON-serialisable; every float is finite or ``None``)
-------------------------------------------------------------------
::

    {
      "mode": "combined" | "technical_only",     # technical_only: no usable persona rating at all
      "weights": {"technical_fidelity": .3, "technical_parsimony": .2,
                  "persona_trust": .3, "persona_satisfaction": .2},   # as configured
      "confidence_level": 0.95,
      "thresholds": {"strength": 0.7, "concern": 0.4},
      "normalisation": {family: {component: text}, "persona": text},
      "methods": ["SHAP", "LIME", "Anchor", "DiCE"],          # candidates, canonical names
      "excluded_methods": [{"method": "DiCE", "reason": "..."}],
      "technical": {method: {"family": str, "components": {component: {
                      "value", "ci_low", "ci_high", "definition", "detail", "ci_known",
                      "metrics": [{"metric", "label", "value", "ci_low", "ci_high",
                                   "direction", "display", "text"}]}}}},
      "stakeholders": {                      # keyed by title; sorted by role; one entry in technical_only mode
        title: {
        "persona_role": str | None,          # None for the technical-only entry
        "persona_names": [str],
        "title": str,                        # the role, or "All stakeholders (technical-only ranking)"
        "mode": "combined" | "technical_only",
        "n_ratings": int, "n_failed_ratings": int,
        "recommended_method": str | None,    # None only when no method can be scored
        "score": float | None, "score_ci_low": float | None, "score_ci_high": float | None,
        "lead": "clear" | "close_call" | "single_candidate" | "none",
        "clear_lead": bool,                  # lead == "clear"
        "runner_up": str | None,
        "strengths": [str], "concerns": [str],
        "reasoning": str,
        "alternatives": [{                   # every candidate, best first (winner included)
          "rank": int, "method": str, "family": str,
          "score": float | None, "score_ci_low": float | None, "score_ci_high": float | None,
          "components": {component: {"value", "ci_low", "ci_high", "weight",
                                      "configured_weight", "contribution", "detail"}},
          "ratings": {"n": int, "trust_mean": float | None, "satisfaction_mean": float | None},
          "notes": [str]}],
        "notes": [str]}},
      "notes": [str]
    }

``weight`` is the effective (renormalised) weight, ``contribution = weight * value``, and the
contributions of a method sum to its ``score``. The wording (strengths, concerns, reasoning) is
made in :mod:`hexeval_engine.recommendation_text`; ``docs/recommendations.md`` explains it all
for readers of the dashboard.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .config.schema import HexevalConfig
from .explanation import METHOD_FAMILY
from .ratings_summary import t_halfwidth
from .recommendation_text import (ALL_COMPONENTS, CONCERN_BELOW, PERSONA_COMPONENTS, STRENGTH_AT, TECHNICAL_COMPONENTS,
                                  component_label, judgements, reasoning)
from .technical_scores import NORMALISATION, method_components
from .technical_table import as_long, canonical_method, method_errors, methods_in


def _config(config) -> HexevalConfig:
    if config is None:
        return HexevalConfig()
    if isinstance(config, HexevalConfig):
        return config
    if isinstance(config, Mapping):
        return HexevalConfig.model_validate(dict(config))
    raise TypeError(f"config must be a HexevalConfig, a dict or None, got {type(config).__name__}")


def _f(x) -> float | None:
    """A JSON-safe float: NaN/inf/None become None."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _t_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """Mean's t-interval on [0, 1]; fewer than two values give the whole scale."""
    if len(values) < 2:
        return 0.0, 1.0
    mean = float(values.mean())
    half = t_halfwidth(values, level)
    return max(mean - half, 0.0), min(mean + half, 1.0)


def _rated(ratings: pd.DataFrame | None) -> pd.DataFrame:
    """Ratings with canonical ``method``, a stakeholder ``role`` and a ``usable`` flag.

    A rating is usable when its status is ``ok`` (or there is no status column) and both trust and
    satisfaction are present. The role is ``persona_role``, or ``persona_name`` when the role is blank.
    """
    columns = ["role", "persona_name", "method", "trust", "satisfaction", "usable"]
    if ratings is None or len(ratings) == 0:
        return pd.DataFrame(columns=columns)
    df = ratings.copy()
    df["method"] = df["explanation_type"].map(canonical_method)
    for column in ("trust", "satisfaction"):
        df[column] = pd.to_numeric(df[column], errors="coerce")
    ok = df["status"].eq("ok") if "status" in df.columns else pd.Series(True, index=df.index)
    df["usable"] = ok & df["trust"].notna() & df["satisfaction"].notna()
    if "persona_name" not in df.columns:
        df["persona_name"] = np.nan
    role = df["persona_role"] if "persona_role" in df.columns else pd.Series(np.nan, index=df.index)
    blank = role.isna() | role.astype(str).str.strip().eq("")
    df["role"] = role.where(~blank, df["persona_name"]).astype(str)
    return df


def _persona_components(rows: pd.DataFrame, weights: dict, level: float) -> tuple[dict, tuple[float, float] | None]:
    """Trust and satisfaction components for one stakeholder and method, plus the persona-part interval."""
    if len(rows) == 0:
        return {c: None for c in PERSONA_COMPONENTS}, None
    trust = ((rows["trust"].to_numpy(float) - 1) / 4).clip(0, 1)
    sat = ((rows["satisfaction"].to_numpy(float) - 1) / 4).clip(0, 1)
    out = {}
    for component, values, raw in (("persona_trust", trust, rows["trust"]),
                                   ("persona_satisfaction", sat, rows["satisfaction"])):
        lo, hi = _t_interval(values, level)
        out[component] = {"value": float(values.mean()), "ci_low": lo, "ci_high": hi,
                          "detail": f"{raw.mean():.1f}/5 from {len(raw)} rating{'s' if len(raw) != 1 else ''}"}
    wt, ws = weights["persona_trust"], weights["persona_satisfaction"]
    combined = (wt * trust + ws * sat) / (wt + ws) if wt + ws > 0 else trust * 0
    return out, _t_interval(combined, level)


def _score(method: str, technical: dict, persona: dict, persona_ci, weights: dict) -> dict:
    """Combine the available components of one method into a score with an interval."""
    values = {c: technical[c] for c in TECHNICAL_COMPONENTS}
    values.update(persona)
    available = [c for c in ALL_COMPONENTS if values[c] is not None and values[c]["value"] is not None]
    total = sum(weights[c] for c in available)
    notes = []
    for c in ALL_COMPONENTS:
        if c not in available and weights[c] > 0:
            notes.append(f"{component_label(c)} not available; the score uses the other components")
    components = {}
    for c in ALL_COMPONENTS:
        comp = values[c]
        effective = weights[c] / total if c in available and total > 0 else 0.0
        if comp is None or comp["value"] is None:
            components[c] = {"value": None, "ci_low": None, "ci_high": None, "weight": 0.0,
                             "configured_weight": weights[c], "contribution": 0.0, "detail": "not available"}
            continue
        detail = comp["detail"]
        components[c] = {"value": comp["value"], "ci_low": comp["ci_low"], "ci_high": comp["ci_high"],
                         "weight": effective, "configured_weight": weights[c],
                         "contribution": effective * comp["value"], "detail": detail}
    if total <= 0:
        return {"score": None, "score_ci_low": None, "score_ci_high": None, "components": components, "notes": notes}
    score = sum(components[c]["contribution"] for c in available)
    low_sq = high_sq = 0.0
    for c in (c for c in available if c in TECHNICAL_COMPONENTS):
        w = components[c]["weight"]
        low_sq += (w * (components[c]["value"] - components[c]["ci_low"])) ** 2
        high_sq += (w * (components[c]["ci_high"] - components[c]["value"])) ** 2
    persona_used = [c for c in available if c in PERSONA_COMPONENTS]
    if persona_used and persona_ci is not None:
        w = sum(components[c]["weight"] for c in persona_used)
        mean = sum(components[c]["weight"] * components[c]["value"] for c in persona_used) / w if w else 0.0
        low_sq += (w * (mean - persona_ci[0])) ** 2
        high_sq += (w * (persona_ci[1] - mean)) ** 2
    return {"score": score, "score_ci_low": max(score - math.sqrt(low_sq), 0.0),
            "score_ci_high": min(score + math.sqrt(high_sq), 1.0), "components": components, "notes": notes}


def _lead(ranked: list[dict]) -> tuple[str, str | None]:
    scored = [a for a in ranked if a["score"] is not None]
    if not scored:
        return "none", None
    if len(scored) == 1:
        return "single_candidate", None
    winner, runner = scored[0], scored[1]
    clear = winner["score_ci_low"] > runner["score_ci_high"]
    return ("clear" if clear else "close_call"), runner["method"]


def _stakeholder(role, names, rows, n_failed, candidates, technical, weights, level) -> dict:
    mode = "combined" if len(rows) else "technical_only"
    used_weights = dict(weights)
    notes = []
    if mode == "technical_only":
        for c in PERSONA_COMPONENTS:
            used_weights[c] = 0.0
        if used_weights["technical_fidelity"] + used_weights["technical_parsimony"] <= 0:
            used_weights["technical_fidelity"] = used_weights["technical_parsimony"] = 1.0
            notes.append("both technical weights are zero; the technical-only ranking weighs fidelity and "
                         "parsimony equally")
    alternatives = []
    for method in candidates:
        persona, persona_ci = _persona_components(rows[rows["method"] == method], used_weights, level)
        scored = _score(method, technical[method]["components"], persona, persona_ci, used_weights)
        mrows = rows[rows["method"] == method]
        alternatives.append({
            "method": method, "family": METHOD_FAMILY[method], **scored,
            "ratings": {"n": int(len(mrows)), "trust_mean": _f(mrows["trust"].mean()) if len(mrows) else None,
                        "satisfaction_mean": _f(mrows["satisfaction"].mean()) if len(mrows) else None},
        })
    order = {m: i for i, m in enumerate(candidates)}
    alternatives.sort(key=lambda a: (a["score"] is None, -(a["score"] or 0.0), order[a["method"]]))
    for rank, alt in enumerate(alternatives, start=1):
        alt["rank"] = rank
    lead, runner_up = _lead(alternatives)
    winner = alternatives[0] if alternatives and alternatives[0]["score"] is not None else None
    strengths, concerns = judgements(winner, alternatives, used_weights) if winner else ([], [])
    entry = {
        "persona_role": role, "persona_names": names,
        "title": role if role is not None else "All stakeholders (technical-only ranking)",
        "mode": mode, "n_ratings": int(len(rows)), "n_failed_ratings": n_failed,
        "recommended_method": winner["method"] if winner else None,
        "score": winner["score"] if winner else None,
        "score_ci_low": winner["score_ci_low"] if winner else None,
        "score_ci_high": winner["score_ci_high"] if winner else None,
        "lead": lead, "clear_lead": lead == "clear", "runner_up": runner_up, "strengths": strengths, "concerns": concerns,
        "alternatives": alternatives, "notes": notes,
    }
    entry["reasoning"] = reasoning(entry, alternatives, level)
    return entry


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


def generate_recommendations(technical: pd.DataFrame | None, ratings: pd.DataFrame | None, config=None) -> dict:
    """Recommend an explanation method per stakeholder (persona role).

    Parameters
    ----------
    technical : DataFrame or None
        The technical metrics, wide (one row per method, with an ``error`` column) or long
        (``method, metric, value, ci_low, ci_high, n, direction, ...``). Methods whose ``error`` is
        non-empty are excluded with a note. A wide table needs the metric registry for directions.
    ratings : DataFrame or None
        Persona ratings (``persona_name, persona_role, explanation_type, trust, satisfaction,
        status, ...``). ``None``, an empty table or only failed ratings give a technical-only
        ranking, labelled as such.
    config : HexevalConfig, dict or None
        Weights come from ``recommendations.weights``, the interval level from
        ``evaluation.confidence_level``. ``None`` uses the defaults.

    Returns
    -------
    dict
        The JSON-serialisable structure documented at the top of this module.

    Raises
    ------
    ValueError
        If a method or metric direction in the inputs is unknown.
    """
    cfg = _config(config)
    weights = cfg.recommendations.weights.model_dump()
    level = cfg.evaluation.confidence_level
    long = as_long(technical)
    errors = method_errors(technical)
    present = methods_in(long)
    excluded = [{"method": m, "reason": f"{m} failed in the technical evaluation: {errors[m]}"}
                for m in methods_in(technical) if m in errors]
    notes = [e["reason"] + "; it is excluded from the recommendations." for e in excluded]
    candidates = []
    for m in present:
        if m in errors:
            continue
        if long[(long["method"] == m)]["value"].notna().any():
            candidates.append(m)
        else:
            excluded.append({"method": m, "reason": f"{m} has no technical metric values"})
            notes.append(f"{m} has no technical metric values and is excluded from the recommendations.")
    technical_scores = {m: {"family": METHOD_FAMILY[m], "components": method_components(long, m)} for m in candidates}
    for m in candidates:
        for comp in technical_scores[m]["components"].values():
            if comp["value"] is not None and not comp["ci_known"]:
                missing = [t["label"] for t in comp["metrics"] if t["ci_low"] is None or t["ci_high"] is None]
                notes.append(f"{m}: {', '.join(missing)} has no confidence interval; its interval is taken as "
                             "the whole scale")
    rated = _rated(ratings)
    for m in sorted(set(rated["method"]) - set(candidates)):
        notes.append(f"ratings of {m} are ignored: it is not among the methods that can be recommended")
    rated = rated[rated["method"].isin(candidates) | ~rated["usable"]]
    usable = rated[rated["usable"] & rated["method"].isin(candidates)]
    stakeholders: dict[str, dict] = {}
    if len(usable):
        mode = "combined"
        for role in sorted(rated["role"].unique()):
            of_role = rated[rated["role"] == role]
            rows = usable[usable["role"] == role]
            names = sorted(of_role["persona_name"].dropna().astype(str).unique())
            if not len(rows):
                notes.append(f"no usable rating from {role}; its entry is a technical-only ranking")
            stakeholders[role] = _stakeholder(role, names, rows, int((~of_role["usable"]).sum()), candidates,
                                              technical_scores, weights, level)
    else:
        mode = "technical_only"
        n_failed = int((~rated["usable"]).sum())
        if len(rated):
            notes.append(f"no usable persona rating ({n_failed} failed or incomplete); the ranking is technical only")
        only = _stakeholder(None, [], usable, n_failed, candidates, technical_scores, weights, level)
        stakeholders[only["title"]] = only
    return _json_safe({
        "mode": mode, "weights": weights, "confidence_level": level,
        "thresholds": {"strength": STRENGTH_AT, "concern": CONCERN_BELOW},
        "normalisation": NORMALISATION, "methods": candidates, "excluded_methods": excluded,
        "technical": technical_scores, "stakeholders": stakeholders, "notes": notes,
    })
