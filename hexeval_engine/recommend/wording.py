"""The words of a recommendation: strengths, concerns, the reasoning and the shared labels.

:mod:`hexeval_engine.recommend.recommender` computes the evidence; this module only phrases it, and gives
the report, the CLI and the dashboard the same labels for leads, components and weights.
"""

from __future__ import annotations

TECHNICAL_COMPONENTS = ("technical_fidelity", "technical_parsimony")
PERSONA_COMPONENTS = ("stakeholder_score", "persona_trust", "persona_satisfaction")
ALL_COMPONENTS = TECHNICAL_COMPONENTS + PERSONA_COMPONENTS

LEAD_LABELS = {"clear": "clear lead", "close_call": "close call", "single_candidate": "only candidate",
               "none": "no recommendation"}
"""How each value of a stakeholder's ``lead`` is written."""

_COMPONENT_LABELS = {"technical_fidelity": "fidelity", "technical_parsimony": "parsimony (ties only)",
                     "persona_trust": "trust", "persona_satisfaction": "satisfaction",
                     "stakeholder_score": "stakeholder's weighted ratings", "technical": "technical evidence",
                     "stakeholder": "stakeholder's weighted ratings"}

CONCERN_BELOW = 0.4  # a persona component below this (2.6 on the 1-5 scale) is named as a concern


def component_label(component: str) -> str:
    """``persona_trust`` -> ``trust``; unknown names lose their underscores."""
    return _COMPONENT_LABELS.get(component, component.replace("_", " "))


def weights_text(weights: dict) -> str:
    """The weights the score really uses, in words.

    Parsimony adds no points (it only breaks close calls), so the other configured weights are scaled
    to add up to 1: ``fidelity 0.375, trust 0.375, satisfaction 0.25 (the configured 0.3, 0.3, 0.2
    scaled to add up to 1); parsimony only breaks close calls``.
    """
    scored = {k: float(v) for k, v in weights.items()
              if k != "technical_parsimony" and isinstance(v, (int, float)) and float(v) > 0}
    total = sum(scored.values())
    if not total:
        return "no weights"
    text = ", ".join(f"{component_label(k)} {v / total:.3g}" for k, v in scored.items())
    if abs(total - 1) > 1e-9:
        text += f" (the configured {', '.join(f'{v:g}' for v in scored.values())} scaled to add up to 1)"
    if float(weights.get("technical_parsimony") or 0) > 0:
        text += "; parsimony only breaks close calls"
    return text


def _interval(low, high) -> str:
    return f"{low:+.2f} to {high:+.2f}" if low is not None and high is not None else "not estimable"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _strengths_concerns(entry: dict, technical: dict, level: float) -> tuple[list[str], list[str]]:
    method = entry["recommended_method"]
    pct = f"{level:.0%}"
    strengths, concerns = [], []
    vs = technical[method]["vs_baseline"]
    if vs.get("qualifies"):
        strengths.append(f"more faithful to the model than random feature weights (fidelity {vs['diff']:+.2f} "
                         f"over the random baseline, {pct} interval {_interval(vs['ci_low'], vs['ci_high'])}, "
                         f"{_plural(vs['n'], 'case')})")
    winner = next(a for a in entry["alternatives"] if a["method"] == method)
    others = [a for a in entry["alternatives"] if a["method"] != method and a["recommendable"]]
    for c, word in (("stakeholder_score", "weighted rating"),):
        comp = winner["components"][c]
        if comp["value"] is None or comp["configured_weight"] <= 0:
            continue
        rest = [a["components"][c]["value"] for a in others if a["components"][c]["value"] is not None]
        on_five = 1 + 4 * comp["value"]
        if rest and comp["value"] > max(rest):
            strengths.append(f"the highest {word} from this stakeholder ({on_five:.1f} of 5 over "
                             f"{_plural(comp['n'], 'rated case')})")
        if comp["value"] < CONCERN_BELOW:
            concerns.append(f"low {word} from this stakeholder ({on_five:.1f} of 5)")
    concerns += technical[method]["concerns"]
    return strengths, concerns


def _lead_sentence(entry: dict, level: float) -> str:
    runner = next((c for c in entry["comparisons"] if c["method"] == entry["runner_up"]), None)
    if entry["lead"] == "single_candidate":
        return " It is the only method that qualified."
    if runner is None:
        return ""
    diff = (f"{runner['diff']:+.2f} ({level:.0%} interval {_interval(runner['ci_low'], runner['ci_high'])}, "
            f"{_plural(runner['n'], 'paired unit')}, corrected p = {runner['p_holm']:.3f})"
            if runner["diff"] is not None and runner["p_holm"] is not None else "not estimable")
    if entry["lead"] == "clear":
        return f" It leads {runner['method']} clearly: paired difference {diff}."
    return (f" It is a close call with {runner['method']}: paired difference {diff}, which does not establish a "
            "lead, so either is defensible.")


def fill_words(entry: dict, technical: dict, level: float) -> None:
    """Set ``strengths``, ``concerns`` and ``reasoning`` of one stakeholder entry in place."""
    who = entry["persona_role"] or "all stakeholders"
    if entry["recommended_method"] is None:
        entry["strengths"], entry["concerns"] = [], []
        entry["reasoning"] = f"No recommendation for {who}. {entry['reason']}"
        return
    strengths, concerns = _strengths_concerns(entry, technical, level)
    entry["strengths"], entry["concerns"] = strengths, concerns
    basis = ("fidelity to the model and this stakeholder's ratings" if entry["mode"] == "combined"
             else "fidelity to the model alone (no persona ratings)")
    interval = (f"{level:.0%} interval {entry['score_ci_low']:.2f} to {entry['score_ci_high']:.2f}"
                if entry["score_ci_low"] is not None and entry["score_ci_high"] is not None else "no interval")
    text = (f"{entry['recommended_method']} is recommended for {who}, on {basis}: score {entry['score']:.2f} "
            f"({interval}; {_plural(entry['n_cases'], 'shared case')}"
            + (f", {_plural(entry['n_units'], 'rated case')} across personas" if entry["mode"] == "combined" else "")
            + ").")
    text += _lead_sentence(entry, level)
    if entry.get("tie_break"):
        text += f" {entry['tie_break'][0].upper()}{entry['tie_break'][1:]}."
    for note in entry["notes"]:
        text += f" Note: {note}."
    text += " Strengths: " + ("; ".join(strengths) if strengths else "none stands out") + "."
    text += " Concerns: " + ("; ".join(concerns) if concerns else "none found") + "."
    entry["reasoning"] = text
