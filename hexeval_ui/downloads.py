"""Downloads of a run: every file of its folder as it is on disk, the whole run as one zip, and the
self-contained HTML report.

The report and the zip are built only when their button is clicked. Streamlit builds such deferred
downloads outside the script run, so the builders use no Streamlit call (no ``st.cache_data``,
whose spinner would log "missing ScriptRunContext"); a small in-process cache keyed on the run
folder and its manifest's modification time serves repeated clicks.
"""

from __future__ import annotations

import io
import zipfile
from functools import lru_cache, partial
from pathlib import Path

import streamlit as st

from hexeval_engine.runs import store as runs
from hexeval_engine.runs import files
from hexeval_engine.report.html import render_report
from hexeval_engine.vocabulary import plural

from .runs_view import manifest_mtime

#: Known file name -> (label, mime) in the order shown; any other file of the folder follows.
RUN_FILES = {
    files.TECHNICAL_METRICS: ("Technical metrics (CSV)", "text/csv"),
    files.TECHNICAL_METRICS_LONG: ("Metrics with intervals and directions (CSV)", "text/csv"),
    files.INSTANCE_METRICS: ("Metrics per explained case (CSV)", "text/csv"),
    files.PERSONA_RATINGS: ("Persona ratings (CSV)", "text/csv"),
    files.RECOMMENDATIONS: ("Recommendations (JSON)", "application/json"),
    files.EXPLANATIONS: ("Explanations (JSONL)", "application/x-ndjson"),
    files.NARRATIVES: ("Narratives and their checks (CSV)", "text/csv"),
    files.NARRATIVE_EXTRACTIONS: ("Narratives read back, feature by feature (CSV)", "text/csv"),
    files.MANIFEST: ("Run manifest (JSON)", "application/json"),
}
_MIME = {".csv": "text/csv", ".json": "application/json", ".jsonl": "application/x-ndjson", ".html": "text/html",
         ".txt": "text/plain", ".md": "text/markdown"}


@lru_cache(maxsize=8)
def _report(path: str, mtime: float) -> str:
    return render_report(runs.load_run(path))


def _report_bytes(path: str, mtime: float) -> bytes:
    return _report(path, mtime).encode("utf-8")


REPORT_NAME = files.REPORT  # the HTML report's name inside the zip


@lru_cache(maxsize=4)
def _zip_bytes(path: str, mtime: float) -> bytes:
    """Every file of the run folder and the HTML report in one zip, under a folder named after the run."""
    return zip_run(Path(path), _report(path, mtime))


def zip_run(folder: Path, report_html: str) -> bytes:
    """The zip the "Whole run" button gives: ``<run id>/<every file>`` plus ``<run id>/report.html``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        for file in files:
            archive.write(file, f"{folder.name}/{file.relative_to(folder).as_posix()}")
        if not any(f.relative_to(folder).as_posix() == REPORT_NAME for f in files):
            archive.writestr(f"{folder.name}/{REPORT_NAME}", report_html)
    return buffer.getvalue()


def run_files(folder: Path) -> list[tuple[str, str, str]]:
    """(file name, label, mime) of every file in the run folder: known files first, then the rest."""
    present = {p.name for p in folder.iterdir() if p.is_file()}
    known = [(name, *RUN_FILES[name]) for name in RUN_FILES if name in present]
    others = [(name, name, _MIME.get(Path(name).suffix, "application/octet-stream"))
              for name in sorted(present - set(RUN_FILES))]
    return known + others


def render_downloads(run) -> None:
    """The HTML report, the whole run as a zip, and one button per file of the run folder."""
    folder = Path(run.path)
    mtime = manifest_mtime(folder)
    report, archive = st.columns(2)
    report.download_button("HTML report", partial(_report_bytes, str(folder), mtime),
                           file_name=f"hexeval-{run.usecase}-{run.run_id}.html", mime="text/html", type="primary",
                           icon=":material/description:", on_click="ignore", key="download_report", width="stretch",
                           help="One self-contained HTML file (opens offline): who should see what, then the "
                                "evidence, then the configuration.")
    files = run_files(folder)
    archive.download_button("Whole run (zip)", partial(_zip_bytes, str(folder), mtime),
                            file_name=f"hexeval-{run.usecase}-{run.run_id}.zip", mime="application/zip",
                            icon=":material/folder_zip:", on_click="ignore", key="download_zip", width="stretch",
                            help=f"Every file of this run ({plural(len(files), 'file')}) and the HTML report in one zip "
                                 "archive.")
    st.markdown("**Single files**")
    cols = st.columns(3)
    for i, (name, label, mime) in enumerate(files):
        cols[i % 3].download_button(label, (folder / name).read_bytes(), file_name=f"{run.run_id}-{name}", mime=mime,
                                    icon=":material/download:", on_click="ignore", key=f"download_{name}",
                                    width="stretch", help=f"The file {name} exactly as saved with the run.")
