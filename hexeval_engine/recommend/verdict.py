"""The verdict in one line: each stakeholder's recommended method and how strong the pick is.

Read by the Recommendations page, the page after a run and the report, so all three say the
same thing. Card fields are read defensively: runs from before ``recommended_format`` existed, and
cards without a recommendation, still give a sentence.
"""

from __future__ import annotations

from ..vocabulary import join_roles, plural
from .recommender import MIN_UNITS_FOR_CLEAR

#: How each lead reads in the verdict (plural form, for a group of stakeholders).
STRENGTH_WORDS = {"clear": ("clear lead", "clear leads"), "close_call": ("close call", "close calls"),
                  "single_candidate": ("the only method left after the checks",
                                       "the only method left after the checks")}
#: How a lead is counted in a mix ("1 clear lead, 2 where it was the only method left after the checks").
_COUNTED = {"single_candidate": "where it was the only method left after the checks"}



def clear_lead_rule(confidence_level: float = 0.95) -> str:
    """The recommender's clear-lead test with every condition, in words (see :func:`.recommender._decide`)."""
    alpha = 1 - confidence_level
    return (f"A pick is a **clear lead** only when all three hold, on the measured answers to this stakeholder's "
            f"questions (each question's skill weighed by the persona's declared questions): (1) on the same cases "
            f"the winner beats the runner-up with a Holm-corrected p-value below {alpha:.2g} (the chance of a "
            f"difference this large if the two were equally good, corrected because several methods are compared "
            f"at once); (2) the {confidence_level:.0%} interval of the paired difference lies entirely above 0; "
            f"(3) at least {MIN_UNITS_FOR_CLEAR} shared cases stand behind it. Otherwise it is a **close call**: "
            f"the card lists the methods the evidence cannot separate. Ratings never make a lead: they are shown "
            f"beside the measured answer.")


def verdict_groups(recommendations: dict) -> list[dict]:
    """Stakeholders grouped by what they are shown: ``[{"method", "format", "stakeholders", "leads"}]``.

    Groups keep the order of the first stakeholder in each; stakeholders without a recommendation
    form one group with ``method`` ``None``.
    """
    groups: dict[tuple, dict] = {}
    for entry in ((recommendations or {}).get("stakeholders") or {}).values():
        method = entry.get("recommended_method") or None
        fmt = entry.get("recommended_format") if method else None
        key = (method, fmt)
        group = groups.setdefault(key, {"method": method, "format": fmt, "stakeholders": [], "leads": []})
        group["stakeholders"].append(str(entry.get("title") or entry.get("persona_role") or "a stakeholder"))
        group["leads"].append(str(entry.get("lead") or "none"))
    return list(groups.values())


def verdict_line(recommendations: dict, *, simulated: bool, note: str | None = None) -> str:
    """One sentence naming each stakeholder's pick and its strength.

    ``note`` (:attr:`.ratings_source.RatingsSource.verdict_note`) names who rated ("ratings by 4 real people").

    Examples: ``SHAP for all 4 stakeholders — close calls; measured on the questions each stakeholder asks.`` or
    ``SHAP for the Lead Cardiologist and the Patient (close calls); Anchor for the Hospital Administrator (clear lead).``
    """
    recs = recommendations or {}
    groups = verdict_groups(recs)
    if not groups:
        return "No recommendation: this run could not score any method for a stakeholder."
    total = sum(len(g["stakeholders"]) for g in groups)
    parts = []
    for g in groups:
        strength = _strength(g["leads"])
        if g["method"] is None:
            parts.append(f"no method qualified for {join_roles(g['stakeholders'])}")
            continue
        # The plain form is the default; only a narrative telling is worth words ("SHAP (told as a narrative)").
        shown = g["method"] + (" (told as a narrative)" if g.get("format") == "narrative" else "")
        if len(groups) == 1:
            who = ("both stakeholders" if total == 2 else f"all {plural(total, 'stakeholder')}") if total > 1 \
                else join_roles(g["stakeholders"])
            parts.append(f"{shown} for {who}" + (f" — {strength}" if strength else ""))
        else:
            parts.append(f"{shown} for {join_roles(g['stakeholders'])}" + (f" ({strength})" if strength else ""))
    line = "; ".join(parts)
    line = line[0].upper() + line[1:]
    if recs.get("mode") == "technical_only":
        line += "; technical evidence only, the same for everyone"
    else:
        if recs.get("basis") == "questions":
            line += "; measured on the questions each stakeholder asks"
        if note:
            line += f"; {note}"
        elif simulated and recs.get("basis") != "questions":
            line += "; the ratings are simulated"
    return line + "."


def _strength(leads: list[str]) -> str:
    """``close calls``, ``clear lead``, or a mix such as ``1 clear lead, 2 close calls``."""
    known = [lead for lead in leads if lead in STRENGTH_WORDS]
    counts = {lead: known.count(lead) for lead in dict.fromkeys(known)}
    if not counts:
        return ""
    if len(counts) == 1:
        lead, n = next(iter(counts.items()))
        return STRENGTH_WORDS[lead][n > 1]
    return ", ".join(f"{n} {_COUNTED.get(lead) or STRENGTH_WORDS[lead][n > 1]}" for lead, n in counts.items())
