"""Say how many LLM answers of a stage failed and why, in one warning every reader of a run shows.

A persona or narrative stage whose calls failed must not look like a complete run: the warning
counts the failures and quotes the first distinct reasons (:data:`MAX_REASONS`). When every
answer failed its severity is ``"error"`` — the CLI exits non-zero for it unless told to keep
going (``--allow-failed-ratings``).
"""

from __future__ import annotations

from typing import Iterable

from ..vocabulary import plural

MAX_REASONS = 3
"""Distinct failure reasons quoted in a stage's warning."""

STAGES = {"personas": ("persona_ratings_failed", "persona rating", "The persona stage"),
          "narratives": ("narratives_failed", "narrative", "The narrative stage")}


def failure_warning(stage: str, errors: Iterable[str]) -> dict | None:
    """The run warning for ``stage`` (``"personas"`` or ``"narratives"``) from each answer's error ("" when ok).

    Returns ``None`` when nothing failed (or there was nothing to do).
    """
    errors = [str(e or "") for e in errors]
    failed = [e for e in errors if e]
    if not failed:
        return None
    code, noun, who = STAGES[stage]
    reasons: list[str] = []
    for e in failed:
        if e not in reasons:
            reasons.append(e)
        if len(reasons) == MAX_REASONS:
            break
    every = len(failed) == len(errors)
    head = (f"{who} produced nothing: all {plural(len(errors), noun)} failed" if every else
            f"{who}: {len(failed):,} of {plural(len(errors), noun)} failed")
    return {"code": code, "severity": "error" if every else "warning", "failed": len(failed), "total": len(errors),
            "reasons": reasons,
            "message": head + ". First reasons: " + "; ".join(f"({i + 1}) {r}" for i, r in enumerate(reasons))
                       + ("." if reasons[-1][-1:] not in ".!?" else "")}


def all_failed(warnings: Iterable[dict], stage: str = "personas") -> dict | None:
    """The warning saying every answer of ``stage`` failed, if the run has one."""
    code = STAGES[stage][0]
    return next((w for w in warnings if w.get("code") == code and w.get("severity") == "error"), None)
