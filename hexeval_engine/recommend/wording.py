"""The words of a recommendation: strengths, concerns, the reasoning and the shared labels.

:mod:`hexeval_engine.recommend.recommender` computes the evidence; this module only phrases it, and gives
the report, the CLI and the dashboard the same labels for leads, components and weights. Every number in a
sentence is read from the entry it describes.
"""

from __future__ import annotations

from ..vocabulary import signed, the_role
from .sentences import QUESTION_PHRASES, QUESTION_SHORT

QUESTION_COMPONENTS = ("why", "what_if", "will_it_hold", "how_to_change")
ALL_COMPONENTS = ("measured", *QUESTION_COMPONENTS, "perceived")

LEAD_LABELS = {"clear": "clear lead", "close_call": "close call", "single_candidate": "the only method left after the checks",
               "none": "no recommendation"}
"""How each value of a stakeholder's ``lead`` is written."""

_COMPONENT_LABELS = {"measured": "measured answer to this stakeholder's questions",
                     "perceived": "perceived (ratings)", **{q: f"{QUESTION_SHORT[q]} skill" for q in QUESTION_COMPONENTS}}
#: A question that weighs at least this much for a stakeholder is named in strengths and concerns.
NAMED_QUESTION = 0.2


def component_label(component: str) -> str:
    """``measured`` -> ``measured answer to this stakeholder's questions``; unknown names lose their underscores."""
    return _COMPONENT_LABELS.get(component, component.replace("_", " "))


def asks_sentence(entry: dict) -> str:
    """What a stakeholder asks, as the card and the report say it: ``Asks why (weight 0.35), will it hold (0.35),
    what if (0.15) and how to change it (0.15). Refers or reassures the patient in front of them.``"""
    items = sorted(((q, float(w)) for q, w in (entry.get("questions") or {}).items() if float(w) > 0),
                   key=lambda x: -x[1])
    if not items:
        return "Asks no question with a weight."
    asked = [f"{QUESTION_SHORT.get(q, q)} ({'weight ' if k == 0 else ''}{w:.2f})" for k, (q, w) in enumerate(items)]
    listed = asked[0] if len(asked) == 1 else f"{', '.join(asked[:-1])} and {asked[-1]}"
    reason = (entry.get("questions_reason") if entry.get("questions_declared")
              else "the persona declares no questions, so all four weigh the same") or ""
    reason = reason.strip().rstrip(".")
    return f"Asks {listed}." + (f" {reason[:1].upper() + reason[1:]}." if reason else "")


def _interval(low, high) -> str:
    return f"{signed(low)} to {signed(high)}" if low is not None and high is not None else "not estimable"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _strengths_concerns(entry: dict, technical: dict, level: float) -> tuple[list[str], list[str]]:
    method = entry["recommended_method"]
    winner = next(a for a in entry["alternatives"] if a["method"] == method)
    others = [a for a in entry["alternatives"] if a["method"] != method and a["recommendable"]]
    strengths, concerns = [], []
    vs = winner.get("vs_baseline") or {}
    if vs.get("qualifies"):
        strengths.append(f"answers this stakeholder's questions better than random explanations ({signed(vs['diff'])} "
                         f"over Random, {level:.0%} interval {_interval(vs['ci_low'], vs['ci_high'])}, "
                         f"{_plural(vs['n'], 'case')})")
    for q in QUESTION_COMPONENTS:
        mine = (winner.get("questions") or {}).get(q) or {}
        if mine.get("weight", 0) < NAMED_QUESTION or mine.get("value") is None:
            continue
        rest = [((a.get("questions") or {}).get(q) or {}).get("value") for a in others]
        rest = [v for v in rest if v is not None]
        best = bool(rest) and mine["value"] > max(rest) and mine["value"] > 0
        unclear = mine.get("ci_low") is not None and mine["ci_low"] <= 0
        interval = f"{level:.0%} interval {_interval(mine['ci_low'], mine['ci_high'])}"
        if best and unclear:  # one sentence, not a strength its own concern contradicts
            concerns.append(f"the best of the methods on *{QUESTION_PHRASES[q]}*, but not clearly better than no "
                            f"explanation (skill {signed(mine['value'])}, {interval})")
        elif best:
            strengths.append(f"the best answer to *{QUESTION_PHRASES[q]}* (skill {signed(mine['value'])})")
        elif unclear:
            concerns.append(f"no clear help with *{QUESTION_PHRASES[q]}* (skill {signed(mine['value'])}, {interval})")
    concerns += technical.get(method, {}).get("concerns", [])
    return strengths, concerns


def p_words(comparison: dict, key: str = "p_holm") -> tuple[str, str]:
    """A comparison's p-value as people write it, ``(relation, number)``: ``("≤", "0.003")`` when no resample reached
    it (``p_at_floor``: an upper bound), ``("<", "0.001")`` below 0.001, else ``("=", "0.012")``."""
    p = comparison[key]
    if comparison.get("p_at_floor"):
        return "≤", f"{p:.3f}"  # rounded to 3 places an upper bound stays one (the floor is 0.0009995 × comparisons)
    return ("<", "0.001") if p < 0.001 else ("=", f"{p:.3f}")


def _lead_sentence(entry: dict, level: float) -> str:
    runner = next((c for c in entry["comparisons"] if c["method"] == entry["runner_up"]), None)
    if entry["lead"] == "single_candidate":
        return (" It is the only method left after the checks: every other method was set aside (its reason is "
                "on its card) or could not be scored for this stakeholder, so nothing was compared with it.")
    if runner is None:
        return ""
    diff = (f"{signed(runner['diff'])} ({level:.0%} interval {_interval(runner['ci_low'], runner['ci_high'])}, "
            f"{_plural(runner['n'], 'paired case')}, corrected p {' '.join(p_words(runner))})"
            if runner["diff"] is not None and runner["p_holm"] is not None else "not estimable")
    if entry["lead"] == "clear":
        return f" It leads {runner['method']} clearly: paired difference {diff}."
    return f" It is a close call with {runner['method']}: paired difference {diff}, which does not establish a lead."


def fill_words(entry: dict, technical: dict, level: float) -> None:
    """Set ``strengths``, ``concerns`` and ``reasoning`` of one stakeholder entry in place."""
    who = the_role(entry["persona_role"]) if entry["persona_role"] else "all stakeholders"
    if entry["recommended_method"] is None:
        entry["strengths"], entry["concerns"] = [], []
        entry["reasoning"] = f"No recommendation for {who}. {entry['reason']}"
        return
    strengths, concerns = _strengths_concerns(entry, technical, level)
    entry["strengths"], entry["concerns"] = strengths, concerns
    basis = ("the measured answers to their questions and people's ratings" if entry["mode"] == "measured_and_people"
             else "the measured answers to their questions")
    interval = (f"{level:.0%} interval {signed(entry['score_ci_low'])} to {signed(entry['score_ci_high'])}"
                if entry["score_ci_low"] is not None and entry["score_ci_high"] is not None else "no interval")
    text = (f"{entry['recommended_method']} is recommended for {who}, on {basis}: skill {signed(entry['score'])} over "
            f"no explanation ({interval}; {_plural(entry['n_cases'], 'shared case')}).")
    text += _lead_sentence(entry, level)
    for note in entry["notes"]:
        text += f" Note: {note}."
    text += " Strengths: " + ("; ".join(strengths) if strengths else "none stands out") + "."
    text += " Concerns: " + ("; ".join(concerns) if concerns else "none found") + "."
    entry["reasoning"] = text
