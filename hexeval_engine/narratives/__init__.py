"""Narratives: explanations told as a story, checked for faithfulness (see ``docs/narratives.md``).

Public names
------------
``run_narratives``, ``NarrativeRun``, ``narrative_for``, ``narrative_tools``, ``check_narratives_config``,
``narrative_summary``, ``NARRATIVE_METRICS``, ``NARRATIVES_TABLE``, ``EXTRACTIONS_TABLE``.
"""

from .faithfulness import NARRATIVE_METRICS
from .run import COLUMNS, EXTRACTION_COLUMNS, NarrativeRun, audiences_for, narrated_ids, narrative_for, run_narratives
from .summary import narrative_summary
from .tools import NarrativeTools, check_narratives_config, narrative_tools

NARRATIVES_TABLE = "narratives"
"""Key of the narratives table in ``save_run``'s ``tables`` (file ``narratives.csv``)."""
EXTRACTIONS_TABLE = "narrative_extractions"
"""Key of the per-feature extraction table (file ``narrative_extractions.csv``)."""

__all__ = ["COLUMNS", "EXTRACTIONS_TABLE", "EXTRACTION_COLUMNS", "NARRATIVES_TABLE", "NARRATIVE_METRICS",
           "NarrativeRun", "NarrativeTools", "audiences_for", "check_narratives_config", "narrated_ids",
           "narrative_for", "narrative_summary", "narrative_tools", "run_narratives"]
