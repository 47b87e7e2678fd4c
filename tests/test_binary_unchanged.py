"""A binary model gives the same technical numbers as at the fork point of issue 21 (551d687)."""

from pathlib import Path

import numpy as np
import pandas as pd

from tests.binary_baseline import heart_metrics

BASELINE = Path(__file__).parent / "data" / "heart_binary_baseline.csv"


def test_heart_technical_metrics_match_the_fork_point():
    recorded = pd.read_csv(BASELINE)
    now = heart_metrics()
    assert list(now["method"] + "/" + now["metric"]) == list(recorded["method"] + "/" + recorded["metric"])
    for column in ("value", "ci_low", "ci_high", "n"):
        np.testing.assert_allclose(now[column].to_numpy(float), recorded[column].to_numpy(float),
                                   rtol=1e-7, atol=1e-9, equal_nan=True, err_msg=column)
