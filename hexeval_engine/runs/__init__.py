"""Run folders: save, list, load, compare and delete runs (``hexeval_engine.runs.list_runs`` is public)."""

from .compare import compare_runs
from .store import RunData, RunInfo, delete_run, list_runs, load_run, save_run, scan_runs

__all__ = ["RunData", "RunInfo", "compare_runs", "delete_run", "list_runs", "load_run", "save_run", "scan_runs"]
