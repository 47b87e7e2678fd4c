"""The run's warnings for the report: what the dashboard shows above a run's results, near the top.

Two kinds come from a saved run: the run's own warnings (``run.json`` ``warnings``, or
``recommendations.json`` ``warnings`` for older runs; each a dict with ``message`` and an optional
``severity``), and the data-quality warnings of the file it was evaluated on
(``run.json`` ``data.quality.warnings``, plain strings). Errors always stay in view; a long list of
the rest is folded (open on click, opened for printing). Every message is HTML-escaped, and the
column names the data-quality check writes (``Column 'loan_int_rate'``) are replaced by the feature's
name from the run's vocabulary.
"""

from __future__ import annotations

import re

from ..vocabulary import Vocabulary, plural
from .sections import esc

#: At most this many warnings are shown open; more are folded behind a summary line.
OPEN_LIMIT = 3

_COLUMN = re.compile(r"Column '([^']+)'")


def run_warnings(manifest: dict | None, recommendations: dict | None) -> list[dict]:
    """The run's own warnings (``model_has_no_signal`` …), each a dict with a ``message``.

    Parameters
    ----------
    manifest : dict or None
        The run's ``run.json``.
    recommendations : dict or None
        The run's ``recommendations.json`` (older runs kept their warnings there only).

    Returns
    -------
    list of dict
        The warnings that carry a message, in the order the run recorded them.
    """
    found = (manifest or {}).get("warnings") or (recommendations or {}).get("warnings") or []
    return [w for w in found if isinstance(w, dict) and w.get("message")]


def data_warnings(manifest: dict | None) -> list[str]:
    """The data-quality warnings of the run's data, with column names replaced by feature names.

    Parameters
    ----------
    manifest : dict or None
        The run's ``run.json``.

    Returns
    -------
    list of str
        One sentence per warning.
    """
    manifest = manifest or {}
    quality = (manifest.get("data") or {}).get("quality") or {}
    found = [str(w) for w in quality.get("warnings") or [] if w]
    vocabulary = Vocabulary.from_domain((manifest.get("config") or {}).get("domain") or {})
    return [_COLUMN.sub(lambda m: f"The feature “{vocabulary.name(m.group(1))}”", w) for w in found]


def warnings_section(manifest: dict | None, recommendations: dict | None) -> str:
    """The warnings as HTML for the report's first screen; ``""`` when the run has none.

    Parameters
    ----------
    manifest : dict or None
        The run's ``run.json``.
    recommendations : dict or None
        The run's ``recommendations.json``.

    Returns
    -------
    str
        Errors as an alert, the other warnings as a list, folded when there are more than
        :data:`OPEN_LIMIT` of them.
    """
    found = run_warnings(manifest, recommendations)
    errors = [w["message"] for w in found if w.get("severity") == "error"]
    others = [w["message"] for w in found if w.get("severity") != "error"] + data_warnings(manifest)
    parts = [f"<p class='rater-note' role='alert'><strong>Error.</strong> {esc(message)}</p>" for message in errors]
    if others:
        items = "<ul>" + "".join(f"<li>{esc(message)}</li>" for message in others) + "</ul>"
        title = f"{plural(len(others), 'warning')} about this run and its data"
        if len(others) > OPEN_LIMIT:
            parts.append(f"<details class='fold warnings'><summary><strong>{esc(title)}</strong> (click to open)"
                         f"</summary>{items}</details>")
        else:
            parts.append(f"<div class='warnings'><p><strong>{esc(title[:1].upper() + title[1:])}</strong></p>"
                         f"{items}</div>")
    return f"<section id='warnings' aria-label='Warnings'>{''.join(parts)}</section>" if parts else ""
