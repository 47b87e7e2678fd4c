"""The explainers' coded training space is computed once per dataset, and again whenever the dataset changed."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from hexeval_engine.data.dataset import load_data
from hexeval_engine.explainers import base
from hexeval_engine.explainers.base import ExplainerSpace
from hexeval_engine.explainers.registry import build_explainer


@pytest.fixture
def heart(usecase_bundle):
    uc, config, _, model = usecase_bundle("heart")
    data = load_data(uc.data_path, "target", categorical_features=["cp", "thal", "slope"], random_state=42)
    return data, config, model


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = ExplainerSpace._computed.__func__

    def counting(cls, data):
        calls.append(id(data))
        return real(cls, data)

    monkeypatch.setattr(ExplainerSpace, "_computed", classmethod(counting))
    return calls


def _expected_train(data) -> np.ndarray:
    """The coded training matrix, computed here from the frame: codes by position, NaN filled per column."""
    coder = data.coder
    columns = []
    for col in coder.feature_names:
        values = data.X_train[col]
        if col in coder.categories:
            lookup = {v: k for k, v in enumerate(coder.categories[col])}
            coded = np.array([lookup.get(v, np.nan) for v in values], dtype=float)
        else:
            coded = values.to_numpy(dtype=float)
        columns.append(coded)
    return np.column_stack(columns)


def test_every_explainer_of_a_dataset_shares_one_space(heart, counted):
    data, config, model = heart
    built = [build_explainer(m, model, data, config, seed=1) for m in ("LIME", "Anchor", "DiCE", "LIME")]
    assert len(counted) == 1
    spaces = {id(e.space) for e in built}
    assert len(spaces) == 1
    space = built[0].space
    np.testing.assert_array_equal(space.train, _expected_train(data))  # heart has no missing values
    assert not space.train.flags.writeable and not space.fill.flags.writeable
    with pytest.raises(ValueError):
        space.train[0, 0] = 1.0


def test_a_cell_written_in_place_is_noticed(heart, counted):
    data, _, _ = heart
    before = ExplainerSpace.from_data(data)
    column = data.feature_names.index("age")
    data.X_train.iloc[3, column] = data.X_train.iloc[3, column] + 7
    after = ExplainerSpace.from_data(data)
    assert len(counted) == 2
    assert after.train[3, column] == before.train[3, column] + 7
    np.testing.assert_array_equal(after.train, _expected_train(data))


def test_a_reassigned_frame_or_changed_coder_is_noticed(heart, counted):
    data, _, _ = heart
    ExplainerSpace.from_data(data)
    data.X_train = data.X_train.iloc[::-1]
    reversed_rows = ExplainerSpace.from_data(data)
    assert len(counted) == 2
    np.testing.assert_array_equal(reversed_rows.train, _expected_train(data))
    data.coder.categories["cp"].reverse()  # the coder edited in place: every cp code changes
    recoded = ExplainerSpace.from_data(data)
    assert len(counted) == 3
    np.testing.assert_array_equal(recoded.train, _expected_train(data))
    assert not np.array_equal(recoded.train, reversed_rows.train)
    ExplainerSpace.from_data(data)
    assert len(counted) == 3  # unchanged since: the entry is used


def test_equal_datasets_get_their_own_entries_and_collected_ones_leave(heart, counted):
    data, _, _ = heart
    twin = load_data(data.source, "target", categorical_features=["cp", "thal", "slope"], random_state=42)
    ExplainerSpace.from_data(data)
    ExplainerSpace.from_data(twin)
    assert len(counted) == 2
    twin_key, data_key = id(twin), id(data)
    assert {twin_key, data_key} <= set(base._SPACES._entries)
    del twin
    gc.collect()  # may also collect other tests' datasets: judge these two entries, not the count
    assert twin_key not in base._SPACES._entries and data_key in base._SPACES._entries
