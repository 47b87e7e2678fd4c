"""Bring a run's study evidence up to date: one amendment writing ``human_ratings.csv``,
``study/calibration.json``, ``recommendations.json`` (with human
evidence) and, the first time, ``recommendations_simulated.json`` (the personas' recommendations
before the study, byte for byte). The personas' what-if answers and the label-swap check were
recorded when the study was created (:mod:`.persona_evidence`) and are read here.

The evidence is recomputed when the operator asks (``hexeval study status``/``close``/``import``, the
Results page's button), never on a participant's answer: the calibration records when it was computed
and which answers it covers (:func:`evidence_state` says whether answers arrived since).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from ..runs.amendments import record_amendment, sha256_bytes
from ..runs.files import HUMAN_RATINGS, RECOMMENDATIONS, SIMULATED_RECOMMENDATIONS, STUDY_CALIBRATION
from ..runs.store import load_run
from ..vocabulary import plural
from .calibration import calibration_from
from .cells import csv_text
from .forward import ANSWER_COLUMNS, reader_answers
from .human_table import human_ratings
from .label_swap import summary_text
from .persona_evidence import LABEL_SWAP, PERSONA_ANSWERS, rater_kind
from .recommend import recommend_with_humans
from .sources import load_sources
from .storage import read_study



def ok_persona_ratings(run) -> pd.DataFrame:
    ratings = run.persona_ratings
    if ratings is None:
        return pd.DataFrame(columns=["persona_role", "explanation_type", "instance_index"])
    return ratings[ratings["status"] == "ok"] if "status" in ratings else ratings


def refresh_evidence(run_dir) -> dict:
    """Recompute everything that depends on the study's answers and record it; returns the calibration.

    With no answers yet nothing is written and the calibration is ``{"roles": {}}``.
    """
    run_dir = Path(run_dir)
    study = read_study(run_dir)
    humans = human_ratings(run_dir, study)
    if humans.empty:
        return {"roles": {}, "forward_accuracy_personas": {}}
    run = load_run(run_dir)
    answers = persona_answers(run_dir, study, run)
    kind = rater_kind(run.manifest)
    calibration = calibration_from(humans, ok_persona_ratings(run), answers, seed=int(study.get("seed", 0)),
                                   persona_kind=kind)
    calibration["judge_checks"] = judge_checks(run, kind, _read_json(run_dir / LABEL_SWAP))
    table = csv_text(humans)
    calibration["covers"] = covers(humans, table)
    simulated_path = run_dir / SIMULATED_RECOMMENDATIONS
    original = simulated_path.read_bytes() if simulated_path.exists() else (run_dir / RECOMMENDATIONS).read_bytes()
    recommendations = recommend_with_humans(run, humans, json.loads(original))
    files = {HUMAN_RATINGS: table, STUDY_CALIBRATION: json.dumps(calibration, indent=2),
             RECOMMENDATIONS: json.dumps(recommendations, indent=2)}
    if not simulated_path.exists():
        files[SIMULATED_RECOMMENDATIONS] = original
    n_people = humans["participant_id"].nunique()
    record_amendment(run_dir, what=f"study evidence: {plural(len(humans), 'rating')} by {plural(n_people, 'person', 'people')}, "
                        "calibration and recommendations with human evidence", files=files)
    return calibration


def covers(humans: pd.DataFrame, table: str | None = None) -> dict:
    """Which answers a calibration computed now covers: when, how many ratings and people, and the
    SHA-256 of ``human_ratings.csv``'s text (an answer changed or added since changes it)."""
    return {"computed_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "n_ratings": int(len(humans)), "n_people": int(humans["participant_id"].nunique()),
            "answers_sha256": sha256_bytes((csv_text(humans) if table is None else table).encode("utf-8"))}


