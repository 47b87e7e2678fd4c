"""The implausible-value check for columns without a configured range: quiet on ordinary measurements, loud on
an age of 144 (the oracle: values a reader knows to be plausible or not)."""

from __future__ import annotations

import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine

from hexeval_engine import get_usecase
from hexeval_engine.data.data_quality import plausible_bounds


def _flagged(frame: pd.DataFrame) -> pd.Series:
    bounds = plausible_bounds(frame, list(frame.columns), {})
    out = pd.Series(False, index=frame.index)
    for col, (low, high, _reason) in bounds.items():
        out |= (frame[col] < low) | (frame[col] > high)
    return out


@pytest.mark.parametrize("loader", [load_breast_cancer, load_wine, load_iris, load_diabetes],
                         ids=lambda f: f.__name__)
def test_plausible_measurements_of_an_unknown_dataset_are_not_flagged(loader):
    assert not _flagged(loader(as_frame=True).data).any()


def test_an_age_of_144_among_loan_applicants_is_flagged_and_94_is_not_and_the_reason_says_what_was_checked():
    credit = pd.read_csv(get_usecase("credit_risk").data_path, usecols=["person_age"])
    ages = credit.rename(columns={"person_age": "age"})
    assert {94, 144} <= set(ages["age"])
    flagged = _flagged(ages)
    assert 144 in set(ages.loc[flagged, "age"]) and 94 not in set(ages.loc[flagged, "age"])
    assert ages.loc[~flagged, "age"].max() < 144
    reason = plausible_bounds(ages, ["age"], {})["age"][2]
    assert "5 interquartile ranges beyond the quartiles" in reason and "log scale" in reason
