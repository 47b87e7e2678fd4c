"""The model, data and config a saved run was made with, reloaded and checked against its manifest."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config.schema import HexevalConfig
from ..data.dataset import Dataset
from ..data.usecase_data import load_data_for_config
from ..errors import RunError
from ..models.model_loading import load_model
from ..models.model_wrapper import HexevalModel
from ..paths import shown
from ..runs.inputs import data_file, matches_record, model_file


@dataclass
class RunSources:
    """What a study needs from a run besides its tables."""

    config: HexevalConfig
    data: Dataset
    model: HexevalModel


def load_sources(run_dir, manifest: dict) -> RunSources:
    """Reload the run's model and data (its stored copies, else the files it was made from).

    Raises
    ------
    RunError
        A file is gone or its bytes differ from what the run recorded.
    """
    run_dir = Path(run_dir)
    config = HexevalConfig.model_validate({k: v for k, v in manifest["config"].items() if k != "source"})
    files = {}
    for what, find, section in (("model", model_file, manifest.get("model") or {}),
                                ("data", data_file, manifest.get("data") or {})):
        path = find(run_dir, manifest)
        if path is None:
            raise RunError(f"The {what} file of run {shown(run_dir.name)} is gone, so its cases cannot be re-predicted. "
                           f"Restore it, or re-run the evaluation with the {what} kept in the run folder.")
        if not matches_record(path, section):
            raise RunError(f"The {what} file of run {shown(run_dir.name)} changed since the run was made "
                           "(its hash differs), so the study's right answers would not be the run's model's. "
                           "Restore the original file or re-run the evaluation.")
        files[what] = path
    # The operator's own disk (the run folder or the file the operator evaluated): not an upload.
    model = load_model(files["model"], allow_pickle=True, threshold=(manifest.get("model") or {}).get("threshold"))
    data = load_data_for_config(files["data"], config, target_column=config.data.target)
    return RunSources(config, data, model)
