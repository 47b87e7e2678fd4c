"""The per-case evidence a recommendation is built from: aligned tables, one row per case (or unit).

Public interface (stable)
-------------------------
``case_fidelity(per_instance) -> DataFrame``          index ``instance_id``, one column per method
``case_parsimony(per_instance) -> DataFrame``         same shape, ``num_important_features``
``unit_ratings(ratings, role, methods) -> DataFrame`` index ``(persona_name, instance_id)``, one column per
                                                      method: the persona score in [0, 1]
``unit_ratings_by_role(ratings, methods) -> {role: …}`` the same for every role in one pass
``method_metric(per_instance, method, metric) -> ndarray``

**Cross-family technical evidence.** The only technical quantity that enters a score is the
claim-scoped ``technical_claim_score`` (:mod:`hexeval_engine.metrics.claim_evidence`): the mean of
claim sufficiency and reader accuracy, computed on what each explanation shows, by the same code for
every method. Runs saved before it existed fall back to ``fidelity_combined`` (full-ranking
deletion/insertion, source ``"normalised"``), and older ones to ``(1 + insertion - deletion) / 2``
(source ``"raw"``); the recommendation says which was used.

**Persona units.** A unit is one persona rating one case. Repeated runs of the same persona on the
same case (``personas.runs_per_method``) are averaged first, so repeats never count as extra cases.
The unit's score weighs all six dimensions by that persona's ``dimension_weights`` (its audience's
default when the persona file gives none; see :data:`~hexeval_engine.personas.DEFAULT_DIMENSION_WEIGHTS`):
``sum_d w_d * (score_d - 1) / 4 / sum_d w_d`` over the dimensions the rating has.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics.table import canonical_methods, case_table
from ..personas import DEFAULT_DIMENSION_WEIGHTS, DIMENSION_NAMES

FIDELITY_METRIC = "technical_claim_score"
LEGACY_FIDELITY_METRIC = "fidelity_combined"
PARSIMONY_METRIC = "num_important_features"


def _pivot(per_instance: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = per_instance[per_instance["metric"] == metric]
    if rows.empty:
        return pd.DataFrame()
    return case_table(rows)


def case_fidelity(per_instance: pd.DataFrame | None) -> tuple[pd.DataFrame, str]:
    """Per-case cross-family fidelity of every method, and which definition was available.

    Returns
    -------
    table : DataFrame
        Index ``instance_id``, one column per method (NaN where a case has no value).
    source : {"claim", "normalised", "raw", "none"}
    """
    if per_instance is None or len(per_instance) == 0:
        return pd.DataFrame(), "none"
    per_instance = per_instance.assign(method=canonical_methods(per_instance["method"]))
    table = _pivot(per_instance, FIDELITY_METRIC)
    if not table.empty:
        return table, "claim"
    table = _pivot(per_instance, LEGACY_FIDELITY_METRIC)
    if not table.empty:
        return table, "normalised"
    ins, dele = _pivot(per_instance, "fidelity_insertion"), _pivot(per_instance, "fidelity_deletion")
    if ins.empty or dele.empty:
        return pd.DataFrame(), "none"
    return (1 + ins - dele.reindex_like(ins)) / 2, "raw"


def case_parsimony(per_instance: pd.DataFrame | None) -> pd.DataFrame:
    """Per-case number of features each explanation relies on (identical definition for every method)."""
    if per_instance is None or len(per_instance) == 0:
        return pd.DataFrame()
    return _pivot(per_instance.assign(method=canonical_methods(per_instance["method"])), PARSIMONY_METRIC)


def method_metric(per_instance: pd.DataFrame | None, method: str, metric: str) -> np.ndarray:
    """The finite per-case values of one metric of one method."""
    if per_instance is None or len(per_instance) == 0:
        return np.array([])
    rows = per_instance[per_instance["metric"] == metric]  # then the method among the few rows of that metric
    rows = rows[canonical_methods(rows["method"]) == method]
    values = rows["value"].to_numpy(dtype=float)
    return values[np.isfinite(values)]


def usable_ratings(ratings: pd.DataFrame | None) -> pd.DataFrame:
    """Ratings with canonical ``method``, the stakeholder ``role`` and a ``usable`` flag.

    A rating is usable when its status is ``ok`` (or there is no status column) and both trust and
    satisfaction are present. The role is ``persona_role``, or ``persona_name`` when the role is blank.
    """
    columns = ["role", "persona_name", "method", "instance_id", "trust", "satisfaction", "usable"]
    if ratings is None or len(ratings) == 0:
        return pd.DataFrame(columns=columns)
    df = ratings.copy()
    df.attrs = {}  # the run's statistics stay with the ratings: pandas would deep-copy them on every step below
    df["method"] = canonical_methods(df["explanation_type"])
    for column in ("trust", "satisfaction"):
        df[column] = pd.to_numeric(df[column], errors="coerce")
    ok = df["status"].eq("ok") if "status" in df.columns else pd.Series(True, index=df.index)
    df["usable"] = ok & df["trust"].notna() & df["satisfaction"].notna()
    if "persona_name" not in df.columns:
        df["persona_name"] = np.nan
    if "instance_index" in df.columns:  # the persona table names the case by its test-set row
        df["instance_id"] = df["instance_index"]
    elif "instance_id" not in df.columns:
        df["instance_id"] = -1
    role = df["persona_role"] if "persona_role" in df.columns else pd.Series(np.nan, index=df.index)
    blank = role.isna() | role.astype(str).str.strip().eq("")
    df["role"] = role.where(~blank, df["persona_name"]).astype(str)
    return df


def unit_ratings(rated: pd.DataFrame, role: str, methods, weights: dict | None = None, *,
                 dimension_weights: dict[str, dict[str, float]] | None = None) -> dict[str, pd.DataFrame]:
    """Per-unit persona scores of one stakeholder role, runs averaged per case first.

    Parameters
    ----------
    rated : DataFrame
        From :func:`usable_ratings`.
    role : str
    methods : list of str
    weights : dict, optional
        Unused; kept so older callers still work (the technical/stakeholder split is applied by the
        recommender).
    dimension_weights : dict, optional
        ``{persona_name: {dimension: weight}}``; a persona not in it weighs the dimensions by the
        professional default.

    Returns
    -------
    dict
        ``{"score": DataFrame, "trust": DataFrame, "satisfaction": DataFrame, "dimension_weights": dict}``,
        the frames indexed by ``(persona_name, instance_id)`` with one column per method, values in [0, 1].
    """
    return unit_ratings_by_role(rated[rated["role"] == role], methods, dimension_weights=dimension_weights)[role]


def unit_ratings_by_role(rated: pd.DataFrame, methods, *,
                         dimension_weights: dict[str, dict[str, float]] | None = None) -> dict:
    """:func:`unit_ratings` of every role of ``rated`` at once (the per-case means are taken in one pass).

    Returns a mapping ``{role: unit_ratings(rated, role, methods)}`` that answers a role without ratings with
    empty frames.
    """
    methods = list(methods)
    rows = rated[rated["usable"] & rated["method"].isin(methods)]
    out = _ByRole(methods)
    if rows.empty:
        return out
    dims = [d for d in DIMENSION_NAMES if d in rows.columns]
    rows = rows.assign(**{d: pd.to_numeric(rows[d], errors="coerce") for d in dims})
    per_case = rows.groupby(["role", "persona_name", "instance_id", "method"])[dims].mean()
    on01 = ((per_case - 1) / 4).clip(0, 1)
    used_all = {name: _persona_weights(name, dimension_weights) for name in set(rows["persona_name"].astype(str))}
    wide = {}
    if len(on01):  # else every rating names no persona: no units
        names = on01.index.get_level_values("persona_name").astype(str)
        w = pd.DataFrame([used_all[n] for n in names], index=on01.index)[dims]
        w = w.where(on01.notna(), 0.0)
        total = w.sum(axis=1)
        score = ((on01.fillna(0) * w).sum(axis=1) / total).where(total > 0)
        wide = {"score": score, "trust": on01["trust"], "satisfaction": on01["satisfaction"]}
        wide = {key: frame.unstack("method").reindex(columns=methods) for key, frame in wide.items()}
    scored = set(on01.index.get_level_values("role"))  # not a role whose ratings name no persona
    for role, role_rows in rows.groupby("role"):
        used = {name: used_all[name] for name in sorted(role_rows["persona_name"].astype(str).unique())}
        frames = {key: wide[key].xs(role, level="role") if role in scored else pd.DataFrame(columns=methods)
                  for key in ("score", "trust", "satisfaction")}
        out[role] = {**frames, "dimension_weights": used}
    return out


class _ByRole(dict):
    """Units by role; a role without usable ratings has empty frames and no persona weights."""

    def __init__(self, methods: list):
        super().__init__()
        self._methods = methods

    def __missing__(self, role):
        empty = pd.DataFrame(columns=self._methods)
        return {"score": empty, "trust": empty, "satisfaction": empty, "dimension_weights": {}}


def _persona_weights(name: str, dimension_weights: dict | None) -> dict[str, float]:
    given = (dimension_weights or {}).get(name) or DEFAULT_DIMENSION_WEIGHTS["professional"]
    total = sum(given.values())
    return {d: float(given.get(d, 0.0)) / total for d in DIMENSION_NAMES}
