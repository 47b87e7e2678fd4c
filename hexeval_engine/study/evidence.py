"""Bring a run's study evidence up to date: one amendment writing ``human_ratings.csv``,
``study/calibration.json``, ``recommendations.json`` (with human
evidence) and, the first time, ``recommendations_simulated.json`` (the personas' recommendations
before the study, byte for byte). The personas' what-if answers and the label-swap check were
recorded when the study was created (:mod:`.persona_evidence`) and are read here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..runs.amendments import record_amendment
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

HUMAN_RATINGS = "human_ratings.csv"
CALIBRATION = "study/calibration.json"
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
    answers = persona_answers(run_dir, study, run)
    kind = rater_kind(run.manifest)
    calibration = calibration_from(humans, ok_persona_ratings(run), answers, seed=int(study.get("seed", 0)),
                                   persona_kind=kind)
    calibration["judge_checks"] = judge_checks(run, kind, _read_json(run_dir / LABEL_SWAP))
    simulated_path = run_dir / SIMULATED
    original = simulated_path.read_bytes() if simulated_path.exists() else (run_dir / "recommendations.json").read_bytes()
    recommendations = recommend_with_humans(run, humans, json.loads(original))
    files = {HUMAN_RATINGS: csv_text(humans), CALIBRATION: json.dumps(calibration, indent=2),
             "recommendations.json": json.dumps(recommendations, indent=2)}
    if not simulated_path.exists():
        files[SIMULATED] = original
    n_people = humans["participant_id"].nunique()
    record_amendment(run_dir, what=f"study evidence: {plural(len(humans), 'rating')} by {plural(n_people, 'person', 'people')}, "
                        "calibration and recommendations with human evidence", files=files)
    return calibration


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
    path = Path(run_dir) / CALIBRATION
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
