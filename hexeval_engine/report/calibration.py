"""The report's calibration section: a run's study with real people, read from the files the study recorded.

``study/calibration.json`` (agreement of personas with people per role and question, what-if accuracy
paired against Random, the judge checks) and ``human_ratings.csv`` (people's comments). Every text a
participant wrote (a typed role, a comment) is HTML-escaped; numbers come with their 95% interval and
the real n of people and ratings. The report stage reads the stored files only (it never imports the
study stage, which sits above it).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from ..ratings_summary import DIMENSIONS
from ..runs.files import HUMAN_RATINGS, STUDY_CALIBRATION
from ..vocabulary import dimension_label, plural, signed
from .sections import esc

MAX_COMMENTS = 12
"""People's comments quoted per role (the rest are in human_ratings.csv)."""

MEASURES = {"spearman": "Personas vs people over cases (Spearman)",
            "kendall_tau_methods": "Order of methods (Kendall τ)",
            "alpha_humans": "People among themselves (Krippendorff's α, the ceiling)",
            "alpha_personas_humans": "Personas with people (Krippendorff's α)"}
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _estimate(entry: dict | None) -> str:
    if not entry or entry.get("value") is None:
        return "not measurable"
    if entry.get("ci_low") is None:
        return f"{entry['value']:.2f} (too few cases for an interval)"
    return f"{entry['value']:.2f} [{entry['ci_low']:.2f}, {entry['ci_high']:.2f}]"


def _share(entry: dict | None) -> str:
    if not entry:
        return "–"
    interval = f" [{entry['ci_low']:.0%}, {entry['ci_high']:.0%}]" if entry.get("ci_low") is not None else ""
    return f"{entry['value']:.0%} of {entry['n']}{interval}"


def _versus(entry: dict | None) -> str:
    if not entry or entry.get("value") is None:
        return "–"
    interval = f" [{signed(entry['ci_low'])}, {signed(entry['ci_high'])}]" if entry.get("ci_low") is not None else ""
    return f"{signed(entry['value'])}{interval}, {plural(entry['n'], 'pair')}"


def shown_text(cell) -> str:
    """A text cell of a CSV HEXEval wrote, as the person typed it (the formula guard's leading ``'`` removed)."""
    text = "" if cell is None or (not isinstance(cell, str) and pd.isna(cell)) else str(cell)
    return text[1:] if text[:1] == "'" and text[1:2] and text[1:2] in _FORMULA_STARTS else text


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _forward(block: dict, persona_kind: str) -> str:
    forward = block.get("forward_accuracy") or {}
    methods = sorted(set(forward.get("people", {})) | set(forward.get("personas", {})))
    if not methods:
        return ""
    who = "Simulated readers" if persona_kind == "simulated" else "LLM personas"
    rows = [[m, _share(forward.get("people", {}).get(m)),
             "(the baseline)" if m == "Random" else _versus(forward.get("people_vs_random", {}).get(m)),
             _share(forward.get("personas", {}).get(m)),
             "(the baseline)" if m == "Random" else _versus(forward.get("personas_vs_random", {}).get(m))]
            for m in methods]
    failures = forward.get("n_persona_failures") or 0
    note = (f"<p class='muted'>{esc(plural(failures, 'persona answer'))} failed and count for no method "
            "(see study/persona_answers.csv).</p>") if failures else ""
    return ("<h4>Questions with a right answer</h4><p>Share of what-if questions answered as the model decides, and "
            "the paired difference from the Random explanation on the same people (or personas) and cases.</p>"
            + _table(["Explanation", "People right", "People: difference from Random", f"{who} right",
                      f"{who}: difference from Random"], rows)
            + f"<p>{esc(block.get('forward_sentence', ''))}</p>" + note)


def _comments(humans: pd.DataFrame | None, role: str) -> str:
    if humans is None or "comment" not in humans:
        return ""
    of_role = humans[(humans["role"].map(shown_text) == role) & humans["comment"].map(shown_text).str.strip().ne("")]
    if of_role.empty:
        return ""
    items = "".join(f"<li><strong>{esc(r['explanation_type'])}</strong>, case {esc(r['instance_index'])}: "
                    f"{esc(shown_text(r['comment']))}</li>" for _, r in of_role.head(MAX_COMMENTS).iterrows())
    more = f"<p class='muted'>{esc(plural(len(of_role) - MAX_COMMENTS, 'more comment'))} in human_ratings.csv.</p>" \
        if len(of_role) > MAX_COMMENTS else ""
    return f"<h4>What people wrote</h4><ul>{items}</ul>{more}"


def _covers(covers: dict | None) -> str:
    """When the calibration was computed and from how many answers (answers given later are not in it)."""
    if not covers:
        return ""
    when = datetime.fromisoformat(covers["computed_at"]).astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<p class='muted'>Computed {esc(when)} from {esc(plural(covers['n_ratings'], 'rating'))} by "
            f"{esc(plural(covers['n_people'], 'person', 'people'))}; answers given later are not included until the "
            "operator recomputes (<code>hexeval study status</code> or the Results page).</p>")


def calibration_section(run_dir, recommendations: dict | None = None) -> str:
    """The calibration section of a run with study answers ("" for a run without them)."""
    if run_dir is None:
        return ""
    path = Path(run_dir) / STUDY_CALIBRATION
    if not path.is_file():
        return ""
    calibration = json.loads(path.read_text(encoding="utf-8"))
    if not calibration.get("roles"):
        return ""
    humans_path = Path(run_dir) / HUMAN_RATINGS
    humans = pd.read_csv(humans_path, dtype=str, keep_default_na=False) if humans_path.is_file() else None
    kind = calibration.get("persona_kind", "simulated")
    parts = ["<section id='calibration'><h2>Real people: study answers and calibration</h2>",
             "<p>Intervals are 95% bootstrap intervals over cases. Krippendorff's α among people is the ceiling: "
             "personas cannot be expected to agree with people better than people agree with each other.</p>",
             _covers(calibration.get("covers"))]
    for role, block in calibration["roles"].items():
        rows = [[dimension_label(d), *(_estimate(block["dimensions"][d].get(k)) for k in MEASURES)] for d in DIMENSIONS]
        parts += [f"<h3>{esc(role)}</h3>",
                  f"<p><strong>{esc(plural(block['n_people'], 'person', 'people'))}, "
                  f"{esc(plural(block['n_ratings'], 'rating'))}</strong> "
                  f"({esc(plural(block.get('n_persona_ratings', 0), 'persona rating'))} to compare with). "
                  f"{esc(block.get('sentence', ''))}</p>",
                  f"<p class='muted'>{esc(block['note'])}</p>" if block.get("note") else "",
                  _table(["Question", *MEASURES.values()], rows), _forward(block, kind), _comments(humans, role)]
    checks = calibration.get("judge_checks") or {}
    if checks:
        parts.append("<h3>Checks of the personas that need no people</h3>"
                     f"<p>{esc(checks.get('test_retest_text', ''))}</p><p>{esc(checks.get('label_swap_text', ''))}</p>")
    picks = (recommendations or {}).get("picks") or {}
    if picks:
        parts.append("<h3>Who would pick what</h3>" + _table(
            ["Stakeholder", "People's pick", "People", "Personas' pick", "Personas"],
            [[role, p.get("people_pick") or "–", str(p.get("n_people", 0)), p.get("personas_pick") or "–",
              str(p.get("n_personas", 0))] for role, p in picks.items()]))
    parts.append("</section>")
    return "".join(parts)
