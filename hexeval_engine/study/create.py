"""Create, open and close a study on a saved run.

A study shows real stakeholders the run's cases and explanations exactly as the personas saw them
(the text each persona role read, from ``persona_ratings.csv``), method names hidden behind neutral
labels drawn per participant, items in an order drawn per participant, with one question with a
right answer per case (:mod:`.whatif`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import RunError
from ..raters.case import build_cases
from ..models.task import task_of
from ..raters.prompt import DIMENSION_QUESTIONS, predicted_outcome, render_case, render_prediction
from ..ratings_summary import DIMENSIONS
from ..runs.store import load_run
from ..vocabulary import Vocabulary, plural
from .persona_evidence import persona_files
from .sources import load_sources
from .storage import has_study, read_study, write_study
from .tokens import new_token, token_hash
from .whatif import draw_what_ifs, question_text

#: What a participant reads before starting, unless the operator sets their own (``--intro``).
DEFAULT_INTRO = ("You will see a few cases, each with the system's prediction and an explanation of it. For each "
                 "explanation, answer six questions from 1 (not at all) to 5 (very much), add a comment if you like, "
                 "and answer one question about what the system would predict if one thing were different. "
                 "There are no right or wrong ratings: we want your own view. Your answers are saved after every "
                 "explanation; you can close the page and come back with the same link. Taking part is voluntary "
                 "and you can stop at any time.")
#: Minutes a participant needs per explanation (six ratings, an optional comment and one what-if), for the estimate.
MINUTES_PER_ITEM = 1.5
MAX_INTRO = 4000


def decision_question(verb: str, noun: str) -> str:
    """The decision-support question in a grammatical form for any domain's verb and noun
    ("How much does it help you decide what to do about this loan application (approve or reject)?")."""
    return f"How much does it help you decide what to do about this {noun} ({verb})?"


def study_questions(domain) -> dict[str, str]:
    """The six questions a participant answers, worded for the domain."""
    questions = {d: DIMENSION_QUESTIONS[d] for d in DIMENSIONS}
    questions["decision_support"] = decision_question(domain.decision_verb, domain.decision_noun)
    return questions


def create_study(run, *, cases: int = 3, participants: int = 2, seed: int | None = None,
                 base_url: str = "http://localhost:8502", intro: str | None = None,
                 role: str | None = None) -> dict[str, str]:
    """Create a study on a saved run and return ``{participant id: link}``.

    Parameters
    ----------
    run : str or Path
        The run folder.
    cases : int
        How many of the persona-rated cases to show (each with every rated method).
    participants : int
        How many per-participant links to make.
    seed : int, optional
        Seed for the cases, the what-ifs, orders and labels (default: the run's seed).
    base_url : str
        Where ``hexeval study serve`` is reachable; links are ``base_url/?token=...``.
    intro : str, optional
        The introduction (and consent) text participants read before starting (default:
        :data:`DEFAULT_INTRO`); the item count and the time estimate are added to it.
    role : str, optional
        A role fixed by the links made now (participants then do not choose one); one of the run's
        persona roles or any other.

    The run's personas answer the study's what-if questions now (simulated ones through the readers,
    LLM ones through the LLM, with the label-swap check): see :mod:`.persona_evidence`.

    Raises
    ------
    RunError
        The run has no persona ratings, already has a study, or asks for more cases than were rated.
    """
    run_dir = Path(run)
    data = load_run(run_dir)
    if has_study(run_dir):
        raise RunError(f"Run {data.run_id} already has a study. See it with `hexeval study status RUN`, or make "
                       "a new run for a new study.")
    if cases < 1 or participants < 1:
        raise RunError(f"A study needs at least one case and one participant (got {cases} cases, {participants} "
                       "participants). Pass --cases and --participants of 1 or more.")
    ratings = data.persona_ratings
    if ratings is None or not len(ratings) or "explanation_text" not in ratings:
        raise RunError(f"Run {data.run_id} has no persona ratings, so there are no explanations as personas saw them. "
                       "Re-run the evaluation with personas switched on.")
    ok = ratings[(ratings.get("status", "ok") == "ok") & ratings["explanation_text"].astype(str).str.strip().ne("")]
    seed = int(data.manifest.get("config", {}).get("evaluation", {}).get("random_state", 0) if seed is None else seed)
    rng = np.random.default_rng(seed)
    rated_cases = sorted(int(i) for i in ok["instance_index"].unique())
    if cases > len(rated_cases):
        raise RunError(f"Run {data.run_id} has {plural(len(rated_cases), 'rated case')}; --cases {cases} asks for more. "
                       f"Use --cases {len(rated_cases)} or fewer.")
    chosen = sorted(int(i) for i in rng.choice(rated_cases, size=cases, replace=False))
    sources = load_sources(run_dir, data.manifest)
    domain = sources.config.domain
    words = Vocabulary.from_data(sources.data, sources.config)
    task = task_of(sources.data, sources.config)
    built = build_cases(sources.model, sources.data, domain, chosen,
                        class_names=task.class_names if sources.data.n_classes > 2 else (), quantity=task.value_text)
    what_ifs = draw_what_ifs(sources.model, sources.data, chosen, vocabulary=words, seed=seed)
    methods = [m for m in dict.fromkeys(ok["explanation_type"].astype(str))]
    items = []
    for iid in chosen:
        case = built[iid]
        wi = what_ifs.get(iid)
        for method in methods:
            rows = ok[(ok["instance_index"] == iid) & (ok["explanation_type"] == method)]
            if rows.empty:
                continue
            texts = {str(role): str(group["explanation_text"].iloc[0]) for role, group in rows.groupby("persona_role")}
            items.append({"item_id": f"c{iid}-{len(items)}", "instance_index": iid, "method": method,
                          "texts": texts, "default_text": str(rows["explanation_text"].mode().iloc[0]),
                          "case": render_case(case), "prediction": render_prediction(case, domain),
                          "case_values": [[f.description, f.value] for f in case.features],
                          "outcome": predicted_outcome(case, domain)[0],
                          "what_if": None if wi is None else {**wi, "question": question_text(wi)}})
    study = {"status": "open", "created": _now(), "seed": seed, "base_url": base_url,
             "roles": sorted(str(r) for r in ok["persona_role"].dropna().unique()),
             "methods": methods, "dimensions": list(DIMENSIONS),
             "questions": study_questions(domain), "intro": _intro(intro),
             "outcomes": [domain.negative_outcome, domain.positive_outcome],
             "items": items, "participants": {}}
    links = _add_participants(study, participants, rng, role=_role(role))
    write_study(run_dir, study, what=f"study created: {plural(len(items), 'item')} on {plural(cases, 'case')}, "
                                     f"{plural(participants, 'participant')}; the personas' what-if answers",
                also=persona_files(data, study, sources))
    return links


def add_participants(run, n: int, *, role: str | None = None) -> dict[str, str]:
    """Make ``n`` more participant links for an open study (``role``: fixed by these links)."""
    study = read_study(run)
    if study.get("status") != "open":
        raise RunError("This study is closed; closed studies take no new participants.")
    rng = np.random.default_rng(len(study["participants"]) + int(study.get("seed", 0)) + 7919)
    links = _add_participants(study, n, rng, role=_role(role))
    write_study(run, study, what=f"study: {plural(n, 'participant')} added")
    return links


def _add_participants(study: dict, n: int, rng, *, role: str | None = None) -> dict[str, str]:
    """Make ``n`` links. Each participant sees the cases in an order of their own and, within a case, every
    explanation of it one after the other, in an order of their own (so progress reads "explanation 2 of
    6 for case 1 of 3"), with labels drawn per participant."""
    links = {}
    methods = study["methods"]
    by_case: dict[int, list[str]] = {}
    for item in study["items"]:
        by_case.setdefault(int(item["instance_index"]), []).append(item["item_id"])
    cases = list(by_case)
    for _ in range(n):
        pid = f"p{len(study['participants']) + 1}"
        token = new_token()
        order = []
        for k in rng.permutation(len(cases)):
            ids = by_case[cases[int(k)]]
            order += [ids[int(i)] for i in rng.permutation(len(ids))]
        letters = rng.permutation(len(methods))
        labels = {m: f"Explanation {chr(ord('A') + int(k))}" for m, k in zip(methods, letters)}
        study["participants"][pid] = {"token_sha256": token_hash(token), "order": order, "labels": labels,
                                      "created": _now(), **({"role": role} if role else {})}
        links[pid] = f"{study['base_url'].rstrip('/')}/?token={token}"
    return links


def _intro(text: str | None) -> str:
    text = str(text or "").strip()
    if len(text) > MAX_INTRO:
        raise RunError(f"The introduction is {len(text)} characters long; keep it to {MAX_INTRO} (participants read it "
                       "on a phone) and link to a longer information sheet.")
    return text or DEFAULT_INTRO


def _role(role: str | None) -> str | None:
    role = " ".join(str(role or "").split())
    if len(role) > 120:
        raise RunError(f"The role '{role[:40]}…' is {len(role)} characters long; give a role of at most 120.")
    return role or None


def progress(study: dict, pid: str, item_id: str) -> dict:
    """Where ``item_id`` sits in the participant's order: ``{"case", "cases", "explanation", "explanations"}``
    (case k of n in the order the participant meets the cases; explanation j of m of that case)."""
    items = items_by_id(study)
    order = study["participants"][pid]["order"]
    case_of = {i: int(items[i]["instance_index"]) for i in order if i in items}
    cases = list(dict.fromkeys(case_of[i] for i in order if i in case_of))
    mine = case_of[item_id]
    same = [i for i in order if case_of.get(i) == mine]
    return {"case": cases.index(mine) + 1, "cases": len(cases), "explanation": same.index(item_id) + 1,
            "explanations": len(same)}


def minutes_needed(study: dict, pid: str) -> int:
    """The time estimate for one participant's items, in whole minutes (at least 1)."""
    return max(1, int(np.ceil(len(study["participants"][pid]["order"]) * MINUTES_PER_ITEM)))


def close_study(run) -> None:
    """Close a study: its links stop working; answers stay."""
    study = read_study(run)
    study["status"] = "closed"
    study["closed"] = _now()
    write_study(run, study, what="study closed")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def items_by_id(study: dict) -> dict[str, dict]:
    return {item["item_id"]: item for item in study["items"]}


def shown_ratings(ok: pd.DataFrame) -> pd.DataFrame:
    """Persona ratings that count (status ok)."""
    return ok[ok.get("status", "ok") == "ok"]
