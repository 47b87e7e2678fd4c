"""Who rated the explanations behind a run's recommendations, in the words every page and the report use.

One description (:func:`ratings_source`) read from the run's manifest (who played the personas) and its
``recommendations.json`` (``"evidence": "people"`` once a study's answers were taken in, with the
number of people per role): the verdict line's tail, the header label, the sentence that opens Results,
Recommendations and the report, and each stakeholder card's line (:func:`card_source`). People are
counted by role, never named by their participant id; a run with people's ratings never calls them
simulated (the personas' own ratings, shown beside them, still say who made them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..vocabulary import join_roles, join_words, plural

PEOPLE = "people"


@dataclass(frozen=True)
class RatingsSource:
    """Who produced the ratings behind the recommendations.

    Attributes
    ----------
    kind : str
        ``"people"`` (a study's participants), ``"simulated"`` (the built-in rater), ``"llm"`` or ``"none"``.
    persona_kind : str
        Who played the personas: ``"simulated"``, ``"llm"`` or ``"none"`` (the personas' own ratings).
    label : str
        A short label for the run's header.
    verdict_note : str or None
        What the verdict line adds after the picks (None: nothing).
    sentence : str
        One sentence for the top of Results, Recommendations and the report.
    n_people, n_ratings : int
        People and their ratings behind the recommendations (0 unless ``kind == "people"``).
    people_by_role : dict
        ``{role: number of people}`` of the roles whose people's ratings are used.
    too_few : dict
        ``{role: number of people}`` of roles with fewer people than the calibration needs: reported,
        not used as stakeholders.
    """

    kind: str
    persona_kind: str
    label: str
    verdict_note: str | None
    sentence: str
    n_people: int = 0
    n_ratings: int = 0
    people_by_role: dict = field(default_factory=dict)
    too_few: dict = field(default_factory=dict)
    min_people: int = 2

    @property
    def simulated(self) -> bool:
        """Whether the ratings behind the recommendations are simulated (never for people's)."""
        return self.kind == "simulated"


def _persona_kind(manifest: dict) -> str:
    kind = ((manifest or {}).get("rater") or {}).get("kind")
    if kind == "simulated":
        return "simulated"
    return "none" if kind in (None, "none") else "llm"


def _persona_words(manifest: dict, kind: str) -> str:
    if kind == "simulated":
        return "HEXEval's built-in simulated rater"
    rater = (manifest or {}).get("rater") or {}
    return f"the language model {rater.get('model') or 'of the run'} playing each persona"


def people_count_text(by_role: dict) -> str:
    """``Patient: 2 people, Cardiologist: 3 people``."""
    return ", ".join(f"{role}: {plural(int(n), 'person', 'people')}" for role, n in by_role.items())


def ratings_source(manifest: dict, recommendations: dict | None) -> RatingsSource:
    """Describe who rated the explanations behind ``recommendations`` (see :class:`RatingsSource`)."""
    recs = recommendations or {}
    persona_kind = _persona_kind(manifest)
    if recs.get("evidence") == PEOPLE:
        people = recs.get("people") or {}
        picks = recs.get("picks") or {}
        by_role = people.get("by_role") or {r: p.get("n_people", 0) for r, p in picks.items() if p.get("n_people")}
        n_people = int(people.get("n_people", sum(by_role.values())))
        n_ratings = int(people.get("n_ratings", sum(p.get("n_people_ratings", 0) for p in picks.values())))
        too_few = people.get("too_few") or {}
        need = int(people.get("min_people", 2))
        personas = ("" if persona_kind == "none" else
                    f" The persona ratings shown beside them were made by {_persona_words(manifest, persona_kind)} "
                    "before the study; the study section compares the two.")
        few = (f" Too few people to use yet (the calibration needs {need} per role): {people_count_text(too_few)}."
               if too_few else "")
        others = [str(e.get("title") or r) for r, e in (recs.get("stakeholders") or {}).items()
                  if e.get("evidence") != PEOPLE]
        rated = [str(e.get("title") or r) for r, e in (recs.get("stakeholders") or {}).items()
                 if e.get("evidence") == PEOPLE]
        persona_word = {"simulated": "simulated personas", "llm": "LLM personas"}.get(persona_kind, "personas")
        note = f"ratings by {plural(n_people, 'real person', 'real people')}"
        if others:
            note += f" for {join_roles(rated)}, by {persona_word} for the other {plural(len(others), 'stakeholder')}"
            kept = join_roles(others)
            few += (f" {kept[:1].upper() + kept[1:]} {'keeps' if len(others) == 1 else 'keep'} the personas' recommendation"
                    f"{'' if len(others) == 1 else 's'}: no person, or too few, answered in "
                    f"{'that role' if len(others) == 1 else 'those roles'}.")
        sentence = (f"The stakeholder ratings behind these recommendations are by {plural(n_people, 'real person', 'real people')} "
                    f"who took this run's study ({plural(n_ratings, 'rating')}; {people_count_text(by_role) or 'no role with enough people'})."
                    + few + personas)
        return RatingsSource(PEOPLE, persona_kind, f"Ratings by {plural(n_people, 'real person', 'real people')} (study)",
                             note, sentence, n_people,
                             n_ratings, dict(by_role), dict(too_few), need)
    if persona_kind == "simulated":
        return RatingsSource("simulated", persona_kind, "Simulated personas (built-in rater, no LLM)",
                             "the ratings are simulated",
                             "Persona ratings in this run come from the simulated rater, not from an LLM or real "
                             "people: read them as a demonstration of the method, not as evidence about real "
                             "stakeholders.")
    if persona_kind == "llm":
        rater = (manifest or {}).get("rater") or {}
        label = f"LLM personas: {rater.get('model', '?')}" + (f" via {rater['base_url']}" if rater.get("base_url") else "")
        return RatingsSource("llm", persona_kind, label, None,
                             f"Persona ratings in this run were written by {_persona_words(manifest, persona_kind)}: "
                             "simulated stakeholders, not feedback from real people.")
    return RatingsSource("none", persona_kind, "No persona ratings", None,
                         "No persona rated these explanations; the recommendations rest on technical evidence.")


def card_source(entry: dict, source: RatingsSource) -> str:
    """The line under a stakeholder card's title: who rated, counted (people by role and number, never by id)."""
    n = int(entry.get("n_ratings") or 0)
    failed = min(int(entry.get("n_failed_ratings") or 0), n)
    # failed ratings (an LLM's unusable answers) are counted apart: they are no part of what the card shows
    counted = f"{plural(n - failed, 'usable rating')} ({failed} failed)" if failed else plural(n, 'rating')
    role = str(entry.get("persona_role") or entry.get("title") or "this role")
    if entry.get("evidence") == PEOPLE:
        people = int(entry.get("n_people") or source.people_by_role.get(role, 0))
        return f"Rated by {plural(people, 'real person', 'real people')} in the role {role} · {counted}"
    names = join_words([str(x) for x in entry.get("persona_names") or []])
    if not names:
        return ""
    who = f"Persona: {names} · {counted}"
    if source.persona_kind == "simulated" and n:
        who += " (simulated)"
    if source.kind == PEOPLE:
        few = source.too_few.get(role)
        who += (f" — only {plural(int(few), 'person', 'people')} answered as {role}, too few to use (the calibration "
                f"needs {source.min_people}), so the personas' recommendation stands" if few else
                f" — no person answered as {role}, so the personas' recommendation stands")
    return who
