"""Every message a bad input produces writes values as a person would: ``1``, not ``np.int64(1)``; no dtype reprs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from hexeval_engine import HexevalError, evaluate, load_data, validate_model_data_compatibility
from hexeval_engine.models.model_wrapper import HexevalModel, describe_target

INTERNALS = ("np.", "dtype(", "numpy.", "Int64Index", "array(")


def _csv(tmp_path, frame: pd.DataFrame, name="data.csv"):
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


def _numeric(n=40, **columns):
    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": rng.normal(size=n), "k": rng.integers(0, 5, n), **columns})


def _message_of(call) -> str:
    with pytest.raises(HexevalError) as err:
        call()
    return str(err.value)


BAD_DATA = {
    "one class": lambda p: load_data(_csv(p, _numeric(target=np.ones(40, dtype=np.int64))), "target"),
    "three classes": lambda p: load_data(_csv(p, _numeric(target=np.arange(40) % 3)), "target", task="binary"),
    "missing target": lambda p: load_data(_csv(p, _numeric(target=[1.0, None] * 20)), "target"),
    "unknown positive label": lambda p: load_data(_csv(p, _numeric(target=np.arange(40) % 2)), "target",
                                                  positive_label=7),
    "too few rows": lambda p: load_data(_csv(p, _numeric(n=3, target=[0, 1, 1])), "target"),
    "unknown categorical": lambda p: load_data(_csv(p, _numeric(target=np.arange(40) % 2)), "target",
                                               categorical_features=["nope"]),
    "bad test size": lambda p: load_data(_csv(p, _numeric(target=np.arange(40) % 2)), "target", test_size=1.5),
}


@pytest.mark.parametrize("case", list(BAD_DATA))
def test_bad_data_messages_show_plain_values(tmp_path, case):
    message = _message_of(lambda: BAD_DATA[case](tmp_path))
    assert not any(token in message for token in INTERNALS), message


def test_model_problems_show_plain_values(tmp_path):
    frame = _numeric(colour=["red", "blue"] * 20, target=np.arange(40) % 2)
    data = load_data(_csv(tmp_path, frame), "target")
    numeric_only = LogisticRegression().fit(frame[["x", "k"]].assign(colour=0).to_numpy(), frame["target"])
    messages = []
    bare = HexevalModel.from_artefact(numeric_only, source="model.skops")
    bare.feature_names = ["x", "k", "colour"]
    messages += validate_model_data_compatibility(bare, data)["errors"]
    strings = LogisticRegression().fit(frame[["x", "k"]], np.where(frame["target"] == 1, "yes", "no"))
    messages += validate_model_data_compatibility(HexevalModel.from_artefact(strings), load_data(
        _csv(tmp_path, frame[["x", "k", "target"]], "numeric.csv"), "target"))["warnings"]
    three = LogisticRegression().fit(frame[["x", "k"]], np.arange(40) % 3)
    messages.append(_message_of(lambda: HexevalModel.from_artefact(three, source="three.skops", data_classes=2,
                                                                    target_note=describe_target(data))))
    assert len(messages) >= 3
    for message in messages:
        assert not any(token in message for token in INTERNALS), message


def test_a_text_column_meeting_a_bare_xgboost_names_the_option_without_internals(tmp_path):
    from label_encoded_model import label_encoded_credit_model

    model_path, data_path = label_encoded_credit_model(tmp_path, rows=800)
    message = _message_of(lambda: evaluate(model_path, data_path, "loan_status", output_dir=tmp_path, save=False,
                                           config_overrides={"personas": {"enabled": False}}))
    assert "data.categorical_encoding: label" in message
    assert not any(token in message for token in INTERNALS), message
