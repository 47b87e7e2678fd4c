"""Which raw columns a model itself treats as categories, so an uploaded CSV is read the way the model reads it.

A CSV that stores categories as numbers (heart's chest-pain type ``cp`` as 0–3) looks numeric to the loader.
When the uploaded pipeline one-hot (or ordinal) encodes such a column, the model treats it as a category: LIME
should then not bin it by quartiles, Anchor should write ``= typical angina`` rather than ``<= 1``, and DiCE should
move it between its levels. :func:`with_model_categories` reloads the data with those columns as categorical when
the config names none itself, and says so in the data-quality notes.
"""

from __future__ import annotations

from ..data.dataset import Dataset
from ..vocabulary import join_words, noun

#: scikit-learn transformers whose input columns are categories (matched by class name so no import is needed).
CATEGORY_ENCODERS = frozenset({"OneHotEncoder", "OrdinalEncoder", "TargetEncoder"})


def model_category_columns(model) -> list[str]:
    """Raw column names the model's own preprocessing routes to a category encoder, in the model's column order.

    Looks through a scikit-learn Pipeline (or the artefact's separate ``preprocessor``) for fitted
    ColumnTransformers; a transformer counts when it is a category encoder or a Pipeline that starts with
    one after imputers. Columns given by position are named from the model's ``feature_names``. Any other
    model (bare estimators, ONNX, XGBoost's native categories) gives an empty list.
    """
    found: list[str] = []
    for transformer in _column_transformers(model):
        for _, inner, columns in getattr(transformer, "transformers_", []):
            if _encodes_categories(inner):
                found += _column_names(columns, model.feature_names)
    order = list(model.feature_names or found)
    return sorted(set(found), key=lambda c: order.index(c) if c in order else len(order))


def with_model_categories(data: Dataset, model, config, reload) -> tuple[Dataset, object, str]:
    """``(data, config, note)`` with the numeric columns the model encodes as categories made categorical.

    Only when the config lists no ``data.categorical_features`` (a list there is the user's decision).
    ``reload(config)`` loads the CSV again under a config; ``note`` (also added to ``data.quality.notes``) names
    the columns and how to choose otherwise, ``""`` when nothing changed.
    """
    if config.data.categorical_features:
        return data, config, ""
    adopted = [c for c in model_category_columns(model) if c in data.numeric_features]
    if not adopted:
        return data, config, ""
    config = config.model_copy(update={"data": config.data.model_copy(update={"categorical_features": adopted})})
    data = reload(config)
    note = (
        f"{join_words(adopted)} {noun(len(adopted), 'holds', 'hold')} numbers, but the model's own preprocessing encodes "
        f"{noun(len(adopted), 'it', 'them')} as categories, so the explanations treat {noun(len(adopted), 'it', 'them')} "
        "as categories too. To choose otherwise, list the categorical columns under data.categorical_features in a "
        "config file.")
    data.quality.notes.append(note)
    return data, config, note


def _column_transformers(model) -> list:
    stages = [model.preprocessor] if model.preprocessor is not None else []
    stages += [step for _, step in (getattr(model.estimator, "steps", None) or [])]
    out = []
    for stage in stages:
        if type(stage).__name__ == "ColumnTransformer":
            out.append(stage)
        out += [s for _, s in (getattr(stage, "steps", None) or []) if type(s).__name__ == "ColumnTransformer"]
    return out


def _encodes_categories(transformer) -> bool:
    if type(transformer).__name__ in CATEGORY_ENCODERS:
        return True
    for _, step in getattr(transformer, "steps", None) or []:
        name = type(step).__name__
        if name in CATEGORY_ENCODERS:
            return True
        if name != "SimpleImputer":
            return False
    return False


def _column_names(columns, feature_names) -> list[str]:
    """A ColumnTransformer's column selection as names (names, positions, or a boolean mask)."""
    if isinstance(columns, str):
        return [columns]
    if callable(columns) or columns is None:
        return []
    picked = list(columns)
    if picked and all(isinstance(c, (bool,)) or type(c).__name__ == "bool_" for c in picked):
        picked = [i for i, keep in enumerate(picked) if keep]
    names = list(feature_names or [])
    return [str(c) if isinstance(c, str) else (names[int(c)] if int(c) < len(names) else str(c)) for c in picked]
