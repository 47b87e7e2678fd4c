"""Bring a run's study evidence up to date: one amendment writing ``human_ratings.csv``,
``study/persona_answers.csv``, ``study/calibration.json``, ``recommendations.json`` (with human
evidence) and, the first time, ``recommendations_simulated.json`` (the personas' recommendations
before the study, byte for byte).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..runs.store import load_run
from ..vocabulary import plural
from .calibration import calibration_from
from .cells import csv_text
from .forward import persona_answers
from .human_table import human_ratings
from .recommend import recommend_with_humans
from .sources import load_sources
from ..runs.amendments import record_amendment
from .storage import read_study

HUMAN_RATINGS = "human_ratings.csv"
CALIBRATION = "study/calibration.json"
PERSONA_ANSWERS = "study/persona_answers.csv"
SIMULATED = "recommendations_simulated.json"


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
    sources = load_sources(run_dir, run.manifest)
    answers = persona_answers(study, run.explanations, sources.data)
    calibration = calibration_from(humans, ok_persona_ratings(run), answers, seed=int(study.get("seed", 0)),
                                   persona_kind=str((run.manifest.get("rater") or {}).get("kind", "simulated")))
    stats = run.manifest.get("persona_stats") or {}
    calibration["judge_checks"] = {
        "test_retest": stats.get("agreement") or None,
        "label_swap": None,
        "notes": ["Test-retest comes from the run's repeated persona ratings (empty when each item was rated once).",
                  "The label-swap check needs an LLM rater re-asked with the labels swapped; this run has none."],
    }
    simulated_path = run_dir / SIMULATED
    original = simulated_path.read_bytes() if simulated_path.exists() else (run_dir / "recommendations.json").read_bytes()
    recommendations = recommend_with_humans(run, humans, json.loads(original))
    files = {HUMAN_RATINGS: csv_text(humans), PERSONA_ANSWERS: csv_text(answers),
             CALIBRATION: json.dumps(calibration, indent=2),
             "recommendations.json": json.dumps(recommendations, indent=2)}
    if not simulated_path.exists():
        files[SIMULATED] = original
    n_people = humans["participant_id"].nunique()
    record_amendment(run_dir, what=f"study evidence: {plural(len(humans), 'rating')} by {plural(n_people, 'person', 'people')}, "
                        "calibration and recommendations with human evidence", files=files)
    return calibration


def read_calibration(run_dir) -> dict | None:
    """The run's stored calibration (None before any study evidence)."""
    path = Path(run_dir) / CALIBRATION
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
