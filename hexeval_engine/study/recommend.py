"""Recommendations with human evidence: the run's recommender, with people's ratings as the
stakeholder evidence (not simulated, so a clear lead is possible), and people's and personas'
picks side by side with the number of people behind each.

Only roles with at least :data:`~.calibration.MIN_PEOPLE` people become stakeholders with people's
evidence; a role with fewer (one participant who typed their own role, say) is listed under
``people.too_few``, and a persona role among them keeps the personas' recommendation. Cards count
people by role; participant ids never reach the recommendations.
"""

from __future__ import annotations

import pandas as pd

from ..recommend.recommender import generate_recommendations
from ..runs.store import RunData
from .calibration import MIN_PEOPLE
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
    people_per_role = humans.groupby("role")["participant_id"].nunique()
    enough = [str(r) for r, n in people_per_role.items() if n >= MIN_PEOPLE]
    used = humans[humans["role"].astype(str).isin(enough)]
    before = simulated.get("stakeholders", {}) if isinstance(simulated, dict) else {}
    if used.empty:  # no role has enough people yet: the personas' recommendations stand, and say why
        result = {**simulated, "stakeholders": {}, "evidence": "personas"}
    else:
        result = generate_recommendations(run.technical_metrics, as_persona_table(used), run.manifest.get("config"),
                                          per_instance=run.instance_metrics if len(run.instance_metrics) else None,
                                          warnings=run.manifest.get("warnings") or [], rater_kind=HUMAN_RATER)
        result["evidence"] = "people"
    picks = {}
    for role, entry in result.get("stakeholders", {}).items():
        entry["evidence"] = "people"
        entry["n_people"] = int(people_per_role.get(role, 0))
        entry["persona_names"] = []  # participants are counted, never named by their link's id
    for role, entry in before.items():  # a stakeholder no person answered for keeps the personas' recommendation
        if role not in result.setdefault("stakeholders", {}):
            result["stakeholders"][role] = {**entry, "evidence": "personas"}
    roles = sorted(set(result.get("stakeholders", {})) | set(before))
    for role in roles:
        people = result.get("stakeholders", {}).get(role, {})
        people = people if people.get("evidence") == "people" else {}  # the personas' pick is not the people's
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
    result["people"] = {"n_people": int(used["participant_id"].nunique()), "n_ratings": int(len(used)),
                        "by_role": {r: int(people_per_role[r]) for r in enough}, "min_people": MIN_PEOPLE,
                        "too_few": {str(r): int(n) for r, n in people_per_role.items() if n < MIN_PEOPLE}}
    if not used.empty:
        result["notes"] = [*result.get("notes", []), "Stakeholder evidence: ratings by real people from this run's "
                           "study; the personas' recommendations before the study are in recommendations_simulated.json."]
    return result
