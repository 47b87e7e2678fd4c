"""What can stop a method from being recommended: the random baseline and per-family constraints.

Public interface (stable)
-------------------------
``baseline_comparison(fidelity, methods, *, confidence, seed, n_resamples) -> dict``
``constraint_findings(long, per_instance, method, config) -> (concerns, exclusion_reason)``

**Beat the random baseline.** A method qualifies for a recommendation only when its per-case
cross-family fidelity is higher than the ``Random`` baseline's on the same cases: the paired
bootstrap interval excludes 0 *and* the Wilcoxon signed-rank test rejects "no difference" at
``1 - confidence_level`` (the bootstrap alone is too optimistic on a handful of cases; an exact
signed-rank test needs at least 6 cases to reach p < 0.05). With no
baseline in the run (old runs), qualification cannot be tested and the recommendation says so.

**Family-specific quantities are constraints and concerns, never points.** They are looked up by
metric name, so any method that reports them is held to them:

* held-out rule precision (``rule_precision_test``) below the Anchor precision threshold is a concern;
  a rule whose held-out precision does not beat the base rate of the explained class
  (``rule_precision_lift`` at or below 0) is a concern;
* cases without a counterfactual are a concern with their count; counterfactuals that do not flip the
  prediction are a concern with the number of cases that have them; validity 0% over all cases excludes the
  method (a counterfactual that does not flip the prediction is not a counterfactual);
* implausible counterfactuals (``counterfactual_plausible`` below 100%: far from the data or outside
  the observed range) are a concern with the number of cases that have them; none plausible excludes the
  method.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..vocabulary import signed
from ..explainers.actionability import declares_limits
from ..explanation import BASELINE_METHOD
from ..paired_stats import paired_difference
from ..metrics.table import canonical_methods
from .evidence import method_metric


def baseline_comparison(fidelity: pd.DataFrame, methods, *, confidence: float, seed: int,
                        n_resamples: int = 2000) -> dict:
    """Paired fidelity difference of each method from ``Random`` over the shared cases.

    Returns
    -------
    dict
        ``{method: {"diff", "ci_low", "ci_high", "p_value", "n", "qualifies"}}``; ``qualifies`` is
        ``None`` when there is no baseline or no per-case fidelity to compare with.
    """
    out = {}
    has_baseline = BASELINE_METHOD in getattr(fidelity, "columns", ())
    for method in methods:
        if not has_baseline or method not in fidelity.columns:
            out[method] = {"diff": None, "ci_low": None, "ci_high": None, "p_value": None, "n": 0,
                           "qualifies": None}
            continue
        d = paired_difference(fidelity[method].to_numpy(float), fidelity[BASELINE_METHOD].to_numpy(float),
                              n_resamples=n_resamples, confidence=confidence, seed=seed)
        qualifies = bool(math.isfinite(d.ci_low) and d.ci_low > 0 and math.isfinite(d.p_value)
                         and d.p_value < 1 - confidence)
        out[method] = {**d.to_dict(), "diff": d.to_dict()["mean"], "qualifies": qualifies}
        out[method].pop("mean", None)
    return out


def _means(long: pd.DataFrame, method: str) -> dict[str, float | None]:
    """``{metric: value}`` of one method's rows of the long metrics table (its first row per metric; ``None`` for a
    missing value)."""
    rows = long[long["method"] == method]
    out: dict[str, float | None] = {}
    for metric, value in zip(rows["metric"].tolist(), rows["value"].tolist()):
        if metric not in out:
            out[metric] = None if pd.isna(value) else float(value)
    return out


def _own_rows(per_instance, method: str):
    """The per-case rows of ``method`` (names made canonical), read once for every metric below."""
    if per_instance is None or len(per_instance) == 0:
        return per_instance
    return per_instance[canonical_methods(per_instance["method"]) == method]


def constraint_findings(long: pd.DataFrame, per_instance, method: str, config) -> tuple[list[str], str | None]:
    """Concerns raised by a method's family-specific metrics, and a reason to exclude it (or ``None``)."""
    concerns: list[str] = []
    excluded = None
    threshold = config.evaluation.explainers.anchor.precision_threshold
    means = _means(long, method)
    per_instance = _own_rows(per_instance, method)
    precision_test = means.get("rule_precision_test")
    if precision_test is not None:
        support = method_metric(per_instance, method, "rule_support_test")
        # the mean over the rules, each covering some of the same held-out cases (their covered rows overlap: a sum
        # of them is no count of cases; "192 covered test rows" was said of 61 held-out rows)
        covered = (f" (the mean over its {support.size} rules, each covering {support.mean():.1f} held-out cases on "
                   "average)") if support.size else ""
        if precision_test < threshold:
            concerns.append(f"its rules hold for {precision_test:.0%} of the held-out cases they cover{covered}, "
                            f"below the {threshold:.0%} they were searched for")
    lift = means.get("rule_precision_lift")
    if lift is not None and lift <= 0:
        concerns.append(f"its rules predict no better than the base rate of the predicted outcome "
                        f"(lift {signed(lift)})")
    validity = means.get("counterfactual_validity")
    cases = _counterfactual_cases(per_instance, method) if validity is not None else None
    if validity is not None:
        # a case without a counterfactual scores 0 in the validity mean: said as such, not as counterfactuals
        # that do not flip (with 12 of 20 cases empty and every counterfactual found valid, the card said "60% of
        # its counterfactuals do not change the model's prediction")
        found, n = cases["found"], len(cases)
        if validity <= 0:
            excluded = (f"it found no counterfactual for any of the {n} cases" if n and not found.any()
                        else "none of its counterfactuals changes the model's prediction")
        else:
            if n and not found.all():
                concerns.append(f"it found no counterfactual for {int((~found).sum())} of {n} cases")
            invalid = int((found & (cases["validity"] < 1)).sum())
            if invalid:
                concerns.append(f"in {invalid} of the {int(found.sum())} cases it found counterfactuals for, some do "
                                "not change the model's prediction")
    forbidden = method_metric(per_instance, method, "counterfactual_non_actionable")
    if validity is not None and not declares_limits(config):
        concerns.append("the config does not say what the person cannot change (its actionability section), so "
                        "its counterfactuals may change anything, such as someone's age; nobody checked that they "
                        "are changes the person can make")
    if forbidden.size and forbidden.max() > 0:
        cases = int((forbidden > 0).sum())
        concerns.append(f"in {cases} of {forbidden.size} cases its counterfactuals change something the person "
                        "cannot change (see the actionability section of the config)")
    plausible = method_metric(per_instance, method, "counterfactual_plausible")
    if plausible.size:
        if float(plausible.mean()) <= 0:
            excluded = excluded or "none of its counterfactuals is plausible (all lie far from real cases or " \
                                   "outside the observed ranges)"
        elif cases is not None:
            found = cases["found"]
            some = int((found & (cases["plausible"] < 1)).sum())
            if some:
                concerns.append(f"in {some} of the {int(found.sum())} cases it found counterfactuals for, some are "
                                "implausible (far from real cases or outside the observed ranges)")
    return concerns, excluded


