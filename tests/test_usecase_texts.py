"""Use-case texts a person reads speak of outcomes in words, never of the target column or its codes."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from hexeval_engine.config.loader import load_config
from hexeval_engine.usecases import list_usecases

USECASES = list_usecases()


@pytest.mark.parametrize("usecase", USECASES, ids=[u.name for u in USECASES])
def test_the_blurb_names_no_column_and_no_outcome_code(usecase):
    columns = pd.read_csv(usecase.data_path, nrows=1).columns
    described = load_config(usecase.config_path).domain.feature_descriptions
    # Column names that are codes (not themselves the words a person reads: 'cp', 'loan_status', 'target').
    codes = {c for c in columns if c == usecase.target or described.get(c, c).lower() != c.lower()}
    for text in (usecase.title, usecase.description, usecase.positive_class_meaning):
        words = set(re.findall(r"[A-Za-z_]+", text))
        assert not words & codes, (text, words & codes)
        assert not re.search(r"\b[01]\s*(=|means)", text), text
        assert not re.search(r"\b(target|label|class) [01]\b", text, re.IGNORECASE), text
