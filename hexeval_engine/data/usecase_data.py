"""Load a use case's data exactly as its config describes (same split for training and evaluation)."""

from __future__ import annotations

from ..config import HexevalConfig
from .dataset import Dataset, load_data


def load_data_for_config(path, config: HexevalConfig, target_column: str | None = None) -> Dataset:
    """``load_data`` with the data settings, value labels and split seed (``data.split_seed``) of ``config``."""
    d = config.data
    return load_data(
        path,
        target_column or d.target,
        test_size=d.test_size,
        random_state=d.split_seed,  # not evaluation.random_state: the split must not move with it
        positive_label=d.positive_label,
        categorical_features=d.categorical_features or None,
        drop_duplicates=d.drop_duplicates,
        plausible_ranges=d.plausible_ranges or None,
        implausible_values=d.implausible_values,
        value_labels=config.domain.value_labels or None,
        task=d.task,
    )
