"""*Will it hold*: which changes does the explanation say leave the answer as it is, and is it right?

Public interface
----------------
``keep_region(shown, case, rows, *, changed, categorical) -> ndarray of bool``
``will_it_hold_skill(region, keeps) -> (skill, precision, coverage, reason)``
``will_it_hold_skills(region_rows, keeps, groups) -> list of (skill, precision, coverage, reason)``  several claims on
one case's neighbours at once

Each explanation makes a *keep claim* over the case's neighbours (:mod:`.rows`):

* a rule: inside its conditions the answer stays (what an anchor claims: Ribeiro et al. 2018);
* attributions: where the shown changes *cannot* overturn the answer, read at their worst: each shown
  feature whose value changed may take away its whole shown weight, so the claim covers the rows where the
  shown probability minus the sum of ``|weight|`` over the changed shown features stays at or above 1/2
  (log-odds: at or above 0). Read at their expected value instead (the *what if* reader), the region would be
  the reader's "keeps" answer and this question would repeat that one;
* counterfactuals: where no shown change has been started (no changed feature moved from the case's value
  towards the counterfactual's), the same worst-case reading of what the counterfactuals show;
* similar cases: the same reading of the shown cases with the other outcome (their differences read as
  changes): where no neighbour has started moving towards any of them, the answer is claimed to stay. The
  nearest-case reading ("closer to the case or a same-outcome case than to any other-outcome case") is the
  *what if* reader's "keeps" answer for this family, so this question would repeat that one.

Over the neighbours, with ``b`` the share that keep the answer, the claim has precision ``P`` (share of the
region that keeps it) and coverage ``C`` (share of neighbours in the region). The skill is

    skill_will_it_hold = C (P - b) / (b (1 - b)) = share of kept neighbours inside - share of flipped inside

(Youden's J of the region as a detector of "the answer stays"). A region drawn at random with any coverage
has expected precision ``b`` and skill 0, the claim "it always stays" (``C = 1``, ``P = b``) scores exactly 0,
so does a claim covering nothing; at equal precision more coverage scores higher, and an exact claim (inside
exactly where the answer stays) scores 1 at every base rate. The form ``C (P - b) / (1 - b)`` has the same
zero and order within a case but its best value is ``b``, so cases with many flipping neighbours would count
less in a pooled mean; dividing by ``b`` (the same for every method of a case, so paired comparisons per case
keep their sign) removes that. The skill is computed among neighbours that changed the same number of
features and averaged over those groups (:mod:`.strata`): without that, any "while these stay" claim, a Random
one included, covers the lightly changed neighbours that keep the answer more often. ``NaN`` with the reason
where no neighbour flips or none keeps.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..rules import rule_mask
from .shown import ATTRIBUTION, RULE
from .strata import stratified, stratified_rows


def keep_region(shown, case, rows, *, changed, categorical=()) -> np.ndarray:
    """Where the explanation claims the answer stays (see the module docstring); ``rows`` default to ``changed``'s
    (an attribution's claim reads only ``changed``)."""
    if shown.kind == ATTRIBUTION:
        p = min(max(shown.probability, 1e-9), 1 - 1e-9)
        margin = np.full(changed.length, np.log(p / (1 - p)) if shown.log_odds else p - 0.5)
        for feature, weight in shown.weights.items():
            margin -= abs(float(weight)) * changed(feature, case[feature])
        return margin >= 0
    rows = changed.rows if rows is None else rows
    if shown.kind == RULE:
        return rule_mask(list(shown.conditions), rows, categorical=categorical)
    begun = np.zeros(len(rows), dtype=bool)
    for change in shown.changes:
        for feature, (old, new) in change.items():
            begun |= _moved_towards(rows[feature], old, new)
    return ~begun


def _number(value):
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):  # a label: compared as text
        return None
    return None if np.isnan(number) else number


def _moved_towards(column: pd.Series, old, new) -> np.ndarray:
    """Rows whose value moved from ``old`` towards ``new`` at all (numbers), or equals ``new`` (categories)."""
    a, b = _number(old), _number(new)
    if a is not None and b is not None and pd.api.types.is_numeric_dtype(column):
        z = column.to_numpy(dtype=float, na_value=np.nan)
        with np.errstate(invalid="ignore"):
            return np.isfinite(z) & ((z - a) * np.sign(b - a) > 1e-9)
    return column.astype(str).to_numpy() == str(new)


def will_it_hold_skill(region, keeps, strata=None) -> tuple[float, float, float, str | None]:
    """``(skill, precision, coverage, reason)`` of a keep claim ``region`` against ``keeps`` (see above), the skill
    within groups of rows that changed as many features (``strata``; one group when omitted); precision and
    coverage over all rows."""
    region, keeps = np.asarray(region, dtype=bool), np.asarray(keeps, dtype=bool)
    strata = np.zeros(len(keeps), dtype=int) if strata is None else strata

    def youden(groups):
        kept, flipped = groups.means(region)
        return kept - flipped

    skill, reason = stratified(keeps, strata, youden)
    if reason is not None and not ((~keeps).any() and keeps.any()):
        return skill, float("nan"), float("nan"), reason
    coverage = float(region.mean())
    precision = float(keeps[region].mean()) if region.any() else float("nan")
    return skill, precision, coverage, reason


def will_it_hold_skills(region_rows, keeps, groups) -> list[tuple[float, float, float, str | None]]:
    """:func:`will_it_hold_skill` of several keep claims on the same neighbours (one row of ``region_rows`` each)
    within the case's :class:`.strata.Groups`, computed together: the same values."""
    regions, keeps = np.asarray(region_rows, dtype=bool), np.asarray(keeps, dtype=bool)

    def youden(g):
        kept, flipped = g.means_of_rows(regions)
        return kept - flipped

    skills, reason = stratified_rows(groups, youden, len(regions))
    if reason is not None and not ((~keeps).any() and keeps.any()):
        return [(skill, float("nan"), float("nan"), reason) for skill in skills]
    inside = regions.sum(axis=1)
    coverage = (inside / regions.shape[1]).tolist()  # np.mean's sum and division
    with np.errstate(invalid="ignore"):
        precision = ((regions & keeps[None, :]).sum(axis=1) / inside).tolist()
    return [(skill, p if n else float("nan"), c, reason)
            for skill, p, c, n in zip(skills, precision, coverage, inside.tolist())]
