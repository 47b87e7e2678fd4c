"""Read the technical metrics table in either of its two shapes.

The technical evaluation produces a *wide* table (one row per method: ``method``, ``family``,
``algorithm``, ``n_instances``, ``seconds``, ``error`` and, per metric ``M``, the columns ``M``,
``M_ci_low``, ``M_ci_high``) and a *long* table (``method``, ``metric``, ``value``, ``ci_low``,
``ci_high``, ``n``, ``direction``, ``meaning``, ``derived``). The recommender and the charts accept
either; this module turns both into the long shape and extracts per-method failures.

Directions (``higher``/``lower`` is better) are data: they come from the long table's
``direction`` column or, for a wide table, from the metric registry
(``hexeval_engine.metrics.registry.METRICS``). Nothing here hard-codes a direction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..explanation import ALL_METHODS
from .registry import ALIASES as METRIC_ALIASES  # older metric names -> canonical name
from .registry import METRICS

#: Names used by the original HEXEval (or by hand) mapped to the canonical method names.
_METHOD_SYNONYMS = {"counterfactual": "DiCE", "counterfactuals": "DiCE", "anchors": "Anchor"}

LONG_COLUMNS = ("method", "metric", "value", "ci_low", "ci_high", "n", "direction", "meaning", "derived")


def canonical_method(name: str) -> str:
    """Return the canonical method name (``SHAP``, ``LIME``, ``Anchor``, ``DiCE``, ``Narrative``, ``Random``, or a
    plugin's method name as given).

    Matching ignores case, so the original HEXEval's ``ANCHOR`` maps to ``Anchor``; its
    ``COUNTERFACTUAL`` maps to ``DiCE``.

    Raises
    ------
    ValueError
        If ``name`` is blank.
    """
    key = str(name).strip().lower()
    for method in ALL_METHODS:
        if method.lower() == key:
            return method
    if key in _METHOD_SYNONYMS:
        return _METHOD_SYNONYMS[key]
    text = str(name).strip()
    if not text or text.lower() == "nan":
        raise ValueError(f"unknown explanation method {name!r}; expected one of {', '.join(ALL_METHODS)} or a "
                         "plugin's method name")
    return text  # a plugin's method (docs/plugins.md): kept as its spec names it


def canonical_methods(names: pd.Series) -> pd.Series:
    """:func:`canonical_method` of every value of a column, worked out once per distinct name (a per-case table
    has thousands of rows and a handful of methods)."""
    return names.map({name: canonical_method(name) for name in names.unique()})


def is_long(technical: pd.DataFrame) -> bool:
    """True when ``technical`` is the long metrics table (it has ``metric`` and ``value`` columns)."""
    return {"metric", "value"}.issubset(technical.columns)


def _registry_directions() -> dict[str, tuple[str, str]]:
    """Metric name -> (direction, meaning) from the metric registry (a wide table carries neither)."""
    return {name: (spec.direction, spec.meaning) for name, spec in METRICS.items()}


def _wide_to_long(wide: pd.DataFrame) -> pd.DataFrame:
    """Long rows for every column of ``wide`` that names a registered metric (or an alias of one).

    Other columns (``family``, ``algorithm``, ``seconds``, ``error``, CI columns, anything a later
    version adds) are not metrics and are left out.
    """
    directions = _registry_directions()
    metric_names = [c for c in wide.columns if METRIC_ALIASES.get(c, c) in directions]
    rows = []
    columns = list(wide.columns)
    # plain dicts from one object array (a Series per row cost 4 look-ups per metric and method; reading the
    # ~200 columns one by one, or pandas' to_dict, cost more than the rest)
    for values in wide.to_numpy(dtype=object).tolist():
        row = dict(zip(columns, values))
        for metric in metric_names:
            canonical = METRIC_ALIASES.get(metric, metric)
            if metric != canonical and canonical in metric_names:
                continue  # the alias duplicates a column present under its canonical name
            direction, meaning = directions[canonical]
            rows.append({
                "method": row["method"], "metric": canonical, "value": row[metric],
                "ci_low": row.get(f"{metric}_ci_low", np.nan), "ci_high": row.get(f"{metric}_ci_high", np.nan),
                "n": row.get("n_instances", np.nan), "direction": direction, "meaning": meaning, "derived": False,
            })
    return pd.DataFrame(rows, columns=list(LONG_COLUMNS))


def as_long(technical: pd.DataFrame | None) -> pd.DataFrame:
    """Return the technical metrics as the long table with canonical method and metric names.

    Parameters
    ----------
    technical : DataFrame or None
        The wide or the long technical metrics table. ``None`` or an empty table gives an empty
        long table.

    Returns
    -------
    DataFrame
        Columns ``method, metric, value, ci_low, ci_high, n, direction, meaning, derived``; rows
        whose value is missing are kept (NaN) so that callers can tell "not applicable" apart from
        "not reported".

    Raises
    ------
    ValueError
        If a direction is missing or not ``higher``/``lower``, or a method name is unknown.
    """
    if technical is None or len(technical) == 0:
        return pd.DataFrame(columns=list(LONG_COLUMNS))
    long = technical.copy() if is_long(technical) else _wide_to_long(technical)
    for column in LONG_COLUMNS:
        if column not in long.columns:
            long[column] = False if column == "derived" else np.nan
    long["method"] = canonical_methods(long["method"])
    long["metric"] = long["metric"].map(lambda m: METRIC_ALIASES.get(m, m))
    long = long.drop_duplicates(subset=["method", "metric"], keep="first")
    bad = sorted(set(long["direction"].dropna()) - {"higher", "lower"}) + (
        ["<missing>"] if long["direction"].isna().any() else [])
    if bad:
        raise ValueError(f"metric direction must be 'higher' or 'lower', found {bad}")
    for column in ("value", "ci_low", "ci_high"):
        long[column] = pd.to_numeric(long[column], errors="coerce").astype(float)
    long["derived"] = long["derived"].fillna(False).astype(bool)
    return long[list(LONG_COLUMNS)].reset_index(drop=True)


def method_errors(technical: pd.DataFrame | None) -> dict[str, str]:
    """Map each method that failed in the technical evaluation to its error message.

    Only a table with an ``error`` column (the wide table) can report failures; any non-empty,
    non-missing ``error`` value counts.
    """
    if technical is None or "error" not in getattr(technical, "columns", ()):
        return {}
    errors: dict[str, str] = {}
    for method, error in zip(technical["method"], technical["error"]):
        if isinstance(error, str) and error.strip():
            errors[canonical_method(method)] = error.strip()
    return errors


def methods_in(technical: pd.DataFrame | None) -> list[str]:
    """The canonical methods present in the table, in the canonical order."""
    if technical is None or "method" not in getattr(technical, "columns", ()):
        return []
    present = {canonical_method(m) for m in technical["method"]}
    return method_order(present)


def method_order(present) -> list[str]:
    """``present`` in display order: the built-in methods first, then any other (a plugin's) by first name."""
    present = list(dict.fromkeys(present))
    return [m for m in ALL_METHODS if m in present] + sorted(m for m in present if m not in ALL_METHODS)


def case_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per-case long rows (``instance_id``, ``method``, ``value``) as a table: one row per case, one column per
    method, the mean where a case has several values, NaN where it has none.

    What ``rows.pivot_table(index="instance_id", columns="method", values="value", aggfunc="mean")`` gives (sorted
    cases and methods, missing values left out, a case or method with no value at all absent). When the ids are
    integers, the names text and each case has at most one value per method (every run's per-case table) it is
    filled from arrays; otherwise it is one grouped mean (a quarter of pandas' general pivot's time)."""
    columns = _plain_columns(rows)
    if columns is not None:
        ids, names, values = columns
        table = _array_table(ids, names, values, ~np.isnan(values), rows["method"].dtype)
        if table is not None:
            return table
    return _mean_table(rows)


def case_tables(rows: pd.DataFrame, metrics) -> dict[str, pd.DataFrame | None]:
    """:func:`case_table` of each of ``metrics``' rows (``rows`` has a ``metric`` column), from one pass over the
    columns: ``{metric: table}``, ``None`` for a metric without any row."""
    columns = _plain_columns(rows)
    kinds = rows["metric"].to_numpy(dtype=object)
    out: dict[str, pd.DataFrame | None] = {}
    for metric in metrics:
        mine = kinds == metric
        if not mine.any():
            out[metric] = None
            continue
        table = None
        if columns is not None:
            ids, names, values = columns
            table = _array_table(ids, names, values, mine & ~np.isnan(values), rows["method"].dtype)
        out[metric] = table if table is not None else _mean_table(rows[mine])
    return out


def _plain_columns(rows: pd.DataFrame) -> tuple | None:
    """``(instance_id, method, value)`` as arrays when the ids are integers and the names text, else ``None``."""
    ids = rows["instance_id"]
    if not pd.api.types.is_integer_dtype(ids.dtype):
        return None
    names = rows["method"].to_numpy(dtype=object)
    if not all(isinstance(n, str) for n in set(names)):
        return None
    return ids.to_numpy(), names, rows["value"].to_numpy(dtype=float)


def _array_table(ids, names, values, keep, names_dtype) -> pd.DataFrame | None:
    """The table of the rows ``keep`` selects, or ``None`` when none is kept or a case has two values for a method
    (the caller takes pandas' mean then)."""
    if not keep.any():
        return None
    id_levels, i = np.unique(ids[keep], return_inverse=True)
    name_levels, j = np.unique(names[keep], return_inverse=True)
    counts = np.zeros((len(id_levels), len(name_levels)), dtype=np.int64)
    np.add.at(counts, (i, j), 1)
    if counts.max() > 1:
        return None
    table = np.full(counts.shape, np.nan)
    table[i, j] = values[keep]
    return pd.DataFrame(table, index=pd.Index(id_levels, name="instance_id"),
                        columns=pd.Index(name_levels, name="method", dtype=names_dtype))


def _mean_table(rows: pd.DataFrame) -> pd.DataFrame:
    rows = rows[rows["value"].notna()]
    return rows.groupby(["instance_id", "method"], sort=True)["value"].mean().unstack("method")
