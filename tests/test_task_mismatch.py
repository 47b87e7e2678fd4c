"""A model of another task than the target (a regressor on a 0/1 target, a 3-class model on a
two-class target) is refused with a message naming both and the fix."""

from __future__ import annotations

import joblib
import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LogisticRegression

from hexeval_engine import ModelError, evaluate
from hexeval_engine.cli.main import main as cli


@pytest.fixture
def binary_csv(tmp_path):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    y = (X["a"] > 0).astype(int)
    path = tmp_path / "data.csv"
    X.assign(outcome=y).to_csv(path, index=False)
    return X, y, path


def test_regressor_on_a_binary_target(tmp_path, binary_csv):
    X, y, csv = binary_csv
    path = tmp_path / "reg.joblib"
    joblib.dump(RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y), path)
    with pytest.raises(ModelError) as err:
        evaluate(path, csv, "outcome", output_dir=tmp_path / "runs", allow_pickle=True)
    message = str(err.value)
    assert "RandomForestRegressor" in message and "is a regressor" in message
    assert "the target 'outcome' has 2 classes (0 and 1)" in message and "train a classifier" in message
    assert str(tmp_path) not in message


def test_three_class_model_on_a_binary_target(tmp_path, binary_csv, capsys):
    X, _, csv = binary_csv
    path = tmp_path / "multi.joblib"
    joblib.dump(LogisticRegression().fit(X, np.arange(len(X)) % 3), path)
    code = cli(["validate", str(path), str(csv), "--target", "outcome"])
    shown = capsys.readouterr()
    message = shown.out + shown.err
    assert code == 1
    assert "3 classes (0, 1 and 2)" in message and "the target 'outcome' has 2 classes (0 and 1)" in message


def test_xgboost_regressor_file_on_a_binary_target(tmp_path, binary_csv):
    X, y, csv = binary_csv
    path = tmp_path / "reg.json"
    xgb.XGBRegressor(n_estimators=3).fit(X, y).save_model(path)
    with pytest.raises(ModelError, match=r"XGBoost regressor \(reg:squarederror\).*target 'outcome' has 2 classes"):
        evaluate(path, csv, "outcome", output_dir=tmp_path / "runs")