def evidence_state(run_dir) -> dict:
    """Whether the run's stored calibration covers the answers its study has now.

    Returns
    -------
    dict
        ``n_ratings`` and ``n_people`` now; ``computed_at``, ``covered_ratings`` and ``covered_people`` of the
        stored calibration (None before the first); ``up_to_date``: the stored calibration was computed from
        exactly the answers there are now (True also when there are no answers and no calibration).

    Raises
    ------
    RunError
        The run has no study (or a damaged one).
    """
    run_dir = Path(run_dir)
    humans = human_ratings(run_dir, read_study(run_dir))
    stored = (read_calibration(run_dir) or {}).get("covers") or {}
    now = sha256_bytes(csv_text(humans).encode("utf-8")) if len(humans) else None
    return {"n_ratings": int(len(humans)), "n_people": int(humans["participant_id"].nunique()),
            "computed_at": stored.get("computed_at"), "covered_ratings": stored.get("n_ratings"),
            "covered_people": stored.get("n_people"),
            "up_to_date": (now is None and not stored) or (now is not None and stored.get("answers_sha256") == now)}


def when_text(computed_at: str | None) -> str:
    """``2026-11-25 09:12 UTC`` from the stored ISO time ("never" before the first computation)."""
    if not computed_at:
        return "never"
    return datetime.fromisoformat(computed_at).astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def state_sentence(state: dict) -> str:
    """The evidence's state in one sentence for the operator (CLI and Results page)."""
    answers = plural(state["n_ratings"], "rating")
    if state["computed_at"] is None:
        if not state["n_ratings"]:
            return "No answers yet, so there is no calibration."
        return (f"The study has {answers} by {plural(state['n_people'], 'person', 'people')}; the calibration and the "
                "recommendations with human evidence have not been computed yet.")
    covered = (f"Calibration last computed {when_text(state['computed_at'])} from "
               f"{plural(state['covered_ratings'], 'rating')} by {plural(state['covered_people'], 'person', 'people')}")
    if state["up_to_date"]:
        return covered + ": it covers every answer so far."
    return covered + f"; the study now has {answers} by {plural(state['n_people'], 'person', 'people')}, so it is out of date."


def persona_answers(run_dir: Path, study: dict, run) -> pd.DataFrame:
    """The personas' what-if answers stored when the study was created; for a study made before they
    were stored, the simulated readers' answers (an LLM is never asked again here)."""
    path = run_dir / PERSONA_ANSWERS
    if path.is_file():
        return pd.read_csv(path, keep_default_na=False)  # "" stays "": no role, no answer, no error
    if rater_kind(run.manifest) != "simulated":
        return pd.DataFrame(columns=ANSWER_COLUMNS)
    sources = load_sources(run_dir, run.manifest)
    return reader_answers(study, run.explanations, sources.data, top_k=sources.config.personas.top_k_features)


def judge_checks(run, kind: str, label_swap: dict | None) -> dict:
    """The LLM-judge checks that need no human: test-retest (from the run) and the label swap (from the study)."""
    agreement = (run.manifest.get("persona_stats") or {}).get("agreement") or None
    runs = int(((run.manifest.get("config") or {}).get("personas") or {}).get("runs_per_method") or 1)
    if agreement:
        retest = ("Test-retest: each rating was repeated " + plural(runs, "time") + "; per question the share of "
                  "identical repeats is " + ", ".join(f"{d.replace('_', ' ')} {v.get('share_identical', 0):.0%}"
                                                      for d, v in agreement.items() if isinstance(v, dict)) + ".")
    elif kind == "simulated":
        retest = ("Test-retest does not apply: the built-in simulator is deterministic, so a repeated rating is "
                  "identical by construction.")
    else:
        retest = ("Test-retest was not measured: each item was rated once (set personas.runs_per_method to 2 or more "
                  "to measure it).")
    return {"test_retest": agreement, "test_retest_text": retest, "label_swap": label_swap,
            "label_swap_text": summary_text(label_swap)}


def _read_json(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def read_calibration(run_dir) -> dict | None:
    """The run's stored calibration (None before any study evidence)."""
    path = Path(run_dir) / STUDY_CALIBRATION
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
