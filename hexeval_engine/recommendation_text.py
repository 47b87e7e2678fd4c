"""The words of a recommendation: strengths, concerns, the reasoning sentence and shared labels.

:mod:`hexeval_engine.recommendations` computes the scores; this module only phrases them, and
gives the report, the CLI and the dashboard the same labels for leads, components and weights.
"""

from __future__ import annotations

from .technical_scores import COMPONENTS as TECHNICAL_COMPONENTS

PERSONA_COMPONENTS = ("persona_trust", "persona_satisfaction")
ALL_COMPONENTS = TECHNICAL_COMPONENTS + PERSONA_COMPONENTS

LEAD_LABELS = {"clear": "clear lead", "close_call": "close call", "single_candidate": "only candidate",
               "none": "no candidate"}
"""How each value of a stakeholder's ``lead`` is written."""

STRENGTH_AT = 0.7  # a component at or above this is named as a strength
CONCERN_BELOW = 0.4  # a component below this is named as a concern

_PHRASES = {  # (family or "persona", component) -> (strength wording, concern wording)
    ("attribution", "technical_fidelity"): ("faithful to the model", "weak fidelity to the model"),
    ("attribution", "technical_parsimony"): ("attributions concentrated on few features",
                                             "attributions spread over many features"),
    ("rule", "technical_fidelity"): ("faithful rule", "weakly faithful rule"),
    ("rule", "technical_parsimony"): ("wide rule coverage", "low rule coverage"),
    ("counterfactual", "technical_fidelity"): ("valid, faithful counterfactuals", "weakly valid counterfactuals"),
    ("counterfactual", "technical_parsimony"): ("few features changed", "many features changed"),
    ("persona", "persona_trust"): ("high trust from this persona", "low trust from this persona"),
    ("persona", "persona_satisfaction"): ("high satisfaction for this persona", "low satisfaction for this persona"),
}


def component_label(component: str) -> str:
    """``persona_trust`` -> ``persona trust``."""
    return component.replace("_", " ")


def weights_text(weights: dict) -> str:
    """The configured weights in words: ``technical fidelity 0.3, technical parsimony 0.2, ...``."""
    return ", ".join(f"{component_label(k)} {v:g}" for k, v in weights.items())


def judgements(winner: dict, ranked: list[dict], weights: dict) -> tuple[list[str], list[str]]:
    """Strengths and concerns of the winner, in plain words with the raw numbers.

    A component at or above :data:`STRENGTH_AT` is a strength, one below :data:`CONCERN_BELOW` a
    concern; a persona component is also a strength when it is the highest of all candidates.
    Components with a zero weight are not judged.
    """
    family = winner["family"]
    strengths, concerns = [], []
    for c in ALL_COMPONENTS:
        comp = winner["components"][c]
        if comp["value"] is None or weights[c] <= 0:
            continue
        key = ("persona", c) if c in PERSONA_COMPONENTS else (family, c)
        good, bad = _PHRASES[key]
        others = [a["components"][c]["value"] for a in ranked
                  if a is not winner and a["components"][c]["value"] is not None]
        highest = c in PERSONA_COMPONENTS and others and comp["value"] > max(others)
        if highest:
            strengths.append(f"{good.replace('high ', 'highest ', 1)} ({comp['detail']})")
        elif comp["value"] >= STRENGTH_AT:
            strengths.append(f"{good} ({comp['detail']})")
        if comp["value"] < CONCERN_BELOW:
            concerns.append(f"{bad} ({comp['detail']})")
    return strengths, concerns


def reasoning(entry: dict, ranked: list[dict], level: float) -> str:
    """The plain-language reasoning of one stakeholder's recommendation (score, lead, strengths, concerns)."""
    if entry["recommended_method"] is None:
        return "No method could be scored: every method failed or no component has a positive weight."
    who = entry["persona_role"] or "all stakeholders"
    pct = f"{level:.0%}"
    text = (f"{entry['recommended_method']} scores {entry['score']:.2f} ({pct} interval "
            f"{entry['score_ci_low']:.2f}-{entry['score_ci_high']:.2f}) for {who}")
    runner = next((a for a in ranked if a["method"] == entry["runner_up"]), None)
    if entry["lead"] == "clear":
        text += f", a clear lead over {runner['method']} ({runner['score']:.2f}; the intervals do not overlap)."
    elif entry["lead"] == "close_call":
        text += (f", a close call with {runner['method']} ({runner['score']:.2f}, interval "
                 f"{runner['score_ci_low']:.2f}-{runner['score_ci_high']:.2f}): the intervals overlap, "
                 f"so either is defensible.")
    else:
        text += "; it is the only method that could be scored."
    text += " Strengths: " + ("; ".join(entry["strengths"]) if entry["strengths"] else "none stands out") + "."
    text += (" Concerns: " + "; ".join(entry["concerns"]) + "." if entry["concerns"]
             else f" Concerns: none (no weighted component scores below {CONCERN_BELOW:.1f} on the 0-1 scale).")
    if entry["mode"] == "technical_only":
        text = ("Technical-only ranking: no persona ratings were available, so this reflects the metrics "
                "alone, not what stakeholders think. " + text)
    return text
