"""Recommendations with human evidence: the run's recommender, with people's ratings as the
stakeholder evidence (not simulated, so a clear lead is possible), and people's and personas'
picks side by side with the number of people behind each.
"""

from __future__ import annotations

import pandas as pd

from ..recommend.recommender import generate_recommendations
from ..runs.store import RunData
from .human_table import as_persona_table

HUMAN_RATER = "human"


def recommend_with_humans(run: RunData, humans: pd.DataFrame, simulated: dict) -> dict:
    """The run's recommendations recomputed with ``humans`` as the stakeholder ratings.

    Parameters
    ----------
    run : RunData
        The loaded run (technical metrics, per-case metrics, config, warnings).
    humans : DataFrame
        ``human_ratings`` rows.
    simulated : dict
        The recommendations made before the study (by the personas).

    Returns
    -------
    dict
        The recommender's output plus ``"evidence": "people"`` and ``"picks"``: per role the people's
        pick, the personas' pick and how many people and personas stand behind each.
    """
    result = generate_recommendations(run.technical_metrics, as_persona_table(humans), run.manifest.get("config"),
                                      per_instance=run.instance_metrics if len(run.instance_metrics) else None,
                                      warnings=run.manifest.get("warnings") or [], rater_kind=HUMAN_RATER)
    result["evidence"] = "people"
    picks = {}
    before = simulated.get("stakeholders", {}) if isinstance(simulated, dict) else {}
    for entry in result.get("stakeholders", {}).values():
        entry["evidence"] = "people"
    for role, entry in before.items():  # a stakeholder no person answered for keeps the personas' recommendation
        if role not in result.setdefault("stakeholders", {}):
            result["stakeholders"][role] = {**entry, "evidence": "personas"}
    roles = sorted(set(result.get("stakeholders", {})) | set(before))
    for role in roles:
        people = result.get("stakeholders", {}).get(role, {})
        personas = before.get(role, {})
        picks[role] = {
            "people_pick": people.get("recommended_method"), "people_lead": people.get("lead"),
            "n_people": int(humans.loc[humans["role"] == role, "participant_id"].nunique()),
            "n_people_ratings": int((humans["role"] == role).sum()),
            "personas_pick": personas.get("recommended_method"), "personas_lead": personas.get("lead"),
            "n_personas": len(personas.get("persona_names") or []),
            "n_persona_ratings": personas.get("n_ratings"),
        }
    result["picks"] = picks
    result["notes"] = [*result.get("notes", []), "Stakeholder evidence: ratings by real people from this run's study; "
                       "the personas' recommendations before the study are in recommendations_simulated.json."]
    return result
