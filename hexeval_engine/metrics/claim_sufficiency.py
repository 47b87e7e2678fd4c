"""``claim_sufficiency``: how much of the prediction the named features carry on their own.

Public interface (stable)
-------------------------
``claim_sufficiency(f_kept, f_baseline, f_x, *, min_gap) -> ndarray``

Sufficiency of DeYoung et al. (2020), *ERASER*, ACL, turned so that higher is better: every feature
the explanation does *not* name takes the baseline value (Covert, Lundberg & Lee 2021), and the
explained class's probability that remains above the baseline is expressed as a share of the whole
gap ``f(x) - f(baseline)``. 1 = the named features alone reproduce the prediction; 0 = on their own
they carry nothing. (ERASER's sufficiency ``f(x) - f(kept)`` is ``(1 - claim_sufficiency)`` times
the gap.)
"""

from __future__ import annotations

import numpy as np


def claim_sufficiency(f_kept, f_baseline, f_x, *, min_gap: float) -> np.ndarray:
    """``(f(only the named features kept) - f(baseline)) / (f(x) - f(baseline))``, per case.

    Parameters
    ----------
    f_kept, f_baseline, f_x : array-like of float
        The explained class's probability with only the named features kept, for the all-baseline
        row and for the case.
    min_gap : float
        ``NaN`` where ``f(x) - f(baseline) < min_gap``.

    Returns
    -------
    numpy.ndarray
        One value per case (not clipped).
    """
    f_kept, f_baseline, f_x = (np.asarray(a, dtype=float) for a in (f_kept, f_baseline, f_x))
    gap = f_x - f_baseline
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(gap >= min_gap, (f_kept - f_baseline) / gap, np.nan)
