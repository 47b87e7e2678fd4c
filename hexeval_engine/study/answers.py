"""What a participant does through their link: open the study, choose a role, answer item by item.

Every function takes the token, never a participant id from the page: a wrong token, or any token of
a closed study, gets :class:`InvalidLink` and nothing else.
"""

from __future__ import annotations

from datetime import datetime, timezone

from ..errors import HexevalError
from ..ratings_summary import DIMENSIONS
from .create import items_by_id
from .storage import read_answers, read_study, write_answers
from .tokens import participant_for

INVALID_LINK = "This is not a valid study link."
MAX_COMMENT = 2000
MAX_ROLE = 120


class InvalidLink(HexevalError):
    """A token that opens no open study."""

    def __init__(self):
        super().__init__(INVALID_LINK)


class AnswerError(HexevalError):
    """An answer that cannot be saved (a rating outside 1-5, an unknown item)."""


def open_link(run_dir, token) -> tuple[dict, str, dict]:
    """``(study, participant id, answers so far)`` for a valid token of an open study."""
    try:
        study = read_study(run_dir)
    except HexevalError as err:
        raise InvalidLink() from err
    pid = participant_for(token, study.get("participants", {}))
    if pid is None or study.get("status") != "open":
        raise InvalidLink()
    return study, pid, read_answers(run_dir, pid)


def next_item(study: dict, pid: str, record: dict) -> dict | None:
    """The participant's next unanswered item in their own order (None when done)."""
    items = items_by_id(study)
    for item_id in study["participants"][pid]["order"]:
        if item_id not in record.get("answers", {}):
            return items[item_id]
    return None


def shown_item(study: dict, pid: str, record: dict, item: dict) -> dict:
    """What the page shows for one item: no method name, no right answer."""
    role = record.get("role") or ""
    what_if = item.get("what_if") or {}
    return {"item_id": item["item_id"], "label": study["participants"][pid]["labels"][item["method"]],
            "case": item["case"], "case_values": item.get("case_values"), "prediction": item["prediction"],
            "text": item["texts"].get(role, item["default_text"]),
            "question": what_if.get("question"), "options": list(study["outcomes"])}


def set_role(run_dir, token, role: str) -> dict:
    """Record the participant's role (one of the run's, or typed)."""
    study, pid, record = open_link(run_dir, token)
    role = " ".join(str(role).split())[:MAX_ROLE]
    if not role:
        raise AnswerError("Choose or type your role before starting.")
    fixed = study["participants"][pid].get("role")
    if fixed and role != fixed:
        raise AnswerError(f"Your link is for the role {fixed}; reload your link to start in that role.")
    record["role"] = role
    write_answers(run_dir, record)
    return record


def save_answer(run_dir, token, item_id: str, *, scores: dict, comment: str = "", simulation_answer: int | None) -> dict:
    """Save one item's answer (atomically, before the next item is shown) and return the record."""
    study, pid, record = open_link(run_dir, token)
    if not record.get("role"):
        raise AnswerError("Choose your role before answering.")
    if item_id not in study["participants"][pid]["order"]:
        raise AnswerError("This item is not part of your study. Reload your link.")
    clean = {}
    for d in DIMENSIONS:
        value = scores.get(d)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 5:
            raise AnswerError(f"Answer every question with a number from 1 to 5 ({d.replace('_', ' ')} is missing).")
        clean[d] = value
    asks = bool((items_by_id(study)[item_id].get("what_if") or {}).get("question"))
    if simulation_answer not in ((0, 1) if asks else (None,)) or isinstance(simulation_answer, bool):
        raise AnswerError("Choose one of the two predictions for the what-if question before continuing."
                          if asks else "This item has no what-if question, so it takes no answer to one.")
    record.setdefault("answers", {})[item_id] = {**clean, "comment": str(comment or "")[:MAX_COMMENT],
                                                 "simulation_answer": simulation_answer,
                                                 "when": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    write_answers(run_dir, record)
    return record
