"""Build a run's manifest and the explanation records saved with it (no secrets ever enter these)."""

from __future__ import annotations

import platform
from dataclasses import asdict, is_dataclass
from functools import lru_cache
from importlib import metadata

from ..models.task import task_of

LIBRARIES = ("hexeval", "numpy", "pandas", "scikit-learn", "xgboost", "shap", "lime", "anchor-exp", "dice-ml",
             "openai", "skops", "streamlit")


def library_versions() -> dict[str, str]:
    """The versions of Python and :data:`LIBRARIES` (a new dict each call)."""
    return dict(_installed_versions())


@lru_cache(maxsize=1)
def _installed_versions() -> tuple:
    """Read once per process (every run keys its pieces with them and records them): packages do not change under a
    running process."""
    versions = [("python", platform.python_version())]
    for name in LIBRARIES:
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, "not installed"))
    return tuple(versions)


def build_manifest(*, run_id, usecase, usecase_title, config, data, data_sha256, model, validation, technical,
                   ratings, persona_stats, rater, timings, created) -> dict:
    ok = int((ratings["status"] == "ok").sum()) if ratings is not None and len(ratings) else 0
    n_ratings = int(len(ratings)) if ratings is not None else 0
    return {
        "run_id": run_id,
        "created": created,
        "usecase": usecase,
        "usecase_title": usecase_title,
        "status": "complete",
        "config": config.model_dump(mode="json"),
        "seeds": {"random_state": config.evaluation.random_state},
        "library_versions": library_versions(),
        "model": {"source": model.source, "kind": model.kind, "type": model.type_name, "sha256": model.sha256,
                  "threshold": model.threshold if model.n_classes == 2 else None, "n_classes": model.n_classes,
                  "regression": model.regression,
                  "features": model.feature_names},
        "data": {"source": str(data.source), "sha256": data_sha256, "summary": data.summary(),
                 "quality": data.quality.to_dict()},
        "task": {**task_of(data, config).to_dict(),
                 "explained_classes": {str(k): v for k, v in getattr(technical, "explained_classes", {}).items()}},
        "validation": validation,
        "rater": rater,
        "persona_stats": persona_stats,
        "timings": {**{k: round(v, 4) for k, v in timings.items()},
                    "per_method": {k: round(float(v), 4) for k, v in getattr(technical, "timings", {}).items()}},
        "counts": {"sample_size": len(technical.instance_ids), "explanations": len(technical.explanations),
                   "ratings": n_ratings, "ratings_ok": ok, "ratings_failed": n_ratings - ok,
                   "model_rows": int(getattr(technical, "model_rows", 0))},
        "failures": list(getattr(technical, "failures", [])),
    }


def explanation_records(technical, ratings, *, only_shown: bool = False) -> list[dict]:
    """The run's explanations, each flagged when personas were shown it (with the exact text).

    ``only_shown`` keeps just those shown to personas (``output.save_explanations: false``).
    """
    shown = set()
    if ratings is not None and len(ratings):
        shown = set(zip(ratings["explanation_type"], ratings["instance_index"]))
    records = []
    for exp in technical.explanations:
        item = asdict(exp) if is_dataclass(exp) else dict(exp)
        item["shown_to_personas"] = (item["method"], item["instance_id"]) in shown
        if item["shown_to_personas"] or not only_shown:
            records.append(item)
    return records
