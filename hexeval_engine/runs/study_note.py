"""A run's study in a few words, for run listings (CLI ``runs list``, the dashboard's run pickers and tables).

Read straight from the study's files (``study/study.json`` and the answer files; the study stage sits
above the runs stage, so it is not imported): "study open · 1 of 2 people answered" or "study closed ·
2 people, 36 ratings". A run without a study gives "", a damaged study file "study (cannot be read)".
"""

from __future__ import annotations

import json
from pathlib import Path

from ..vocabulary import plural

STUDY_FILE = "study/study.json"
ANSWERS_DIR = "study/answers"


def study_note(run_dir) -> str:
    """The run's study in a few words ("" without a study)."""
    run_dir = Path(run_dir)
    path = run_dir / STUDY_FILE
    if not path.is_file():
        return ""
    try:
        study = json.loads(path.read_text(encoding="utf-8"))
        invited = len(study.get("participants") or {})
        answered, ratings = 0, 0
        for answers in sorted((run_dir / ANSWERS_DIR).glob("p*.json")):
            n = len(json.loads(answers.read_text(encoding="utf-8")).get("answers") or {})
            answered += n > 0
            ratings += n
    except (OSError, ValueError, AttributeError):
        return "study (cannot be read)"
    ratings += len(study.get("imported") or [])
    if study.get("status") == "open":
        return f"study open · {answered} of {plural(invited, 'person', 'people')} answered"
    return f"study closed · {plural(answered, 'person', 'people')}, {plural(ratings, 'rating')}"
