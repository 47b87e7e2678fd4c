"""The verdict in one line: each stakeholder's recommended method and how strong the pick is.

Read by the Recommendations page, the page after a run and the report, so all three say the
same thing. Card fields are read defensively: runs from before ``recommended_format`` existed, and
cards without a recommendation, still give a sentence.
"""

from __future__ import annotations

from ..vocabulary import join_words, plural
from .recommender import MIN_UNITS_FOR_CLEAR

#: How each lead reads in the verdict (plural form, for a group of stakeholders).
STRENGTH_WORDS = {"clear": ("clear lead", "clear leads"), "close_call": ("close call", "close calls"),
                  "single_candidate": ("only candidate", "only candidates")}



def clear_lead_rule(confidence_level: float = 0.95) -> str:
    """The recommender's clear-lead test with every condition, in words (see :func:`.recommender._decide`)."""
    alpha = 1 - confidence_level
    return (f"A pick is a **clear lead** only when all four hold: (1) the persona ratings come from an LLM or real "
            f"people, never the simulator; (2) on the same cases the winner beats the runner-up with a "
            f"Holm-corrected p-value below {alpha:.2g} (the chance of a difference this large if the two were "
            f"equally good, corrected because several methods are compared at once); (3) the "
            f"{confidence_level:.0%} interval of the paired difference lies entirely above 0; (4) at least "
            f"{MIN_UNITS_FOR_CLEAR} paired units stand behind it (cases both methods explained, each compared "
            f"method against method). Otherwise it is a **close call**: either method is defensible.")


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

    ``note`` (:attr:`.ratings_source.RatingsSource.verdict_note`) names who rated, in place of "the
    ratings are simulated" ("ratings by 4 real people").

    Examples: ``SHAP for all 4 stakeholders — close calls; the ratings are simulated.`` or
    ``SHAP for Lead Cardiologist and Patient (close calls); Anchor for Hospital Administrator (clear lead).``
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
            parts.append(f"no method qualified for {join_words(g['stakeholders'])}")
            continue
        # The plain form is the default; only a narrative telling is worth words ("SHAP (told as a narrative)").
        shown = g["method"] + (" (told as a narrative)" if g.get("format") == "narrative" else "")
        if len(groups) == 1:
            who = f"all {plural(total, 'stakeholder')}" if total > 1 else g["stakeholders"][0]
            parts.append(f"{shown} for {who}" + (f" — {strength}" if strength else ""))
        else:
            parts.append(f"{shown} for {join_words(g['stakeholders'])}" + (f" ({strength})" if strength else ""))
    line = "; ".join(parts)
    line = line[0].upper() + line[1:]
    if recs.get("mode") == "technical_only":
        line += "; technical evidence only, the same for everyone"
    elif note:
        line += f"; {note}"
    elif simulated:
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
    return ", ".join(f"{n} {STRENGTH_WORDS[lead][n > 1]}" for lead, n in counts.items())
