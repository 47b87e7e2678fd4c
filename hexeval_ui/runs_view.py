"""Saved runs as the sidebar and the result pages see them (listing and cached loading)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from hexeval_engine import HexevalError
from hexeval_engine.runs import store as runs
from hexeval_engine.runs.files import MANIFEST
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


def run_labels(infos, *, with_title: bool | None = None) -> dict[str, str]:
    """Run folder -> :func:`run_label`; runs whose labels coincide are told apart by the seconds of their time,
    then by their order (never by their id: a person names a run by when it ran)."""
    infos = list(infos)
    labels = {str(r.path): run_label(r, with_title=with_title) for r in infos}
    for text in {t for t in labels.values() if list(labels.values()).count(t) > 1}:
        same = [r for r in infos if labels[str(r.path)] == text]
        for r in same:
            labels[str(r.path)] = run_label(r, with_title=with_title, seconds=True)
        for k, r in enumerate(r for r in same if [labels[str(o.path)] for o in same].count(labels[str(r.path)]) > 1):
            labels[str(r.path)] += f" · {k + 1} of that second"
    return labels


def run_id_help(info) -> str | None:
    """The tooltip that gives a run's id (for ``hexeval runs show``): the id is never part of a label."""
    return f"Run id {info.run_id}, for the command line (hexeval runs show)." if info is not None else None


def run_label(info, *, with_title: bool | None = None, seconds: bool = False) -> str:
    """``date · rater · 20 cases``; runs of uploads (or ``with_title``) start with their name. The id is left out:
    :func:`run_labels` tells runs of the same minute apart by their seconds."""
    created = show_time(info.created, short=True, seconds=seconds) if info.created else ""
    size = plural(info.sample_size, "case") if info.sample_size else ""  # words, not the statistician's "n="
    title = getattr(info, "title", "") if (with_title or (with_title is None and info.usecase.startswith(CUSTOM_PREFIX))) \
        else ""
    state = getattr(getattr(info, "integrity", None), "state", "")
    edited = ("edited after the run" if getattr(info, "edited_files", None)
              else "not verifiable" if state == "not verifiable" else "")
    study = "with a study" if getattr(info, "study", "") else ""
    return " · ".join(p for p in (title, created, info.rater, size, study, edited) if p)


#: Characters of use-case name and time in a run picker's label. A picker's value is one line that cannot wrap;
#: on a 390 px phone it holds about 50 characters (284 px at ~5.5 px each, measured by
#: tests/test_browser_compare_pickers.py), so this leaves room for the id that tells equal labels apart.
PICKER_CHARS = 34


