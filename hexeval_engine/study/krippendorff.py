"""Krippendorff's alpha for ordinal ratings (Krippendorff 2004, *Content Analysis*, ch. 11; Hayes &
Krippendorff 2007, "Answering the call for a standard reliability measure for coding data").

Implemented here (tested against hand-computed examples) rather than through a package: the one
library (``krippendorff``) adds a dependency for one formula. Every unit's contribution to the
coincidence matrix is computed once (:func:`unit_coincidences`), so a bootstrap resample's matrix is
a count-weighted sum of them (:func:`resampled_alpha`) and the alphas of all resamples come from one
array computation (:func:`alpha_from_coincidences`).
"""

from __future__ import annotations

import numpy as np


def unit_coincidences(units: list[list[float]]) -> tuple[np.ndarray, np.ndarray]:
    """The values that occur and each unit's coincidence matrix.

    Parameters
    ----------
    units : list of list
        For each unit (an item), the values the coders gave it (missing ones left out).

    Returns
    -------
    values : ndarray of shape (k,)
        The distinct values of the units with two or more values, ascending.
    per_unit : ndarray of shape (n_units, k, k)
        ``o_ce = (n_uc n_ue - [c = e] n_uc) / (m_u - 1)`` for a unit ``u`` with ``m_u >= 2`` values
        (``n_uc`` of them equal to value ``c``); all zeros for a unit with fewer than two values,
        which carries no information on agreement.
    """
    sizes = np.array([len(u) for u in units], dtype=int)
    pairable = np.flatnonzero(sizes >= 2)
    flat = np.concatenate([np.asarray(units[i], dtype=float) for i in pairable]) if len(pairable) else np.array([])
    values = np.unique(flat)
    counts = np.zeros((len(units), len(values)))
    if len(flat):
        owner = np.repeat(pairable, sizes[pairable])
        np.add.at(counts, (owner, np.searchsorted(values, flat)), 1.0)
    per_unit = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(len(values))
    scale = np.where(sizes >= 2, sizes - 1, 1).astype(float)
    return values, per_unit / scale[:, None, None]


def alpha_from_coincidences(coincidence: np.ndarray) -> np.ndarray:
    """Ordinal alpha of each coincidence matrix.

    Parameters
    ----------
    coincidence : ndarray of shape (r, k, k)
        Coincidence matrices over the same ascending values (a value may have no coincidences).

    Returns
    -------
    ndarray of shape (r,)
        ``1 - D_o / D_e`` with the ordinal distance ``(sum_{g=c..e} n_g - (n_c + n_e)/2)^2``; NaN where
        fewer than two distinct values occur (no variation, or no pairable values).
    """
    n_c = coincidence.sum(axis=2)
    n = n_c.sum(axis=1)
    cum = np.cumsum(n_c, axis=1)
    before = cum - n_c
    k = coincidence.shape[1]
    hi = np.maximum.outer(np.arange(k), np.arange(k))
    lo = np.minimum.outer(np.arange(k), np.arange(k))
    delta = (cum[:, hi] - before[:, lo] - (n_c[:, :, None] + n_c[:, None, :]) / 2) ** 2
    observed = (coincidence * delta).sum(axis=(1, 2))
    measurable = (n_c > 0).sum(axis=1) >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = (n_c[:, :, None] * n_c[:, None, :] * delta).sum(axis=(1, 2)) / (n - 1)
        alpha = 1 - observed / expected
    return np.where(measurable & (expected > 0), alpha, np.nan)


def ordinal_alpha(units: list[list[float]]) -> float | None:
    """Alpha of ordinal ratings.

    Parameters
    ----------
    units : list of list
        For each unit (an item), the values the coders gave it (missing ones left out). Units with
        fewer than two values carry no information on agreement and are skipped.

    Returns
    -------
    float or None
        ``1 - D_o / D_e`` (see :func:`alpha_from_coincidences`); None when fewer than two pairable
        values or no variation at all.
    """
    _, per_unit = unit_coincidences(units)
    value = alpha_from_coincidences(per_unit.sum(axis=0)[None])[0]
    return None if np.isnan(value) else float(value)


def resampled_alpha(units: list[list[float]], picks: np.ndarray) -> np.ndarray:
    """Ordinal alpha of many resamples of the units at once.

    Parameters
    ----------
    units : list of list
        As for :func:`ordinal_alpha`.
    picks : ndarray of int, shape (r, size)
        Each row: the indices of the units drawn (with repetition) for one resample.

    Returns
    -------
    ndarray of shape (r,)
        Each resample's alpha, NaN where it is not measurable; equal to :func:`ordinal_alpha` of
        ``[units[i] for i in row]`` for every row.
    """
    values, per_unit = unit_coincidences(units)
    r = picks.shape[0]
    drawn = np.bincount((picks + len(units) * np.arange(r)[:, None]).ravel(),
                        minlength=r * len(units)).reshape(r, len(units)).astype(float)
    k = len(values)
    return alpha_from_coincidences((drawn @ per_unit.reshape(len(units), k * k)).reshape(r, k, k))
