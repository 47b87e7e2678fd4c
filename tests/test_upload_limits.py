"""Uploads cannot choose server paths and are size-limited per kind of file (issue 14, defect 3)."""

from __future__ import annotations

import pytest
from test_yaml_safety import alias_bomb

from hexeval_ui import upload
from hexeval_ui.upload import UploadedFile, check_upload


@pytest.fixture
def heart_files(usecase_bundle):
    uc, *_ = usecase_bundle("heart")
    return (UploadedFile("model.skops", uc.model_path.read_bytes()),
            UploadedFile("heart.csv", uc.data_path.read_bytes()), uc.target)


@pytest.mark.parametrize("config_text, key", [
    ("output:\n  dir: /tmp/anywhere-the-user-likes\n", "output.dir"),
    ("personas:\n  file: /etc/hexeval/other-personas.yaml\n", "personas.file"),
    ("evaluation:\n  parallel:\n    backend: dask\n    scheduler_address: tcp://203.0.113.9:8786\n",
     "evaluation.parallel"),
    # The narrator used to send the operator's key to whatever URL an uploaded config named.
    ("narratives:\n  base_url: http://203.0.113.9/v1\n", "narratives.base_url"),
    ("personas:\n  base_url: http://203.0.113.9/v1\n", "personas.base_url"),
])
def test_an_uploaded_config_cannot_choose_server_paths(heart_files, config_text, key, tmp_path):
    model, csv, target = heart_files
    check = check_upload(model, csv, target, config=UploadedFile("config.yaml", config_text.encode()))
    try:
        assert not check.ok
        assert any(f"sets {key}" in e and "cannot choose" in e for e in check.errors), check.errors
    finally:
        check.discard()


def test_an_uploaded_config_with_ordinary_settings_is_accepted(heart_files):
    model, csv, target = heart_files
    config = UploadedFile("config.yaml", b"evaluation:\n  sample_size: 20\noutput:\n  save_explanations: false\n")
    check = check_upload(model, csv, target, config=config)
    try:
        assert check.ok, check.errors
    finally:
        check.discard()


@pytest.mark.parametrize("kind, field", [("CSV", "csv"), ("model file", "model"), ("evaluation config", "config"),
                                         ("persona file", "personas")])
def test_each_kind_of_upload_has_a_size_limit(heart_files, monkeypatch, kind, field):
    model, csv, target = heart_files
    monkeypatch.setitem(upload.SIZE_LIMITS, kind, 100)
    files = {"model": model, "csv": csv, "config": UploadedFile("c.yaml", b"#" * 200),
             "personas": UploadedFile("p.yaml", b"#" * 200)}
    extra = {k: files[k] for k in ("config", "personas") if k == field}
    check = check_upload(files["model"], files["csv"], target, **extra)
    try:
        assert not check.ok
        assert any(f"uploads are limited to 0 KB per {kind}" in e for e in check.errors), check.errors
        assert not any(check.folder.iterdir())  # nothing was written for a refused upload
    finally:
        check.discard()


def test_an_uploaded_alias_bomb_is_refused_briefly(heart_files):
    model, csv, target = heart_files
    bomb = UploadedFile("personas.yaml", (alias_bomb() + "personas:\n  - name: *a6\n").encode())
    check = check_upload(model, csv, target, personas=bomb)
    try:
        assert any("anchors and aliases" in e for e in check.errors)
        assert sum(len(e) for e in check.errors) < 3000
    finally:
        check.discard()