def short_run_labels(infos) -> dict[str, str]:
    """Run folder -> ``Heart Disease · 25 Nov, 08:29``: the use case's short name and the time, short enough for
    a picker on a phone. Runs whose short names coincide are told apart by what differs between them: an
    upload's model and data files (``model.skops on data.csv``), else the rater and number of cases, else the
    time with its seconds (never the id)."""
    infos = list(infos)
    names = {str(r.path): (getattr(r, "title", "") or r.usecase).split(" (")[0].strip() for r in infos}
    groups: dict[str, list] = {}
    for r in infos:
        groups.setdefault(names[str(r.path)], []).append(r)

    def detail(info) -> str:
        group = groups[names[str(info.path)]]
        if len(group) == 1:
            return names[str(info.path)]
        files = [_files(getattr(r, "title", "") or "") for r in group]
        mine = _files(getattr(info, "title", "") or "")
        if mine and len(set(files)) > 1:  # "model.skops on data.csv": name the file that differs
            models, datasets = {f[0] for f in files if f}, {f[1] for f in files if f}
            if len(datasets) == 1:
                return mine[0]
            return mine[1] if len(models) == 1 else f"{mine[0]} on {mine[1]}"
        return names[str(info.path)]

    def short(info, text: str, seconds: bool = False) -> str:
        moment = show_time(info.created, short=True, with_year=False, seconds=seconds) if info.created else ""
        room = PICKER_CHARS - len(moment) - 3
        if text.startswith("Custom: "):  # an upload's "Custom: model.skops on data.csv": its files say which
            text = text[len("Custom: "):]
            if len(text) > room and " on " in text:
                text = text.split(" on ", 1)[0]  # the model file alone; the full label is under the picker
        text = text if len(text) <= room else text[:max(room - 1, 4)].rstrip() + "…"
        return " · ".join(p for p in (text, moment) if p)

    labels = {str(r.path): short(r, detail(r)) for r in infos}
    seen: dict[str, list] = {}
    for r in infos:
        seen.setdefault(labels[str(r.path)], []).append(r)
    out = {}
    for text, group in seen.items():
        extras = {str(r.path): "" for r in group}
        if len(group) > 1:
            sizes = {getattr(r, "sample_size", None) for r in group}
            raters = {getattr(r, "rater", "") for r in group}
            for r in group:
                size, rater = getattr(r, "sample_size", None), getattr(r, "rater", "")
                parts = ([plural(size, "case")] if len(sizes) > 1 and size else []) + \
                        ([rater] if len(raters) > 1 and rater else [])
                extras[str(r.path)] = " · ".join(parts)
            texts = [f"{text} · {extras[str(r.path)]}" for r in group]
            if len(set(texts)) < len(texts) or not all(extras.values()):  # the same minute: its seconds say which
                for r in group:
                    out[str(r.path)] = short(r, detail(r), seconds=True)
                continue
        for r in group:
            out[str(r.path)] = f"{text} · {extras[str(r.path)]}" if extras[str(r.path)] else text
    # runs of the same second alike in all of that: told apart by their order (a picker maps a label back to one run)
    counts: dict[str, int] = {}
    for r in infos:
        counts[out[str(r.path)]] = counts.get(out[str(r.path)], 0) + 1
    seen_label: dict[str, int] = {}
    for r in infos:
        text = out[str(r.path)]
        if counts[text] > 1:
            seen_label[text] = seen_label.get(text, 0) + 1
            out[str(r.path)] = f"{text} · {seen_label[text]} of that second"
    return {str(r.path): out[str(r.path)] for r in infos}


def _files(title: str) -> tuple[str, str] | None:
    """``("model.skops", "data.csv")`` from an upload's title ``name (model.skops on data.csv)``, else None."""
    if " (" not in title or " on " not in title:
        return None
    model, _, data = title.split(" (", 1)[1].rstrip(")").partition(" on ")
    return (model.strip(), data.strip()) if model and data else None


@st.cache_data(show_spinner="Loading the run…", max_entries=16)
def _load(path: str, mtime: float):
    return runs.load_run(path)


def manifest_mtime(path) -> float:
    """The newest modification time among the run's files (an edited table reloads the run and re-checks it)."""
    folder = Path(path)
    if not (folder / MANIFEST).exists():
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
        if not _offer_saved_runs():
            empty_state(empty_message)
    else:
        render(run)


def _offer_saved_runs() -> bool:
    """With no run of this session to show but saved runs on the server (a restart, a shared link), say so
    and offer the newest; True when offered."""
    if st.session_state.get(state.VIEWED_RUN) != state.LATEST:
        return False
    saved = saved_runs(state.current_usecase())
    if not saved:
        return False
    newest = saved[0]
    st.info(f"No run was made in this session yet, but {plural(len(saved), 'saved run')} of this use case "
            f"{'is' if len(saved) == 1 else 'are'} on this server. Open the newest ({run_label(newest)}), or choose "
            "one under “Run being viewed” in the sidebar.", icon=":material/history:")
    st.button("Open the newest saved run", icon=":material/folder_open:",
              on_click=_open, args=(str(newest.path),), key="open_newest_saved_run")
    return True


def _open(path: str) -> None:
    st.session_state[state.VIEWED_RUN] = path


def viewed_run():
    """The run the sidebar points at, loaded (cached), or None when there is nothing to show.

    A damaged or deleted run raises ``RunError`` with the engine's message.
    """
    path = state.viewed_run_path()
    return None if path is None else load_cached(path)
