"""Where a study lives in its run folder, read and written only through amendments.

``study/study.json``: the study's settings and items (with the right answers, never shown).
``study/answers/<participant>.json``: one file per participant, rewritten atomically after every
answer, so closing the tab loses nothing and participants never write the same file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import RunError
from ..paths import shown
from ..plain_values import describe_error
from ..runs.amendments import finish_pending, record_amendment

STUDY_FILE = "study/study.json"
ANSWERS_DIR = "study/answers"
_PARTICIPANT = re.compile(r"^p[0-9]{1,4}$")


def study_path(run_dir) -> Path:
    return Path(run_dir) / STUDY_FILE


def has_study(run_dir) -> bool:
    return study_path(run_dir).is_file()


def read_study(run_dir) -> dict:
    """The study of a run.

    Raises
    ------
    RunError
        The run has no study, or its study file is damaged.
    """
    path = study_path(run_dir)
    if Path(run_dir).is_dir():
        finish_pending(run_dir)  # an answer a killed server journaled is saved whole before anything is read
    if not path.is_file():
        raise RunError(f"Run {shown(Path(run_dir).name)} has no study. Create one with `hexeval study create RUN`.")
    try:
        study = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunError(f"The study of run {shown(Path(run_dir).name)} is damaged ({describe_error(err)}). "
                       "Create a new study on a fresh run.") from err
    problem = _shape_problem(study)
    if problem:
        raise RunError(f"The study of run {shown(Path(run_dir).name)} is damaged ({problem}). "
                       "Create a new study on a fresh run.")
    return study


#: What every part of a study reads, and the type it must have (a file edited by hand or cut short can lack any).
STUDY_SHAPE = {"status": str, "base_url": str, "roles": list, "methods": list, "dimensions": list, "questions": dict,
               "outcomes": list, "items": list, "participants": dict}


def _shape_problem(study) -> str | None:
    if not isinstance(study, dict):
        return "it is not a study record"
    missing = [key for key in STUDY_SHAPE if key not in study]
    if missing:
        return f"it lacks {', '.join(missing)}"
    wrong = [key for key, kind in STUDY_SHAPE.items() if not isinstance(study[key], kind)]
    if wrong:
        return f"{', '.join(wrong)} {'has' if len(wrong) == 1 else 'have'} the wrong form"
    return None


def write_study(run_dir, study: dict, *, what: str, also: dict | None = None) -> None:
    """Record the study file (and ``also``: more ``{relpath: text}`` of the same change) as one amendment."""
    record_amendment(run_dir, what=what, files={STUDY_FILE: json.dumps(study, indent=2), **(also or {})})


def is_link_id(participant_id: str) -> bool:
    """Whether ``participant_id`` has the form of a participant link's id (``p1`` ... ``p9999``).

    Those ids are reserved for links, present and future (``add_participants`` numbers on): an
    imported respondent with such an id would be merged with a link's participant.
    """
    return bool(_PARTICIPANT.match(str(participant_id).strip().lower()))


def answers_relpath(participant_id: str) -> str:
    if not _PARTICIPANT.match(str(participant_id)):
        raise RunError(f"'{shown(participant_id)}' is not a participant id of this study (ids look like p1).")
    return f"{ANSWERS_DIR}/{participant_id}.json"


def read_answers(run_dir, participant_id: str) -> dict:
    """A participant's answers so far (an empty record before the first answer)."""
    path = Path(run_dir) / answers_relpath(participant_id)
    if not path.is_file():
        return {"participant_id": participant_id, "role": None, "answers": {}}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise RunError(f"The answers of participant {participant_id} are damaged ({describe_error(err)}). Restore the "
                       "file from a backup, or give the participant a new link.") from err


def all_answers(run_dir) -> list[dict]:
    """Every participant's answer record (participants who have not started are left out)."""
    folder = Path(run_dir) / ANSWERS_DIR
    if not folder.is_dir():
        return []
    records = []
    for path in sorted(folder.glob("p*.json")):
        if _PARTICIPANT.match(path.stem):
            records.append(read_answers(run_dir, path.stem))
    return records


def write_answers(run_dir, record: dict) -> None:
    """Save one participant's record atomically and record it in the run's manifest."""
    pid = record["participant_id"]
    record_amendment(run_dir, what=f"study answers of participant {pid} ({len(record.get('answers', {}))} items)",
                     files={answers_relpath(pid): json.dumps(record, indent=2)})
