"""Custom uploads: safe formats validate, pickles stay refused unless the operator allows them,
and no temporary folder is left behind when checking fails."""

from __future__ import annotations

import gc
import pickle
import tempfile
from pathlib import Path

import pytest

import hexeval_ui.upload as upload
from hexeval_ui.upload import UploadedFile, check_upload


class _RunsCode:
    """Unpickling this object would create a marker file: it must never be unpickled here."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def _heart_files(usecase_bundle):
    uc, *_ = usecase_bundle("heart")
    return (UploadedFile("model.skops", uc.model_path.read_bytes()),
            UploadedFile("heart.csv", uc.data_path.read_bytes()), uc.target)


def test_a_skops_upload_validates_and_discard_removes_its_folder(usecase_bundle):
    model, csv, target = _heart_files(usecase_bundle)
    check = check_upload(model, csv, target)
    assert check.ok, check.errors
    assert check.folder.is_dir()
    check.discard()
    assert not check.folder.exists()


def test_a_pickle_upload_is_refused_without_running_it(usecase_bundle, tmp_path):
    _, csv, target = _heart_files(usecase_bundle)
    marker = tmp_path / "pickle-ran"
    check = check_upload(UploadedFile("model.pkl", pickle.dumps(_RunsCode(marker))), csv, target)
    try:
        assert not check.ok
        assert any("pickle/joblib file, which this server does not accept" in e for e in check.errors)
        assert not marker.exists()
    finally:
        check.discard()


def test_an_unexpected_failure_leaves_no_temporary_folder(usecase_bundle, monkeypatch):
    model, csv, target = _heart_files(usecase_bundle)
    before = set(Path(tempfile.gettempdir()).glob("hexeval-upload-*"))

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(upload, "load_inputs", broken)  # the engine's input check fails unexpectedly
    with pytest.raises(RuntimeError):
        check_upload(model, csv, target)
    assert set(Path(tempfile.gettempdir()).glob("hexeval-upload-*")) == before


def test_an_upload_dropped_with_its_session_leaves_no_temporary_folder(usecase_bundle):
    """A session that ends (a closed tab) never replaces its upload: the folder goes when the check is dropped."""
    model, csv, target = _heart_files(usecase_bundle)
    kept, dropped = check_upload(model, csv, target), check_upload(model, csv, target)
    folder = dropped.folder
    assert folder.is_dir() and dropped.model_path.is_file()
    del dropped
    gc.collect()
    assert not folder.exists()
    assert kept.folder.is_dir() and kept.data_path.is_file()  # a check still held keeps its files
    kept.discard()
    kept.discard()  # a second discard does nothing
    assert not kept.folder.exists()
