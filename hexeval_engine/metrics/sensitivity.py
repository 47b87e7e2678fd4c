"""Stability as sensitivity: how far does an explanation move when the input moves a little?

Public interface (stable)
-------------------------
``max_sensitivity(original, perturbed) -> float``
``local_lipschitz(original, perturbed, input_distances) -> float``
``standardised_distances(x, x_perturbed, scales) -> ndarray``

``original`` is the explanation vector ``e(x)`` (1-D, feature order), ``perturbed`` the vectors
``e(x')`` of noisy copies ``x'`` (2-D, one row per copy); ``input_distances`` the distances
``||x' - x||`` of the copies in standardised units. Rows of ``perturbed`` that are not finite (a failed explanation) are
skipped; with none left the result is ``NaN``.

* ``max_sensitivity`` (lower is better), Yeh et al. (2019), *On the (in)fidelity and sensitivity
  of explanations*, NeurIPS; Quantus ``MaxSensitivity`` with its default normalisation:
  ``max_{x'} ||e(x') - e(x)|| / ||e(x)||`` (Euclidean norms); ``NaN`` when ``e(x)`` is all zero.
* ``local_lipschitz`` (lower is better), Alvarez-Melis & Jaakkola (2018), *On the robustness of
  interpretability methods*, ICML WHI; Quantus ``LocalLipschitzEstimate``:
  ``max_{x'} ||e(x') - e(x)|| / ||x' - x||`` with ``x`` in standardised units (each numeric
  feature divided by its training standard deviation); copies with ``x' = x`` are skipped.

Neither can reward an explanation on its own: an explainer that returns the same vector for every
input has sensitivity 0 (perfectly "stable") while saying nothing about the model. Read them beside
fidelity, never instead of it.
"""

from __future__ import annotations

import numpy as np


def _rows(perturbed, p: int) -> np.ndarray:
    return np.asarray(perturbed, dtype=float).reshape(-1, p)


def max_sensitivity(original, perturbed) -> float:
    """``max ||e(x') - e(x)|| / ||e(x)||`` over the noisy copies (lower is better)."""
    e = np.asarray(original, dtype=float).reshape(-1)
    others = _rows(perturbed, e.size)
    others = others[np.isfinite(others).all(axis=1)]
    norm = np.linalg.norm(e)
    if not np.isfinite(e).all() or norm == 0 or len(others) == 0:
        return float("nan")
    return float(np.max(np.linalg.norm(others - e[None, :], axis=1)) / norm)


def standardised_distances(x, x_perturbed, scales) -> np.ndarray:
    """``||(x' - x) / scales||`` per copy; missing values on either side contribute nothing."""
    x = np.asarray(x, dtype=float).reshape(-1)
    xp = np.asarray(x_perturbed, dtype=float).reshape(-1, x.size)
    scales = np.asarray(scales, dtype=float).reshape(-1)
    safe = np.where(np.isfinite(scales) & (scales > 0), scales, 1.0)
    diff = (xp - x[None, :]) / safe[None, :]
    return np.linalg.norm(np.where(np.isfinite(diff), diff, 0.0), axis=1)


def local_lipschitz(original, perturbed, input_distances) -> float:
    """``max ||e(x') - e(x)|| / ||x' - x||`` over the noisy copies (lower is better).

    Parameters
    ----------
    original : array-like, shape (p,)
        ``e(x)``.
    perturbed : array-like, shape (r, p)
        ``e(x')`` per copy.
    input_distances : array-like, shape (r,)
        ``||x' - x||`` per copy in standardised units (:func:`standardised_distances`).
    """
    e = np.asarray(original, dtype=float).reshape(-1)
    others = _rows(perturbed, e.size)
    dist = np.asarray(input_distances, dtype=float).reshape(-1)
    if len(dist) != len(others):
        raise ValueError(f"One input distance per perturbed explanation is needed; got {len(dist)} for "
                         f"{len(others)}.")
    keep = np.isfinite(others).all(axis=1) & np.isfinite(dist) & (dist > 0)
    if not np.isfinite(e).all() or not keep.any():
        return float("nan")
    return float(np.max(np.linalg.norm(others[keep] - e[None, :], axis=1) / dist[keep]))
