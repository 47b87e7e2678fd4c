"""The feature values of a run's explained cases, read back from the run's own data file.

A run folder stores the explanations and the row positions of the explained test instances, not
the rows themselves. The engine's loader re-creates the exact test split from the data file and
the run's saved config (same seed, same settings); the file's sha256 must match the one recorded
in the manifest, otherwise the values are not shown.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from hexeval_engine import HexevalConfig, HexevalError
from hexeval_engine.models.model_loading import file_sha256
from hexeval_engine.runs.inputs import data_file
from hexeval_engine.data.usecase_data import load_data_for_config
from hexeval_engine.vocabulary import Vocabulary


class CaseDataUnavailable(Exception):
    """Why the feature values of a run's cases cannot be shown (a message for the user)."""


@st.cache_data(show_spinner="Reading the explained cases from the data file…", max_entries=8)
def _case_rows(source: str, sha256: str, config_json: str, target: str | None, ids: tuple[int, ...]) -> pd.DataFrame:
    path = Path(source)
    if not path.is_file():
        raise CaseDataUnavailable(f"the run's data file {path.name} is no longer on this server")
    if sha256 and file_sha256(path) != sha256:
        raise CaseDataUnavailable(f"the data file `{path.name}` has changed since the run, so its rows may differ")
    try:
        config = HexevalConfig.model_validate(json.loads(config_json))
        data = load_data_for_config(path, config, target)
    except (HexevalError, ValidationError) as err:
        raise CaseDataUnavailable(f"the run's data could not be re-read ({err})") from err
    if ids and max(ids) >= len(data.X_test):
        raise CaseDataUnavailable("the re-created test split is smaller than the run's, so its rows may differ")
    rows = data.X_test.iloc[list(ids)]
    words = Vocabulary.from_data(data, config)
    # Column by column: a row of an all-numeric frame would turn every code into a float and miss its label.
    labelled = {iid: {f: words.label(f, rows[f].iloc[k]) for f in data.feature_names}
                for k, iid in enumerate(ids)}
    frame = pd.DataFrame(labelled)
    frame.insert(0, "label", [words.title(f) for f in frame.index])
    frame.insert(0, "meaning", [words.description(f) for f in frame.index])
    return frame


def case_values(run, instance_ids: list[int]) -> pd.DataFrame:
    """Feature (index) × {meaning, label, one column per instance id} with readable values and units.

    The data file is the copy kept in the run folder (uploads), else the file the run read.
    Raises CaseDataUnavailable when the data cannot be matched to the run.
    """
    m = run.manifest
    data = m.get("data") or {}
    if not data.get("source") and not data.get("stored_copy"):
        raise CaseDataUnavailable("the run does not record its data file")
    path = data_file(run.path, m)
    if path is None:
        raise CaseDataUnavailable(f"the run's data file {data.get('original_name') or Path(str(data['source'])).name} "
                                  "is no longer on this server")
    target = (data.get("summary") or {}).get("target")
    return _case_rows(str(path), data.get("sha256", ""), json.dumps(m.get("config") or {}, sort_keys=True),
                      target, tuple(int(i) for i in instance_ids))
