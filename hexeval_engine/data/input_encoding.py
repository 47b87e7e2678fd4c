"""``data.categorical_encoding``: models that were trained on integer codes of their text columns.

Many real models are bare estimators (XGBoost, LightGBM-style, scikit-learn trees) fitted on text
columns that were turned into integers beforehand — the original HEXEval codes every text column
with scikit-learn's ``LabelEncoder`` (sorted categories -> 0, 1, 2, ...). HEXEval keeps the raw
columns for explainers and people, and applies the same coding just before each model call
(``HexevalModel.input_codes``), so explanations still say ``loan_grade = D``, never ``loan_grade = 3``.
"""

from __future__ import annotations

import pandas as pd

from ..errors import ConfigError
from ..plain_values import show_all
from ..vocabulary import noun

#: Shown in messages: where the option lives.
OPTION = "data.categorical_encoding"


def category_codes(data, settings) -> dict[str, list] | None:
    """For each text column, its categories in code order; ``None`` for ``auto`` (text reaches the model).

    Parameters
    ----------
    data : Dataset
        The loaded data (its coder knows every category of every categorical column).
    settings : DataSettings
        ``categorical_encoding`` (``auto``, ``label`` or ``ordinal``) and ``category_order``.

    Raises
    ------
    ConfigError
        ``ordinal`` without an order for a text column, an order naming an unknown column, or an
        order that misses categories present in the data.
    """
    mode = settings.categorical_encoding
    if mode == "auto":
        return None
    text_columns = [c for c in data.categorical_features if not _numeric(data, c)]
    if mode == "label":
        # LabelEncoder codes np.unique(values): the categories sorted, 0 for the first.
        return {c: sorted(data.coder.categories[c], key=str) for c in text_columns}
    order = {str(k): list(v) for k, v in settings.category_order.items()}
    unknown = [c for c in order if c not in data.feature_names]
    if unknown:
        raise ConfigError(f"data.category_order names {noun(len(unknown), 'a column', 'columns')} the CSV does not have: {', '.join(unknown)}. "
                          f"Its columns are: {', '.join(data.feature_names)}.")
    unordered = [c for c in text_columns if c not in order]
    if unordered:
        raise ConfigError(f"{OPTION} is 'ordinal' but data.category_order gives no order for the text {noun(len(unordered), 'column')} "
                          f"{', '.join(unordered)}. List each one's categories in code order (0 first).")
    codes = {}
    for col, categories in order.items():
        seen = data.coder.categories.get(col, [])
        as_text = {str(v) for v in categories}
        missing = [v for v in seen if str(v) not in as_text]
        if missing:
            raise ConfigError(f"data.category_order for '{col}' lacks categories found in the data: {show_all(missing)}. "
                              "Add them in their code position.")
        by_text = {str(v): v for v in seen}
        codes[col] = [by_text.get(str(v), v) for v in categories]
    return codes


def encode_inputs(X: pd.DataFrame, codes: dict[str, list]) -> pd.DataFrame:
    """Replace each coded column of ``X`` with its integer code (a value outside the list becomes missing)."""
    X = X.copy()
    for col, categories in codes.items():
        if col in X.columns:
            lookup = {v: i for i, v in enumerate(categories)}
            X[col] = X[col].map(lookup).astype(float)
    return X


def describe(codes: dict[str, list] | None, mode: str) -> str:
    """One sentence for the manifest and the dashboard: how text columns reached the model."""
    if not codes:
        return "Text columns reach the model as text (its own pipeline encodes them)."
    how = "sorted-category integer codes (as scikit-learn's LabelEncoder)" if mode == "label" else \
        "integer codes in the configured category order"
    return f"Text {noun(len(codes), 'column')} {', '.join(codes)} {noun(len(codes), 'reaches', 'reach')} the model as {how}; explanations show their labels."


def _numeric(data, col: str) -> bool:
    return pd.api.types.is_numeric_dtype(data.X_train[col]) and not pd.api.types.is_bool_dtype(data.X_train[col])
