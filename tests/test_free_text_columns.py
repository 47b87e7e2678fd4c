"""Free-text and identifier-like columns get a data-quality note naming them and saying what HEXEval does."""

from __future__ import annotations

import numpy as np
import pandas as pd

from hexeval_engine.data.dataset import load_data


def _csv(tmp_path, **columns):
    rng = np.random.default_rng(0)
    n = 80
    frame = pd.DataFrame({"age": rng.integers(20, 80, n), "colour": rng.choice(["red", "blue"], n), **columns,
                          "target": np.tile([0, 1], n // 2)})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_column_of_very_long_values_is_named_as_free_text(tmp_path):
    notes = [f"{i} " + "x" * 100_000 for i in range(40)] * 2  # 40 distinct, each 100,002+ characters
    data = load_data(_csv(tmp_path, notes=notes), "target")
    (note,) = [w for w in data.quality.warnings if "'notes'" in w]
    assert "looks like free text" in note and "40 distinct of 80 values" in note
    assert "HEXEval treats it as a categorical feature" in note and "Remove the column" in note
    assert data.quality.free_text_columns["notes"]["longest"] >= 100_002
    assert "colour" not in data.quality.free_text_columns and "age" not in data.quality.free_text_columns


def test_a_nearly_all_distinct_short_text_column_is_named_as_an_identifier(tmp_path):
    ids = [f"C{i:05d}" for i in range(78)] + ["C00000", "C00001"]
    data = load_data(_csv(tmp_path, customer=ids), "target")
    (note,) = [w for w in data.quality.warnings if "'customer'" in w]
    assert "looks like an identifier" in note and "78 distinct of 80 values" in note


def test_ordinary_categories_and_numbers_get_no_such_note(tmp_path):
    data = load_data(_csv(tmp_path, grade=["A", "B", "C", "D"] * 20), "target")
    assert data.quality.free_text_columns == {}
    assert not [w for w in data.quality.warnings if "looks like" in w]
