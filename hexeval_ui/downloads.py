"""Downloads of a run: its saved files as they are on disk, and the self-contained HTML report."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import streamlit as st

from hexeval_engine.report import render_report

from .runs_view import load_cached, manifest_mtime

#: File name -> (label, mime) in the order shown.
RUN_FILES = {
    "technical_metrics.csv": ("Technical metrics (CSV)", "text/csv"),
    "technical_metrics_long.csv": ("Metrics with CIs and directions (CSV)", "text/csv"),
    "persona_ratings.csv": ("Persona ratings (CSV)", "text/csv"),
    "recommendations.json": ("Recommendations (JSON)", "application/json"),
    "explanations.jsonl": ("Explanations (JSONL)", "application/x-ndjson"),
    "run.json": ("Run manifest (JSON)", "application/json"),
}


@st.cache_data(show_spinner="Writing the HTML report…", max_entries=8)
def _report(path: str, mtime: float) -> str:
    return render_report(load_cached(path))


def _report_bytes(path: str, mtime: float) -> bytes:
    return _report(path, mtime).encode("utf-8")


def render_downloads(run) -> None:
    """One button per file of the run folder, plus the HTML report (generated only when clicked)."""
    folder = Path(run.path)
    st.download_button("HTML report", partial(_report_bytes, str(folder), manifest_mtime(folder)),
                       file_name=f"hexeval-{run.usecase}-{run.run_id}.html", mime="text/html", type="primary",
                       icon=":material/description:", on_click="ignore", key="download_report",
                       help="One self-contained HTML file (opens offline): metrics, charts, ratings and recommendations.")
    present = [(name, *RUN_FILES[name]) for name in RUN_FILES if (folder / name).exists()]
    cols = st.columns(3)
    for i, (name, label, mime) in enumerate(present):
        cols[i % 3].download_button(label, (folder / name).read_bytes(), file_name=f"{run.run_id}-{name}", mime=mime,
                                    icon=":material/download:", on_click="ignore", key=f"download_{name}",
                                    help=f"`{name}` exactly as saved in the run folder.")
    st.caption(f"Run folder on the server: `{folder}`")
