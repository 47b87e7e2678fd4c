"""Per-case tables the recommender reads (``metrics.table.case_table``): pandas' mean pivot, exactly."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from hexeval_engine.metrics.table import case_table


def _long(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 60
    rows = pd.DataFrame({"instance_id": rng.integers(0, 15, n), "method": rng.choice(["SHAP", "LIME", "DiCE", "Random"], n),
                         "value": rng.normal(size=n)})
    rows.loc[rng.random(n) < 0.25, "value"] = np.nan  # cases without a value
    rows.loc[rows["method"] == "DiCE", "value"] = np.nan if seed % 2 else rows["value"]  # a method with none at all
    return rows


@pytest.mark.parametrize("seed", range(6))
def test_case_table_is_the_mean_pivot(seed):
    rows = _long(seed)
    expected = rows.pivot_table(index="instance_id", columns="method", values="value", aggfunc="mean")
    pd.testing.assert_frame_equal(case_table(rows), expected, check_exact=True)


def test_case_table_means_repeated_values_and_leaves_gaps():
    rows = pd.DataFrame({"instance_id": [1, 1, 2, 3], "method": ["SHAP", "SHAP", "LIME", "SHAP"],
                         "value": [0.2, 0.4, 1.0, np.nan]})
    table = case_table(rows)
    assert list(table.columns) == ["LIME", "SHAP"] and list(table.index) == [1, 2]  # case 3 has no value
    assert table.loc[1, "SHAP"] == pytest.approx(0.3) and np.isnan(table.loc[1, "LIME"]) and table.loc[2, "LIME"] == 1.0
