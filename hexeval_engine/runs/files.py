"""The name of every file HEXEval writes into a run folder, in one place; everything else imports them."""

from __future__ import annotations

MANIFEST = "run.json"
"""The run's manifest: settings, inputs, timings, table hashes and the signature."""

TABLES = {
    "technical_metrics": "technical_metrics.csv",
    "technical_metrics_long": "technical_metrics_long.csv",
    "instance_metrics": "instance_metrics.csv",
    "instance_metrics_unshared": "instance_metrics_unshared.csv",
    "persona_ratings": "persona_ratings.csv",
    "narratives": "narratives.csv",
    "narrative_extractions": "narrative_extractions.csv",
}
"""The run's CSV tables, by the key a run's tables are known under (``RunData``, ``manifest["tables"]``)."""

TECHNICAL_METRICS = TABLES["technical_metrics"]
TECHNICAL_METRICS_LONG = TABLES["technical_metrics_long"]
INSTANCE_METRICS = TABLES["instance_metrics"]
INSTANCE_METRICS_UNSHARED = TABLES["instance_metrics_unshared"]
PERSONA_RATINGS = TABLES["persona_ratings"]
NARRATIVES = TABLES["narratives"]
NARRATIVE_EXTRACTIONS = TABLES["narrative_extractions"]

RECOMMENDATIONS = "recommendations.json"
EXPLANATIONS = "explanations.jsonl"
REPORT = "report.html"
"""The HTML report (``hexeval report`` writes it next to the tables; the dashboard's zip holds it)."""

DATA_COPY = "input_data.csv"
"""The kept copy of the run's CSV (``keep_inputs``)."""
MODEL_COPY_STEM = "input_model"
"""The kept copy of the run's model file: this stem and the model file's own suffix."""

HUMAN_RATINGS = "human_ratings.csv"
"""Human ratings a study added to the run (an amendment)."""
SIMULATED_RECOMMENDATIONS = "recommendations_simulated.json"
"""The personas-only recommendations, kept when a study's human ratings replaced them."""
STUDY_CALIBRATION = "study/calibration.json"
"""How well the personas agreed with a study's people (an amendment, inside the run folder)."""

READ_BY_HEXEVAL = (*TABLES.values(), RECOMMENDATIONS, EXPLANATIONS)
"""Files the run loader reads: one present but never recorded was added after the run."""

RUN_FILES = frozenset({*READ_BY_HEXEVAL, REPORT, DATA_COPY})
"""Files HEXEval writes into a run folder (besides :data:`MANIFEST` and ``input_model.*``)."""
