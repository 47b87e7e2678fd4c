"""evaluate(), `hexeval validate` and the dashboard's upload check say the same about the same bad input.

All three call :func:`hexeval_engine.inputs.load_inputs`; these tests feed each the same files and compare
what the user reads: the wrong target, a model that cannot predict probabilities, a CSV that cannot be used.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import skops.io as sio
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import LinearSVC

from hexeval_engine import HexevalError, evaluate, get_usecase
from hexeval_engine.cli.main import main as cli
from hexeval_engine.inputs import load_inputs
from hexeval_ui.upload import UploadedFile, check_upload


def _files(tmp_path, model_name: str, model_bytes: bytes, csv_name: str, csv_bytes: bytes):
    folder = tmp_path / "inputs"
    folder.mkdir()
    model, csv = folder / model_name, folder / csv_name
    model.write_bytes(model_bytes)
    csv.write_bytes(csv_bytes)
    return model, csv


def _by_name(text: str, *paths) -> str:
    """``text`` with each file's path replaced by its name (the upload check shows names, never paths)."""
    for path in paths:
        text = text.replace(str(path), path.name)
    return text


def _three_paths(model, csv, target: str, capsys) -> tuple[str, str, list[str]]:
    """(evaluate's error, the CLI's output, the upload's errors) for the same files and target."""
    with pytest.raises(HexevalError) as err:
        evaluate(model, csv, target, save=False, config_overrides={"personas": {"enabled": False}})
    capsys.readouterr()
    code = cli(["validate", str(model), str(csv), "--target", target])
    out = capsys.readouterr()
    assert code == 1
    check = check_upload(UploadedFile(model.name, model.read_bytes()), UploadedFile(csv.name, csv.read_bytes()),
                         target)
    try:
        assert not check.ok
        return _by_name(str(err.value), model, csv), _by_name(out.out + out.err, model, csv), check.errors
    finally:
        check.discard()


def _same_message(expected: str, evaluated: str, printed: str, uploaded: list[str]) -> None:
    """The line of evaluate's error holding ``expected`` is shown word for word by the CLI and the upload."""
    lines = [line.strip().removeprefix("- ") for line in evaluated.splitlines() if expected in line]
    assert lines, f"evaluate() did not say {expected!r}: {evaluated}"
    message = lines[0]
    assert message in printed, printed
    assert any(message in error for error in uploaded), uploaded


def test_a_target_missing_from_the_csv(tmp_path, capsys, usecase_bundle):
    usecase_bundle("heart")
    heart = get_usecase("heart")
    model, csv = _files(tmp_path, "heart.skops", heart.model_path.read_bytes(), "heart.csv",
                        heart.data_path.read_bytes())
    evaluated, printed, uploaded = _three_paths(model, csv, "Target", capsys)
    _same_message("Target column 'Target' is not in the CSV. Did you mean 'target'?", evaluated, printed, uploaded)


def test_a_model_input_chosen_as_the_target(tmp_path, capsys, usecase_bundle):
    usecase_bundle("heart")
    heart = get_usecase("heart")
    model, csv = _files(tmp_path, "heart.skops", heart.model_path.read_bytes(), "heart.csv",
                        heart.data_path.read_bytes())
    evaluated, printed, uploaded = _three_paths(model, csv, "sex", capsys)
    _same_message("The model uses the column sex as an input, but it was chosen as the target", evaluated,
                  printed, uploaded)


def _cases(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"age": rng.integers(20, 80, n), "income": rng.normal(50, 10, n).round(1)})
    return frame.assign(default=(frame["income"] + rng.normal(0, 5, n) > 50).astype(int))


def test_a_model_that_cannot_predict_probabilities(tmp_path, capsys):
    frame = _cases()
    svm = LinearSVC(max_iter=500).fit(frame[["age", "income"]], frame["default"])
    model, csv = _files(tmp_path, "svm.skops", sio.dumps(svm), "loans.csv", frame.to_csv(index=False).encode())
    evaluated, printed, uploaded = _three_paths(model, csv, "default", capsys)
    _same_message("The model in svm.skops (LinearSVC) has no predict_proba.", evaluated, printed, uploaded)


def test_a_csv_whose_target_has_one_value(tmp_path, capsys, usecase_bundle):
    usecase_bundle("heart")
    heart = get_usecase("heart")
    frame = pd.read_csv(heart.data_path).assign(target=1)
    model, csv = _files(tmp_path, "heart.skops", heart.model_path.read_bytes(), "heart.csv",
                        frame.to_csv(index=False).encode())
    evaluated, printed, uploaded = _three_paths(model, csv, "target", capsys)
    _same_message("Target column 'target' has only one class (1).", evaluated, printed, uploaded)


def test_the_cli_reads_encoded_number_columns_as_categories_like_evaluate(tmp_path, capsys):
    """A pipeline one-hot encoding the number-coded cp and thal: every path explains them as categories
    (``hexeval validate`` used to skip this step and called them numbers)."""
    frame = pd.read_csv(get_usecase("heart").data_path)
    X, y = frame.drop(columns="target"), frame["target"]
    pre = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore"), ["cp", "thal"]),
                             ("num", StandardScaler(), [c for c in X.columns if c not in ("cp", "thal")])])
    model, csv = _files(tmp_path, "pipeline.skops", sio.dumps(make_pipeline(pre, LogisticRegression(max_iter=2000))
                                                              .fit(X, y)),
                        "heart.csv", frame.to_csv(index=False).encode())
    assert cli(["validate", str(model), str(csv), "--target", "target"]) == 0
    printed = capsys.readouterr().out
    assert "categorical: cp, thal" in printed and "cp and thal hold numbers" in printed
    check = check_upload(UploadedFile(model.name, model.read_bytes()), UploadedFile(csv.name, csv.read_bytes()),
                         "target")
    try:
        assert check.ok and "cp and thal hold numbers" in check.column_note
        assert check.dataset_summary["categorical_features"] == ["cp", "thal"]
    finally:
        check.discard()
    assert load_inputs(model, csv, "target").data.categorical_features == ["cp", "thal"]
