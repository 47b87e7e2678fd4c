"""Upload messages name the user's files, never the server's temporary folder (unsupported model, truncated
file, wrong format)."""

from __future__ import annotations

import io
import tempfile

import pandas as pd
import pytest
import skops.io as sio
from sklearn.datasets import load_breast_cancer
from sklearn.svm import LinearSVC

from hexeval_ui.upload import UploadedFile, check_upload


def _cancer_csv() -> UploadedFile:
    frame = load_breast_cancer(as_frame=True).frame
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return UploadedFile("cancer.csv", buffer.getvalue().encode())


def _no_probability_model() -> bytes:
    data = load_breast_cancer(as_frame=True)
    return sio.dumps(LinearSVC(max_iter=200).fit(data.data, data.target))


CASES = {
    "unsupported model (no probabilities)": lambda: UploadedFile("svm_model.skops", _no_probability_model()),
    "truncated file": lambda: UploadedFile("svm_model.skops", _no_probability_model()[:300]),
    "wrong format (a CSV named .skops)": lambda: UploadedFile("svm_model.skops", b"a,b\n1,2\n"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_upload_errors_name_the_users_file_and_no_server_path(case):
    check = check_upload(CASES[case](), _cancer_csv(), "target")
    try:
        assert check.errors, f"{case} must be refused"
        for message in check.errors + check.warnings:
            assert str(check.folder) not in message, message
            assert tempfile.gettempdir() + "/" not in message, message
            assert "hexeval-upload-" not in message, message
        assert any("svm_model.skops" in m or "model file" in m.lower() for m in check.errors), check.errors
    finally:
        check.discard()


def test_a_plausible_unknown_dataset_raises_no_implausible_value_warning():
    data = load_breast_cancer(as_frame=True)
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(data.data, data.target)
    check = check_upload(UploadedFile("lr.skops", sio.dumps(model)), _cancer_csv(), "target")
    try:
        assert check.ok, check.errors
        assert check.quality is not None and check.quality.implausible_rows == 0
        assert not any("implausible" in w for w in check.warnings), check.warnings
    finally:
        check.discard()