def _counterfactual_cases(per_instance, method: str) -> pd.DataFrame:
    """Per case of ``method`` with a validity value: ``found`` (it has counterfactuals: their sparsity is measured,
    which needs at least one), ``validity`` and ``plausible`` (shares of that case's counterfactuals)."""
    names = ["counterfactual_validity", "counterfactual_sparsity", "counterfactual_plausible"]
    if per_instance is None or len(per_instance) == 0:
        return pd.DataFrame({"found": pd.Series(dtype=bool), "validity": [], "plausible": []})
    rows = per_instance[(canonical_methods(per_instance["method"]) == method) & per_instance["metric"].isin(names)]
    wide = rows.groupby(["instance_id", "metric"])["value"].first().unstack().reindex(columns=names)
    wide = wide[wide["counterfactual_validity"].notna()]
    has_sparsity = (rows["metric"] == "counterfactual_sparsity").any()  # runs before it: every case counts as found
    found = wide["counterfactual_sparsity"].notna() if has_sparsity else pd.Series(True, index=wide.index)
    return pd.DataFrame({"found": found.to_numpy(dtype=bool),
                         "validity": wide["counterfactual_validity"].to_numpy(dtype=float),
                         "plausible": wide["counterfactual_plausible"].to_numpy(dtype=float)})


def fidelity_summary(fidelity: pd.DataFrame, method: str) -> np.ndarray:
    """Finite per-case fidelity values of one method."""
    if method not in getattr(fidelity, "columns", ()):
        return np.array([])
    values = fidelity[method].to_numpy(float)
    return values[np.isfinite(values)]
