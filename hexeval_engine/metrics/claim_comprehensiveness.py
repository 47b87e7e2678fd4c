"""``claim_comprehensiveness``: how much of the prediction goes when the named features are removed.

Public interface (stable)
-------------------------
``claim_comprehensiveness(f_x, f_removed, f_baseline, *, min_gap) -> ndarray``

Comprehensiveness of DeYoung et al. (2020), *ERASER: A benchmark to evaluate rationalized NLP
models*, ACL, applied to tabular features with removal by baseline replacement (Covert, Lundberg &
Lee 2021, *Explaining by Removing*, JMLR 22): the features an explanation names (its own claim, see
:mod:`.claims`) take the baseline value, the rest keep the case's values, and the drop of the
explained class's probability is expressed as a share of the whole gap ``f(x) - f(baseline)``.
1 = removing the named features alone takes the prediction all the way to the baseline; 0 = removing
them changes nothing. Higher is better.
"""

from __future__ import annotations

import numpy as np


def claim_comprehensiveness(f_x, f_removed, f_baseline, *, min_gap: float) -> np.ndarray:
    """``(f(x) - f(x without the named features)) / (f(x) - f(baseline))``, per case.

    Parameters
    ----------
    f_x, f_removed, f_baseline : array-like of float
        The explained class's probability for the case, for the case with the named features at the
        baseline, and for the all-baseline row.
    min_gap : float
        ``NaN`` where ``f(x) - f(baseline) < min_gap`` (the baseline already predicts the class; the
        share is undefined), as for the normalised deletion/insertion scores.

    Returns
    -------
    numpy.ndarray
        One value per case (not clipped: a removal that overshoots the baseline gives more than 1).
    """
    f_x, f_removed, f_baseline = (np.asarray(a, dtype=float) for a in (f_x, f_removed, f_baseline))
    gap = f_x - f_baseline
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(gap >= min_gap, (f_x - f_removed) / gap, np.nan)
