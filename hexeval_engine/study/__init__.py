"""People in the loop: blinded studies on a saved run, personas calibrated against people.

Public API (see ``docs/studies.md``): :func:`create_study`, :func:`import_ratings`,
:func:`calibration`.
"""

from __future__ import annotations

from pathlib import Path

from .create import add_participants, close_study, create_study
from .evidence import read_calibration, refresh_evidence
from .import_csv import ImportProblems, template
from .import_csv import import_ratings as _import_ratings


def import_ratings(run, path) -> int:
    """Import ratings from a CSV template into the run's study and refresh its evidence; rows imported."""
    n = _import_ratings(run, path)
    refresh_evidence(run)
    return n


def calibration(run) -> dict:
    """The calibration of the run's personas against its study's people (recomputed and recorded)."""
    return refresh_evidence(Path(run))


__all__ = ["ImportProblems", "add_participants", "calibration", "close_study", "create_study", "import_ratings",
           "read_calibration", "refresh_evidence", "template"]
