"""Complete saved runs for the dashboard tests, written by the engine's own run store.

The tables come from ``recommendation_fixtures`` (technical metrics) plus hand-made ratings and
explanations for two heart test instances, so every section of Results and Recommendations has
something to show without running the explainers.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from hexeval_engine import generate_recommendations, get_usecase, load_config
from hexeval_engine.runs import store as runs
from hexeval_engine.models.model_loading import file_sha256
from recommendation_fixtures import fixture_per_instance, BASE_METRICS, DIMENSIONS, long_table, wide_table

INSTANCES = (3, 7)
ROLES = {"Lead Cardiologist": "Dr. Sam Okafor", "Patient": "Alex Moreau"}
#: (role, method) -> base score; the patient prefers counterfactuals, the cardiologist attributions.
BASE_SCORES = {("Lead Cardiologist", "SHAP"): 5, ("Lead Cardiologist", "LIME"): 4, ("Lead Cardiologist", "Anchor"): 3,
               ("Lead Cardiologist", "DiCE"): 2, ("Patient", "SHAP"): 2, ("Patient", "LIME"): 2,
               ("Patient", "Anchor"): 3, ("Patient", "DiCE"): 5}


def _explanations(failed: str | None) -> list[dict]:
    records = []
    for iid in INSTANCES:
        for method in BASE_METRICS:
            rec = {"method": method, "instance_id": iid, "predicted_class": 1, "probability": 0.8 + iid / 100,
                   "attributions": None, "rule": None, "counterfactuals": None, "importance": None,
                   "importance_derived": method in ("Anchor", "DiCE"),
                   "text": f"{method} plain text for case {iid}: chest pain type matters most.",
                   "technical_text": f"{method} technical form for case {iid}: cp=+0.21, thal=+0.12",
                   "algorithm": f"{method} test algorithm", "seconds": 0.01, "error": None, "extra": {},
                   "shown_to_personas": method != failed}
            if method in ("SHAP", "LIME"):
                rec["attributions"] = {"cp": 0.21, "thal": 0.12, "age": -0.03}
            if method == "Anchor":
                rec["rule"] = {"conditions": [{"feature": "cp", "op": "=", "value": 0, "text": "cp = typical angina"}],
                               "precision": 0.95, "coverage": 0.2}
            if method == "DiCE":
                rec["counterfactuals"] = [{"changes": {"cp": [0, 2]}, "probability": 0.3, "flips": True, "row": {}}]
            if method == failed:
                rec.update(text="", technical_text="", error=f"{method} exploded on purpose")
            records.append(rec)
    return records


def _ratings(shift: int, failed: str | None, rater: str, model: str) -> pd.DataFrame:
    rows = []
    for (role, method), base in BASE_SCORES.items():
        if method == failed:
            continue
        for iid in INSTANCES:
            for run in (1, 2):
                score = int(np.clip(base + shift - (run == 2), 1, 5))
                rows.append({"persona_name": ROLES[role], "persona_role": role, "explanation_type": method,
                             "instance_index": iid, "run": run, **{d: score for d in DIMENSIONS},
                             "comment": f"{ROLES[role]} on {method} for case {iid}: score {score}.",
                             "rater": rater, "model": model, "status": "ok", "error": "", "latency_s": 0.0,
                             "explanation_text": f"{method} plain text for case {iid}: chest pain type matters most.",
                             "label_shown": "Explanation A", "cached": False, "prompt_tokens": 0,
                             "completion_tokens": 0})
    return pd.DataFrame(rows)


#: The fixture roles' declared questions: the cardiologist asks why and what if, the patient how to change it.
FIXTURE_QUESTIONS = {
    "Dr. Fixture": {"role": "Lead Cardiologist", "reason": "refers or reassures", "declared": True,
                    "weights": {"why": 0.5, "what_if": 0.3, "will_it_hold": 0.1, "how_to_change": 0.1}},
    "Alex Fixture": {"role": "Patient", "reason": "wants to lower the risk", "declared": True,
                     "weights": {"why": 0.1, "what_if": 0.1, "will_it_hold": 0.1, "how_to_change": 0.7}},
}


def save_fixture_run(root: Path, *, shift: int = 0, created: str = "2026-01-02T03:04:05+00:00",
                     failed: str | None = None, rater: str = "simulated", with_ratings: bool = True,
                     model_sha256: str = "ab" * 32) -> Path:
    """Write a complete heart run under ``root`` and return its folder.

    ``shift`` moves every rating (and SHAP's insertion AUC) so that two runs differ; ``failed``
    names a method whose explanations failed (its metrics are NaN and it carries an error).
    """
    uc = get_usecase("heart")
    config = load_config(uc.config_path)
    metrics = {m: dict(v) for m, v in BASE_METRICS.items()}
    metrics["SHAP"]["fidelity_insertion"] = (0.8 + shift / 20, 0.75 + shift / 20, 0.85 + shift / 20)
    errors = {}
    if failed:
        metrics[failed] = {k: (np.nan, np.nan, np.nan) for k in metrics[failed]}
        errors[failed] = f"{failed} exploded on purpose"
    wide = wide_table(metrics, errors)
    long = long_table(metrics)
    ratings = _ratings(shift, failed, rater, "simulated" if rater == "simulated" else "test-model") if with_ratings else None
    rater_info = ({"kind": "simulated", "model": "simulated"} if rater == "simulated"
                  else {"kind": "openai", "model": "test-model", "base_url": "http://127.0.0.1:1/v1"})
    if not with_ratings:
        rater_info = {"kind": "none"}
    manifest = {"run_id": runs.new_run_id(), "created": created, "usecase": "heart",
                "usecase_title": uc.title, "status": "complete", "config": config.model_dump(mode="json"),
                "rater": rater_info, "model": {"type": "RandomForestClassifier", "sha256": model_sha256},
                "data": {"source": str(uc.data_path), "sha256": file_sha256(uc.data_path),
                         "summary": {"target": uc.target}},
                "timings": {"total": 1.0, "per_method": {"SHAP": 0.4, "LIME": 0.3, "shared": 0.25, "total": 0.95}},
                "counts": {"sample_size": 12},
                "failures": [{"method": failed, "error": errors[failed]}] if failed else []}
    recommendations = generate_recommendations(long, ratings, config, per_instance=fixture_per_instance(),
                                               rater_kind="simulated", persona_questions=FIXTURE_QUESTIONS)
    tables = {"technical_metrics": wide, "technical_metrics_long": long, "persona_ratings": ratings}
    return runs.save_run(root, "heart", manifest=manifest, tables=tables, recommendations=recommendations,
                         explanations=_explanations(failed))


def mark_with_study(run_dir: Path) -> Path:
    """Give a fixture run an open study with no items and nobody invited yet (fixture runs keep no model, so
    ``create_study`` cannot draw items from them); returns the study file, which is all that marks a run as having
    a study in its label."""
    from hexeval_engine.study.storage import STUDY_FILE  # the tests' import graph keeps study imports local
    path = Path(run_dir) / STUDY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"status": "open", "created": "2026-01-04T00:00:00+00:00", "seed": 0,
                                "base_url": "http://localhost:8502", "roles": [], "methods": [], "dimensions": [],
                                "questions": {}, "intro": "", "outcomes": ["no", "yes"], "items": [],
                                "participants": {}}), encoding="utf-8")
    return path
