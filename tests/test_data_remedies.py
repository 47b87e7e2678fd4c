"""The data remedies the quality report recommends: drop duplicates, exclude or clip implausible values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hexeval_engine import ConfigError, load_config, load_data


@pytest.fixture
def ages_csv(tmp_path):
    rng = np.random.default_rng(1)
    n = 200
    frame = pd.DataFrame({"age": rng.integers(20, 70, n), "income": rng.normal(50, 10, n).round(1),
                          "target": np.arange(n) % 2})
    frame.loc[[3, 17], "age"] = [144, 123]  # impossible ages, as in the credit-risk data
    path = tmp_path / "ages.csv"
    frame.to_csv(path, index=False)
    return path


def test_implausible_values_are_counted_and_kept_by_default(ages_csv):
    data = load_data(ages_csv, "target", plausible_ranges={"age": (18, 100)})
    assert data.quality.implausible_rows == 2 and data.quality.outliers["age"]["max"] == 144
    assert data.X_all["age"].max() == 144 and not data.quality.remedies


def test_exclude_drops_the_rows_before_splitting(ages_csv):
    data = load_data(ages_csv, "target", plausible_ranges={"age": (18, 100)}, implausible_values="exclude")
    assert len(data.X_all) == 198 and data.X_all["age"].max() < 100
    assert data.quality.implausible_rows_excluded == 2 and "excluded 2 rows" in data.quality.remedies["implausible values"]


def test_clip_replaces_values_with_the_nearest_plausible_one_seen(ages_csv):
    raw = pd.read_csv(ages_csv)
    data = load_data(ages_csv, "target", plausible_ranges={"age": (18, 100)}, implausible_values="clip")
    assert len(data.X_all) == 200 and data.X_all["age"].max() == raw.loc[raw["age"] <= 100, "age"].max()
    assert pd.api.types.is_integer_dtype(data.X_all["age"]) and data.quality.implausible_values_clipped == 2


def test_duplicates_dropped_before_splitting_leave_no_leaking_test_rows(tmp_path):
    rng = np.random.default_rng(2)
    base = pd.DataFrame({"x": rng.permutation(1000)[:60], "target": np.arange(60) % 2})
    path = tmp_path / "dupes.csv"
    pd.concat([base] * 4).to_csv(path, index=False)
    leaky = load_data(path, "target")
    assert leaky.quality.duplicate_rows == 180 and leaky.quality.duplicates_crossing_split > 0
    assert any("leakage" in w for w in leaky.quality.warnings)
    clean = load_data(path, "target", drop_duplicates=True)
    assert clean.quality.duplicates_dropped == 180 and clean.quality.duplicates_crossing_split == 0
    assert "dropped 180 duplicate rows" in clean.quality.remedies["duplicates"]


def test_config_keys_for_remedies_and_encodings_are_validated():
    cfg = load_config(None, {"data": {"implausible_values": "clip", "categorical_encoding": "label"}})
    assert cfg.data.implausible_values == "clip" and cfg.data.categorical_encoding == "label"
    with pytest.raises(ConfigError, match="implausible_values"):
        load_config(None, {"data": {"implausible_values": "drop"}})
    with pytest.raises(ConfigError, match="category_order"):
        load_config(None, {"data": {"categorical_encoding": "ordinal"}})
