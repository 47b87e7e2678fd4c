"""Compare two saved runs: metric and rating differences (B − A) with their uncertainty.

A technical metric's difference is called better or worse only when the two runs' confidence
intervals do not overlap; otherwise it is "within the uncertainty". Mean persona ratings get a
bootstrap interval of the difference (items of each run resampled independently) and the real
number of ratings per run. Stakeholders that exist in only one run are listed as such, never as a
change of pick ("none → SHAP").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..ratings_summary import DIMENSIONS
from .store import RunData

BETTER, WORSE, WITHIN, ONE_SIDED, TOO_FEW = ("better", "worse", "within the uncertainty", "only in one run",
                                             "too few ratings to tell")
#: Bootstrap resamples for the rating differences, and the seed that makes them repeatable.
N_BOOT, SEED = 2000, 0

METRIC_COLUMNS = ["method", "metric", "direction", "a", "a_low", "a_high", "n_a", "b", "b_low", "b_high", "n_b",
                  "difference", "difference_low", "difference_high", "verdict"]
RATING_COLUMNS = ["persona_role", "explanation_type", "dimension", "a", "n_a", "b", "n_b", "difference",
                  "difference_low", "difference_high", "verdict"]


def compare_runs(a: RunData, b: RunData, *, confidence: float = 0.95) -> dict:
    """Differences between two runs (b − a), each with its uncertainty.

    Parameters
    ----------
    a, b : RunData
        The runs as the user chose them; every difference is b − a.
    confidence : float, optional
        Level of the bootstrap interval of the rating differences.

    Returns
    -------
    dict
        ``metrics`` and ``ratings`` (frames, columns ``METRIC_COLUMNS``/``RATING_COLUMNS``; ``verdict``
        is better, worse, within the uncertainty, only in one run or too few ratings to tell),
        ``recommendation_changes`` (stakeholder -> (method in a, method in b), only stakeholders of
        both runs), ``only_in_a``/``only_in_b`` (stakeholders of one run), ``comparable`` (same use
        case, model and data) and ``warnings`` (sentences saying why not).
    """
    recs_a = _picks(a)
    recs_b = _picks(b)
    both = sorted(set(recs_a) & set(recs_b))
    warnings = _input_warnings(a, b)
    return {"a": a.run_id, "b": b.run_id,
            "metrics": metric_differences(a.technical_metrics_long, b.technical_metrics_long),
            "ratings": rating_differences(a.persona_ratings, b.persona_ratings, confidence=confidence),
            "recommendation_changes": {k: (recs_a[k], recs_b[k]) for k in both if recs_a[k] != recs_b[k]},
            "only_in_a": sorted(set(recs_a) - set(recs_b)), "only_in_b": sorted(set(recs_b) - set(recs_a)),
            "comparable": not warnings, "warnings": warnings}


def _picks(run: RunData) -> dict:
    return {k: v.get("recommended_method") for k, v in (run.recommendations.get("stakeholders") or {}).items()}


def metric_differences(a: pd.DataFrame | None, b: pd.DataFrame | None) -> pd.DataFrame:
    """Per (method, metric): both runs' values and intervals, b − a with an interval, and a verdict.

    The interval of the difference adds the two runs' half-widths in quadrature on each side (the runs
    are independent samples). The verdict is better/worse only when the runs' intervals do not overlap.
    """
    if a is None or b is None or a.empty or b.empty:
        return pd.DataFrame(columns=METRIC_COLUMNS)
    keep = ["method", "metric", "value", "ci_low", "ci_high", "n"]
    left = _with(a, keep + ["direction"]).rename(columns={"value": "a", "ci_low": "a_low", "ci_high": "a_high", "n": "n_a"})
    right = _with(b, keep + ["direction"]).rename(columns={"value": "b", "ci_low": "b_low", "ci_high": "b_high",
                                                           "n": "n_b", "direction": "direction_b"})
    m = left.merge(right, on=["method", "metric"], how="outer")
    m["direction"] = m["direction"].fillna(m["direction_b"])
    for col in ("a", "a_low", "a_high", "b", "b_low", "b_high"):
        m[col] = pd.to_numeric(m[col], errors="coerce")
    m["difference"] = m["b"] - m["a"]
    m["difference_low"] = m["difference"] - np.hypot(m["b"] - m["b_low"], m["a_high"] - m["a"])
    m["difference_high"] = m["difference"] + np.hypot(m["b_high"] - m["b"], m["a"] - m["a_low"])
    m["verdict"] = [_metric_verdict(r) for r in m.itertuples()]
    return m[METRIC_COLUMNS].reset_index(drop=True)


def _with(table: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    out = table.copy()
    for col in cols:
        if col not in out:
            out[col] = np.nan
    return out[cols]


def _metric_verdict(r) -> str:
    if pd.isna(r.a) or pd.isna(r.b):
        return ONE_SIDED
    if any(pd.isna(v) for v in (r.a_low, r.a_high, r.b_low, r.b_high)):
        return WITHIN  # no interval recorded: the difference cannot be told from noise
    if r.b_low > r.a_high:
        return BETTER if r.direction == "higher" else WORSE
    if r.b_high < r.a_low:
        return WORSE if r.direction == "higher" else BETTER
    return WITHIN


def rating_differences(a: pd.DataFrame | None, b: pd.DataFrame | None, *, confidence: float = 0.95,
                       n_boot: int = N_BOOT, seed: int = SEED) -> pd.DataFrame:
    """Per (persona, method, dimension): mean rating of each run, n per run, b − a and its bootstrap interval.

    Only ratings with status ``ok`` count. The items of each run are resampled independently
    (``n_boot`` times, percentile interval at ``confidence``); with fewer than two ratings in a run
    the verdict is "too few ratings to tell".
    """
    if a is None or b is None or a.empty or b.empty:
        return pd.DataFrame(columns=RATING_COLUMNS)
    keys = ["persona_role", "explanation_type"]
    ok_a, ok_b = a[a["status"] == "ok"], b[b["status"] == "ok"]
    groups_a = {k: g for k, g in ok_a.groupby(keys)}
    groups_b = {k: g for k, g in ok_b.groupby(keys)}
    rng = np.random.default_rng(seed)
    tail = (1 - confidence) / 2 * 100
    rows = []
    for key in sorted(set(groups_a) | set(groups_b)):
        for dim in DIMENSIONS:
            va = _scores(groups_a.get(key), dim)
            vb = _scores(groups_b.get(key), dim)
            row = {"persona_role": key[0], "explanation_type": key[1], "dimension": dim,
                   "a": va.mean() if va.size else np.nan, "n_a": int(va.size),
                   "b": vb.mean() if vb.size else np.nan, "n_b": int(vb.size)}
            row["difference"] = row["b"] - row["a"]
            low = high = np.nan
            if not va.size or not vb.size:
                verdict = ONE_SIDED
            elif va.size < 2 or vb.size < 2:
                verdict = TOO_FEW
            else:
                diffs = (vb[rng.integers(0, vb.size, (n_boot, vb.size))].mean(axis=1)
                         - va[rng.integers(0, va.size, (n_boot, va.size))].mean(axis=1))
                low, high = np.percentile(diffs, [tail, 100 - tail])
                verdict = BETTER if low > 0 else WORSE if high < 0 else WITHIN
            rows.append(row | {"difference_low": low, "difference_high": high, "verdict": verdict})
    return pd.DataFrame(rows, columns=RATING_COLUMNS)


def _scores(group: pd.DataFrame | None, dim: str) -> np.ndarray:
    if group is None:
        return np.array([])
    values = pd.to_numeric(group[dim], errors="coerce").to_numpy(dtype=float)
    return values[~np.isnan(values)]


def _input_warnings(a: RunData, b: RunData) -> list[str]:
    """A sentence per reason the runs are not like for like: an edited run, use case, model file, data file."""
    warnings = [f"Run {run.run_id}: {run.integrity.warning}" for run in (a, b) if run.integrity.edited]
    if a.usecase != b.usecase:
        warnings.append(f"The runs belong to different use cases ({_title(a)} and {_title(b)}): their stakeholders, "
                        "settings and inputs differ, so only stakeholders present in both runs are compared.")
    for what in ("model", "data"):
        sha_a = (a.manifest.get(what) or {}).get("sha256") or ""
        sha_b = (b.manifest.get(what) or {}).get("sha256") or ""
        if not sha_a or not sha_b:
            warnings.append(f"Run {a.run_id if not sha_a else b.run_id} records no {what} hash, so whether both runs "
                            f"used the same {what} cannot be checked.")
        elif sha_a != sha_b:
            warnings.append(f"The runs used different {what} files ({what} sha256 {sha_a[:12]}… vs {sha_b[:12]}…): "
                            f"differences may come from the {what}, not from the settings.")
    return warnings


def _title(run: RunData) -> str:
    return str(run.manifest.get("usecase_title") or run.usecase)
