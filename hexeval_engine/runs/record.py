"""An evaluation's results as a run: the manifest's extra sections, the tables, and saving them.

:func:`~hexeval_engine.evaluate.evaluate` hands its stage results here; this module decides which
tables a run folder holds and writes them with :func:`~hexeval_engine.runs.store.save_run`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .inputs import record_copies
from .manifest import explanation_records
from .store import save_run


def add_evaluation_sections(manifest: dict, *, warnings: list, sanity: dict, narratives, performance: dict,
                            copies: dict[str, Path]) -> dict:
    """Complete ``manifest`` (from :func:`~hexeval_engine.runs.manifest.build_manifest`) in place and return it.

    Parameters
    ----------
    manifest : dict
        The run's manifest.
    warnings : list of dict
        The run's warnings (sanity checks, data, ...).
    sanity : dict
        The sanity checks' results.
    narratives : NarrativeResult or None
        The narrative stage's result; its ``stats`` are recorded.
    performance : dict
        The model's held-out performance (the model card).
    copies : dict
        ``{name in the run folder: source file}`` of the inputs kept with the run.
    """
    manifest["warnings"], manifest["sanity_checks"] = warnings, sanity
    if narratives is not None:
        manifest["narratives"] = narratives.stats
    manifest["model"]["performance"] = performance
    record_copies(manifest, copies)
    return manifest


def evaluation_tables(technical, ratings: pd.DataFrame | None, narratives) -> dict[str, pd.DataFrame | None]:
    """The tables a run folder holds, by key of :data:`~hexeval_engine.runs.files.TABLES`."""
    tables = {"technical_metrics": technical.metrics, "technical_metrics_long": technical.metrics_long,
              "instance_metrics": technical.per_instance, "persona_ratings": ratings,
              "narratives": narratives.table if narratives is not None else None,
              "narrative_extractions": narratives.extractions if narratives is not None else None}
    if technical.per_instance_unshared is not None and len(technical.per_instance_unshared):
        tables["instance_metrics_unshared"] = technical.per_instance_unshared
    return tables


def save_evaluation(outputs_root, usecase: str, *, manifest: dict, technical, ratings, narratives,
                    recommendations: dict, save_explanations: bool, copies: dict[str, Path]) -> Path:
    """Write the evaluation as a run folder (atomically, see ``save_run``) and return the folder.

    ``save_explanations`` False keeps only the explanations shown to personas (``output.save_explanations``).
    """
    return save_run(outputs_root, usecase, manifest=manifest, tables=evaluation_tables(technical, ratings, narratives),
                    recommendations=recommendations,
                    explanations=explanation_records(technical, ratings, only_shown=not save_explanations),
                    files=copies)
