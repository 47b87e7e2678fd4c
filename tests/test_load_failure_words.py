"""Load failures and recorded failures say in words what is wrong and how to fix it, never a Python exception name."""

from __future__ import annotations

import io
import pickle
import re
import zipfile

import numpy as np
import pytest
import skops.io as sio
from sklearn.linear_model import LogisticRegression

from hexeval_engine.config.loader import load_config
from hexeval_engine.errors import ConfigError, ModelError
from hexeval_engine.models.model_loading import load_model
from hexeval_engine.plain_values import describe_error, kind_of

EXCEPTION_NAME = re.compile(r"\b(?:[A-Z][A-Za-z]*(?:Error|Exception)|BadZipFile)\b")


def _model():
    rng = np.random.default_rng(0)
    return LogisticRegression().fit(rng.random((20, 2)), [0, 1] * 10)


def _zip_without_schema() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("notes.txt", "hello")
    return buffer.getvalue()


FILES = {  # file name, bytes, words the message must contain
    "truncated skops": ("model.skops", lambda: sio.dumps(_model())[:300], "cut off"),
    "empty skops": ("model.skops", lambda: b"", "is empty"),
    "CSV named .skops": ("model.skops", lambda: b"age,sex\n50,1\n", "plain text"),
    "zip that is no skops model": ("model.skops", _zip_without_schema, "zip archive but not a skops model"),
    "pickle named .skops": ("model.skops", lambda: pickle.dumps([1, 2]), "pickle file"),
    "truncated pickle": ("model.pkl", lambda: pickle.dumps(_model())[:100], "not a complete pickle"),
}


@pytest.mark.parametrize("case", list(FILES))
def test_a_broken_model_file_is_described_in_words_with_the_fix(case, tmp_path):
    name, make, words = FILES[case]
    path = tmp_path / name
    path.write_bytes(make())
    with pytest.raises(ModelError) as caught:
        load_model(path, allow_pickle=True)
    message = str(caught.value)
    assert words in message, message
    assert name in message and "dump" in message, message  # names the file and the way to save it again
    assert not EXCEPTION_NAME.search(message), message
    assert str(tmp_path) not in message, message


def test_a_skops_file_whose_model_cannot_be_rebuilt_names_the_versions_not_the_exception(tmp_path, monkeypatch):
    path = tmp_path / "model.skops"
    sio.dump(_model(), path)

    def broken_load(*_args, **_kwargs):
        raise AttributeError("module 'sklearn.linear_model' has no attribute 'OldModel'")

    monkeypatch.setattr(sio, "load", broken_load)
    monkeypatch.setattr(sio, "loads", broken_load)  # the loader reads the file once and rebuilds from its bytes
    with pytest.raises(ModelError) as caught:
        load_model(path)
    message = str(caught.value)
    assert "scikit-learn 1." in message and "skops 0." in message, message
    assert "Save it again" in message and not EXCEPTION_NAME.search(message), message


@pytest.mark.parametrize("err, expected", [
    (RuntimeError("LIME exploded\nTraceback line"), "LIME exploded"),
    (KeyError("age"), "a needed entry is missing: age"),
    (MemoryError(), "the computer ran out of memory"),
    (FileNotFoundError(2, "No such file or directory"), "No such file or directory"),
    (ValueError(), "an unexpected error that gave no details (the log has the rest)"),
])
def test_describe_error_gives_the_words_without_the_type_name(err, expected):
    assert describe_error(err) == expected


@pytest.mark.parametrize("value, expected", [
    ([1, 2], "a list"), ("text", "a piece of text"), ({"a": 1}, "a mapping of names to values"),
    (None, "nothing"), (np.int64(3), "a number"), (True, "a yes/no value"),
])
def test_kind_of_names_a_value_in_words(value, expected):
    assert kind_of(value) == expected


def test_a_config_that_is_a_list_is_described_in_words(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("- a\n- b\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).endswith("it contains a list."), str(caught.value)
