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
    domain = load_config(usecase.config_path).domain
    outcome_words = set(re.findall(r"[a-z]+", " ".join(
        (usecase.positive_class_meaning, domain.positive_outcome, domain.negative_outcome)).lower()))
    # Column names that are codes, not the words a person reads: 'cp', 'loan_status', and a target named 'target'
    # (a target named by a word its own outcomes use, such as wine's 'cultivar', is that word).
    codes = {c for c in columns if described.get(c, c).lower() != c.lower()
             or (c == usecase.target and ("_" in c or c.lower() not in outcome_words))}
    for text in (usecase.title, usecase.description, usecase.positive_class_meaning):
        words = set(re.findall(r"[A-Za-z_]+", text))
        assert not words & codes, (text, words & codes)
        assert not re.search(r"\b[01]\s*(=|means)", text), text
        assert not re.search(r"\b(target|label|class) [01]\b", text, re.IGNORECASE), text
