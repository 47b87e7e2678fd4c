"""The one object that owns the integer coding of categorical columns.

Explainer libraries (LIME, Anchor, DiCE) want numeric matrices; the model wants the original CSV
columns. :class:`FeatureCoder` codes raw frames to float matrices (categoricals as integer codes)
and decodes matrices back to raw frames before every model call, so every explanation speaks in
the original columns and their real values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class FeatureCoder:
    """Codes raw feature frames to numeric matrices and back.

    Parameters
    ----------
    feature_names : list of str
        Columns in model order.
    categories : dict
        For each categorical feature, the ordered list of its observed raw values. The code of a
        value is its position in that list.
    numeric_dtypes : dict
        Raw dtype of each numeric column, restored on decode (integers stay integers).
    value_labels : dict
        Optional human-readable labels per feature and raw value (``{"cp": {0: "typical angina"}}``),
        used only for display.
    """

    feature_names: list[str]
    categories: dict[str, list] = field(default_factory=dict)
    numeric_dtypes: dict[str, str] = field(default_factory=dict)
    value_labels: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def fit(cls, X: pd.DataFrame, categorical_features: list[str], value_labels: dict | None = None) -> "FeatureCoder":
        categories = {}
        for col in categorical_features:
            values = X[col].dropna().unique().tolist()
            categories[col] = sorted(values, key=lambda v: (str(type(v)), v))
        numeric_dtypes = {c: str(X[c].dtype) for c in X.columns if c not in categories}
        return cls(list(X.columns), categories, numeric_dtypes, dict(value_labels or {}))

    @property
    def categorical_features(self) -> list[str]:
        return [c for c in self.feature_names if c in self.categories]

    @property
    def categorical_indices(self) -> list[int]:
        return [i for i, c in enumerate(self.feature_names) if c in self.categories]

    def encode(self, X: pd.DataFrame) -> np.ndarray:
        """Raw frame -> float matrix (categoricals as codes; unseen or missing values -> NaN)."""
        out = np.empty((len(X), len(self.feature_names)), dtype=float)
        for j, col in enumerate(self.feature_names):
            if col in self.categories:  # a hash lookup, like a dict: 1.0 finds 1, "1" does not
                codes = pd.Index(self.categories[col], dtype=object).get_indexer(X[col].astype(object))
                out[:, j] = np.where(codes < 0, np.nan, codes)
            else:
                out[:, j] = pd.to_numeric(X[col], errors="coerce").astype(float).to_numpy()
        return out

    def decode(self, M: np.ndarray) -> pd.DataFrame:
        """Float matrix -> raw frame with the original columns, values and dtypes.

        Array-based: one numpy array per column goes straight into the frame (no per-column
        ``Series``), so a model call on wide rows costs little besides the model itself.
        """
        M = np.atleast_2d(np.asarray(M, dtype=float))
        if self._all_numeric:
            return self._decode_numeric(M)
        missing = np.isnan(M)
        cols = {}
        for j, (col, values, dtype) in enumerate(self._decode_plan):
            if values is not None:
                codes = np.clip(np.rint(np.where(missing[:, j], 0.0, M[:, j])), 0, len(values) - 1).astype(np.intp)
                raw = values[codes]
                if missing[:, j].any():
                    raw = raw.astype(object)
                    raw[missing[:, j]] = None
                # text categories stay plain objects: letting pandas infer its string dtype costs ~3x more
                cols[col] = pd.Series(raw, dtype=object, copy=False) if raw.dtype == object else raw
            elif dtype is not None and not missing[:, j].any():
                cols[col] = np.rint(M[:, j]).astype(dtype)
            else:
                cols[col] = M[:, j].copy()
        return pd.DataFrame(cols, columns=self._column_index)

    @cached_property
    def _column_index(self) -> pd.Index:
        """The frame's column labels, built once: a frame given this (immutable) index instead of the list of names
        has the same labels and skips building them (~80 us a call on 300 columns)."""
        return pd.Index(self.feature_names)

    @cached_property
    def _all_numeric(self) -> bool:
        return not any(values is not None for _, values, _ in self._decode_plan)

    def _decode_numeric(self, M: np.ndarray) -> pd.DataFrame:
        """:meth:`decode` without categoricals: one float block (a frame of 300 columns built column by column
        cost ~5 ms a call, most of a wide model call), integer columns rounded and restored where complete."""
        block = M.copy()
        ints = {}
        for j, (col, _, dtype) in enumerate(self._decode_plan):
            if dtype is not None and not np.isnan(block[:, j]).any():
                block[:, j] = np.rint(block[:, j])
                ints[col] = dtype
        frame = pd.DataFrame(block, columns=self._column_index, copy=False)
        return frame.astype(ints) if ints else frame

    @cached_property
    def _decode_plan(self) -> list[tuple[str, np.ndarray | None, str | None]]:
        """Per column: its name, the array of category values (categoricals) and the integer dtype to restore."""
        plan = []
        for col in self.feature_names:
            if col in self.categories:
                cats = self.categories[col]
                plan.append((col, np.array(cats, dtype=_category_dtype(cats)), None))
            else:
                dtype = self.numeric_dtypes.get(col, "float64")
                plan.append((col, None, dtype if "int" in dtype else None))
        return plan

    def label(self, feature: str, value) -> str:
        """Human-readable form of a raw value (uses value labels when the use case defines them)."""
        labels = self.value_labels.get(feature, {})
        for key in (value, str(value)):
            if key in labels:
                return str(labels[key])
        if isinstance(value, float) and not np.isnan(value) and float(value).is_integer() and feature not in self.categories:
            return str(int(value)) if "int" in self.numeric_dtypes.get(feature, "") else f"{value:g}"
        if isinstance(value, (float, np.floating)):
            return "missing" if np.isnan(value) else f"{value:.4g}"
        return str(value)


def _category_dtype(cats: list):
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in cats):
        return "int64"
    return object
