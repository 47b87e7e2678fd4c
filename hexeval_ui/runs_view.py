"""Saved runs as the sidebar and the result pages see them (listing and cached loading)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from hexeval_engine import HexevalError
from hexeval_engine.runs import store as runs
from hexeval_engine.plain_values import show_time
from hexeval_engine.vocabulary import plural

from . import state
from .components import empty_state, show_error
from .engine import outputs_root


CUSTOM_PREFIX = "custom-"  # evaluate files runs of your own model and CSV under outputs/custom-<name>/


def scan(usecase: str) -> tuple[list, list]:
    """Complete saved runs of ``usecase`` (``RunInfo``, newest first) and damaged folders (``RunProblem``).

    For "Custom Upload" (``state.CUSTOM``): the runs of every upload, whatever their name.
    """
    if usecase != state.CUSTOM:
        return runs.scan_runs(outputs_root(), usecase)
    infos, problems = runs.scan_runs(outputs_root())
    return ([r for r in infos if r.usecase.startswith(CUSTOM_PREFIX)],
            [p for p in problems if p.path.parent.name.startswith(CUSTOM_PREFIX)])


def all_runs() -> list:
    """Every complete saved run, of every use case and upload, newest first."""
    return runs.scan_runs(outputs_root())[0]


def saved_runs(usecase: str) -> list:
    return scan(usecase)[0]


def saved_run_labels(usecase: str) -> dict[str, str]:
    """Complete saved runs of ``usecase``: folder -> short label."""
    return {str(r.path): run_label(r) for r in saved_runs(usecase)}


def run_label(info, *, with_title: bool | None = None) -> str:
    """``date · rater · 20 cases · id``; runs of uploads (or ``with_title``) start with their name."""
    created = show_time(info.created, short=True) if info.created else ""
    size = plural(info.sample_size, "case") if info.sample_size else ""  # words, not the statistician's "n="
    title = getattr(info, "title", "") if (with_title or (with_title is None and info.usecase.startswith(CUSTOM_PREFIX))) \
        else ""
    state = getattr(getattr(info, "integrity", None), "state", "")
    edited = ("edited after the run" if getattr(info, "edited_files", None)
              else "not verifiable" if state == "not verifiable" else "")
    study = "with a study" if getattr(info, "study", "") else ""
    return " · ".join(p for p in (title, created, info.rater, size, info.run_id[-6:], study, edited) if p)


#: Characters of use-case name and time in a run picker's label. A picker's value is one line that cannot wrap;
#: on a 390 px phone it holds about 50 characters (284 px at ~5.5 px each, measured by
#: tests/test_browser_compare_pickers.py), so this leaves room for the id that tells equal labels apart.
PICKER_CHARS = 34


def short_run_labels(infos) -> dict[str, str]:
    """Run folder -> ``Heart Disease · 25 Nov, 08:29``: the use case's short name and the time, short enough for
    a picker on a phone; runs whose short labels coincide add their id's last characters to tell them apart."""
    def short(info) -> str:
        title = (getattr(info, "title", "") or info.usecase).split(" (")[0].strip()
        moment = show_time(info.created, short=True, with_year=False) if info.created else ""
        room = PICKER_CHARS - len(moment) - 3
        title = title if len(title) <= room else title[:max(room - 1, 4)].rstrip() + "…"
        return " · ".join(p for p in (title, moment) if p)

    labels = {str(r.path): short(r) for r in infos}
    seen: dict[str, int] = {}
    for text in labels.values():
        seen[text] = seen.get(text, 0) + 1
    ids = {str(r.path): r.run_id[-4:] for r in infos}
    return {path: text if seen[text] == 1 else f"{text} · {ids[path]}" for path, text in labels.items()}


@st.cache_data(show_spinner="Loading the run…", max_entries=16)
def _load(path: str, mtime: float):
    return runs.load_run(path)


def manifest_mtime(path) -> float:
    """The newest modification time among the run's files (an edited table reloads the run and re-checks it)."""
    folder = Path(path)
    if not (folder / runs.MANIFEST).exists():
        return 0.0
    return max((p.stat().st_mtime for p in folder.iterdir() if p.is_file()), default=0.0)


def load_cached(path) -> "runs.RunData":
    """The run at ``path``, loaded once per version of its files (a deleted run raises RunError)."""
    return _load(str(path), manifest_mtime(path))


def render_viewed_run(render, empty_message: str) -> None:
    """Render the viewed run with ``render(run)``; the engine's error or ``empty_message`` otherwise."""
    try:
        run = viewed_run()
    except HexevalError as err:
        show_error(err)
        run = None
    if run is None:
        empty_state(empty_message)
    else:
        render(run)


def viewed_run():
    """The run the sidebar points at, loaded (cached), or None when there is nothing to show.

    A damaged or deleted run raises ``RunError`` with the engine's message.
    """
    path = state.viewed_run_path()
    return None if path is None else load_cached(path)
