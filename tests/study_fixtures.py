"""A real saved heart run (simulated personas, 8 rated cases) made once per test session, copied per test."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from hexeval_engine import evaluate

OVERRIDES = {"evaluation": {"sample_size": 8}}


@pytest.fixture(scope="session")
def saved_run(tmp_path_factory) -> Path:
    result = evaluate(usecase="heart", output_dir=tmp_path_factory.mktemp("study_runs"), config_overrides=OVERRIDES)
    return Path(result.output_path)


@pytest.fixture
def run_copy(saved_run, tmp_path) -> Path:
    target = tmp_path / "outputs" / "heart" / saved_run.name  # under the runs root the conftest sets
    shutil.copytree(saved_run, target)
    return target


def file_hashes(run_dir: Path) -> dict[str, str]:
    """sha256 of every file under ``run_dir`` (the oracle: hashlib over the bytes on disk)."""
    return {p.relative_to(run_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(run_dir.rglob("*")) if p.is_file()}
