"""Messages for mistakes a first-time user makes name the problem, the value and the fix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hexeval_engine import DataError, get_usecase, load_data
from hexeval_engine.cli.main import main as cli


@pytest.fixture
def churn_csv(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"tenure": rng.integers(1, 72, 60), "churn": rng.integers(0, 2, 60)})
    path = tmp_path / "churn.csv"
    frame.to_csv(path, index=False)
    return path


def test_wrong_case_target_suggests_the_column(churn_csv):
    with pytest.raises(DataError, match=r"Target column 'Churn' is not in the CSV\. Did you mean 'churn'\?"):
        load_data(churn_csv, "Churn")


def test_unknown_positive_label_shows_plain_values_and_the_key(churn_csv):
    with pytest.raises(DataError) as err:
        load_data(churn_csv, "churn", positive_label="churned")
    message = str(err.value)
    assert "data.positive_label" in message and "np.int64" not in message
    assert "its values are 0 and 1" in message or "its values are 1 and 0" in message


def test_cli_evaluate_prints_validation_warnings(tmp_path, capsys):
    heart = get_usecase("heart")
    frame = pd.read_csv(heart.data_path).assign(unused_note="x")  # a column the model does not use
    data = tmp_path / "heart_extra.csv"
    frame.to_csv(data, index=False)
    code = cli(["evaluate", str(heart.model_path), str(data), "--target", "target", "--no-personas",
                "--sample-size", "5", "--output", str(tmp_path / "runs"), "--quiet"])
    assert code == 0
    assert "warning: The CSV has a column the model does not use: unused_note" in capsys.readouterr().out


def test_a_measurement_chosen_as_target_is_called_a_measurement_not_multi_class(churn_csv):
    assert load_data(churn_csv, "tenure").is_regression  # a number the model would predict, not 70 classes
    with pytest.raises(DataError, match=r"Target column 'tenure' has \d+ different values .*at most 20 classes and "
                                        "regressors of a numeric target"):
        load_data(churn_csv, "tenure", task="multiclass")


def test_a_model_input_chosen_as_target_is_named_as_such(usecase_bundle, capsys):
    usecase_bundle("heart")
    heart = get_usecase("heart")
    assert cli(["validate", str(heart.model_path), str(heart.data_path), "--target", "sex"]) == 1
    out = capsys.readouterr().out
    assert "The model uses the column sex as an input, but it was chosen as the target" in out
    assert "the CSV lacks" not in out
