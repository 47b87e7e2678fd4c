"""Agreement between repeated ratings (``personas.runs_per_method > 1``)."""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from .base import DIMENSIONS

GROUP = ["persona_name", "explanation_type", "instance_index"]


def rating_agreement(ratings: pd.DataFrame) -> pd.DataFrame:
    """How much repeated ratings of the same (persona, method, case) agree, per dimension.

    Only successful ratings count; groups with fewer than two of them are skipped.

    Returns
    -------
    DataFrame
        One row per dimension: ``groups`` (groups with >= 2 successful runs),
        ``mean_abs_diff`` (mean absolute difference over all pairs of runs, 0 = identical, at most 4),
        ``share_identical`` (share of groups where every run gave the same score). Empty when no
        group has two successful runs.
    """
    cols = ["dimension", "groups", "mean_abs_diff", "share_identical"]
    if ratings.empty or "status" not in ratings:
        return pd.DataFrame(columns=cols)
    ok = ratings[ratings["status"] == "ok"]
    rows = []
    for dim in DIMENSIONS:
        diffs, identical, groups = [], 0, 0
        for _, g in ok.groupby(GROUP, sort=False):
            values = g[dim].astype(int).tolist()
            if len(values) < 2:
                continue
            groups += 1
            identical += len(set(values)) == 1
            diffs.extend(abs(a - b) for a, b in combinations(values, 2))
        if groups:
            rows.append({"dimension": dim, "groups": groups, "mean_abs_diff": sum(diffs) / len(diffs),
                         "share_identical": identical / groups})
    return pd.DataFrame(rows, columns=cols)
