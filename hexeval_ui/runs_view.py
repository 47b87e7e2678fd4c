"""Saved runs as the sidebar and the result pages see them (listing and cached loading)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from . import state
from .engine import outputs_root, runs_module


def saved_run_labels(usecase: str) -> dict[str, str]:
    """Complete saved runs of ``usecase``: folder -> short label. Empty when this build has no run store."""
    runs = runs_module()
    if runs is None or usecase == state.CUSTOM:
        return {}
    return {str(r.path): _label(r) for r in runs.list_runs(outputs_root(), usecase)}


def _label(run) -> str:
    manifest = getattr(run, "manifest", {}) or {}
    created = str(manifest.get("created", ""))[:16].replace("T", " ")
    rater = manifest.get("rater", "")
    return " · ".join(p for p in (created or Path(run.path).name, str(rater)) if p)


@st.cache_data(show_spinner="Loading the run…")
def _load(path: str, mtime: float):
    return runs_module().load_run(path)


def viewed_run():
    """The run the sidebar points at, loaded (cached), or None when there is nothing to show."""
    path = state.viewed_run_path()
    if path is None or runs_module() is None:
        return None
    manifest = Path(path) / "run.json"
    return _load(path, manifest.stat().st_mtime if manifest.exists() else 0.0)
