"""How well the run's personas agree with the people who took its study.

Per role and dimension: Spearman's rho between the persona mean and the human mean over items,
Kendall's tau between their orders of the methods, Krippendorff's ordinal alpha among the people
(the ceiling any rater can be expected to reach) and between personas and people (persona and the
people's median as two coders), each with a percentile bootstrap interval over items; the
forward-simulation accuracy of people and personas per method; the real n of people and ratings;
and one sentence per role.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from ..ratings_summary import DIMENSIONS
from ..vocabulary import plural
from .krippendorff import ordinal_alpha

RESAMPLES = 1000
LEVEL = 0.95


def _finite(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def _ci(values: list[float]) -> tuple[float | None, float | None]:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    if len(vals) < 20:
        return None, None
    lo, hi = np.percentile(vals, [50 * (1 - LEVEL), 50 * (1 + LEVEL)])
    return float(lo), float(hi)


def _spearman(a: np.ndarray, b: np.ndarray) -> float | None:
    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return _finite(np.corrcoef(stats.rankdata(a), stats.rankdata(b))[0, 1])  # Spearman's rho: Pearson on ranks


def _kendall(human: np.ndarray, persona: np.ndarray, method: np.ndarray, n_methods: int) -> float | None:
    """Kendall's tau between the methods' mean human and mean persona ratings (items given as arrays)."""
    counts = np.bincount(method, minlength=n_methods)
    seen = counts > 0
    if seen.sum() < 3:
        return None
    h = np.bincount(method, weights=human, minlength=n_methods)[seen] / counts[seen]
    p = np.bincount(method, weights=persona, minlength=n_methods)[seen] / counts[seen]
    if np.ptp(h) == 0 or np.ptp(p) == 0:
        return None
    return _finite(stats.kendalltau(h, p).statistic)


def _role_dimension(humans: pd.DataFrame, personas: pd.DataFrame, dimension: str, rng) -> dict:
    keys_of = ["instance_index", "explanation_type"]
    h = humans.groupby(keys_of)[dimension].mean()
    p = personas.groupby(keys_of)[dimension].mean()
    paired = pd.DataFrame({"human": h, "persona": p}).dropna()
    keys = list(paired.index)
    groups = {k: g[dimension].dropna().tolist() for k, g in humans.groupby(keys_of)}
    human, persona = paired["human"].to_numpy(dtype=float), paired["persona"].to_numpy(dtype=float)
    methods = sorted({k[1] for k in keys})
    method = np.array([methods.index(k[1]) for k in keys], dtype=int)
    among_units = [groups.get(k, []) for k in keys]
    between_units = [[float(round(persona[i])), float(np.median(among_units[i]))] for i in range(len(keys))]

    def measures(pick: np.ndarray) -> dict:
        return {"spearman": _spearman(human[pick], persona[pick]),
                "kendall_tau_methods": _kendall(human[pick], persona[pick], method[pick], len(methods)),
                "alpha_humans": ordinal_alpha([among_units[i] for i in pick]),
                "alpha_personas_humans": ordinal_alpha([between_units[i] for i in pick])}

    point = measures(np.arange(len(keys)))
    draws = {name: [] for name in point}
    for _ in range(RESAMPLES if len(keys) >= 3 else 0):
        for name, value in measures(rng.integers(len(keys), size=len(keys))).items():
            draws[name].append(value)
    result = {"n_items": len(keys)}
    for name, value in point.items():
        lo, hi = _ci(draws[name])
        result[name] = {"value": value, "ci_low": lo, "ci_high": hi}
    return result


def _accuracy(frame: pd.DataFrame, rng) -> dict:
    out = {}
    for method, group in frame.groupby("explanation_type"):
        correct = group["simulation_correct"].dropna().astype(float).to_numpy()
        if not len(correct):
            continue
        boots = [float(correct[rng.integers(len(correct), size=len(correct))].mean()) for _ in range(RESAMPLES)]
        lo, hi = _ci(boots)
        out[str(method)] = {"value": float(correct.mean()), "ci_low": lo, "ci_high": hi, "n": int(len(correct))}
    return out


def estimate_text(entry: dict, *, no_interval: str = "") -> str:
    """One calibration estimate in words: ``0.41 [0.12, 0.66]``, or "not measurable" when it has no value.

    ``no_interval`` is appended when the estimate has no interval (too few cases to bootstrap).
    """
    if entry.get("value") is None:
        return "not measurable"
    if entry.get("ci_low") is None:
        return f"{entry['value']:.2f}{no_interval}"
    return f"{entry['value']:.2f} [{entry['ci_low']:.2f}, {entry['ci_high']:.2f}]"


def sentence(role: str, n_people: int, block: dict) -> str:
    """One sentence comparing persona-human agreement with the people's agreement among themselves."""
    among = [block["dimensions"][d]["alpha_humans"]["value"] for d in DIMENSIONS]
    between = [block["dimensions"][d]["alpha_personas_humans"]["value"] for d in DIMENSIONS]
    pairs = [(a, b) for a, b in zip(among, between) if a is not None and b is not None]
    people = plural(n_people, "person", "people")
    if n_people < 2 or not pairs:
        return (f"For {role}, {people} answered: too few to measure how well people agree with each other, so "
                "the personas cannot be compared with that ceiling yet.")
    gap = float(np.mean([a - b for a, b in pairs]))
    how = "about as well as" if abs(gap) < 0.1 else ("much less than" if gap > 0.3 else
                                                      "less than" if gap > 0 else "better than")
    return (f"The personas agree with the {people} in the role {role} {how} those people agree with each other "
            f"(mean Krippendorff's alpha over the six questions: personas with people {np.mean([b for _, b in pairs]):.2f}, "
            f"people among themselves {np.mean([a for a, _ in pairs]):.2f}).")


def calibration_from(humans: pd.DataFrame, personas: pd.DataFrame, persona_answers: pd.DataFrame, *,
                     seed: int = 0, persona_kind: str = "simulated") -> dict:
    """Calibration of persona ratings against human ratings (the tables, not the run folder).

    Parameters
    ----------
    humans : DataFrame
        ``human_ratings.csv``'s columns.
    personas : DataFrame
        ``persona_ratings`` rows with status ok (``persona_role``, ``explanation_type``,
        ``instance_index``, the six dimensions).
    persona_answers : DataFrame
        :func:`~hexeval_engine.study.forward.persona_answers`.
    """
    rng = np.random.default_rng(seed)
    roles = {}
    for role, of_role in humans.groupby("role"):
        personas_of_role = personas[personas["persona_role"].astype(str) == str(role)]
        n_people = int(of_role["participant_id"].nunique())
        block = {"n_people": n_people, "n_ratings": int(len(of_role)), "persona_kind": persona_kind,
                 "n_persona_ratings": int(len(personas_of_role)), "dimensions": {},
                 "forward_accuracy": {"people": _accuracy(of_role, rng)}}
        for d in DIMENSIONS:
            block["dimensions"][d] = _role_dimension(of_role, personas_of_role, d, rng) if len(personas_of_role) else {
                "n_items": 0, **{k: {"value": None, "ci_low": None, "ci_high": None}
                                 for k in ("spearman", "kendall_tau_methods", "alpha_humans", "alpha_personas_humans")}}
        if len(personas_of_role) == 0:
            block["note"] = "No persona of the run has this role: the people's ratings are not compared with personas."
        block["sentence"] = sentence(str(role), n_people, block)
        roles[str(role)] = block
    return {"roles": roles, "forward_accuracy_personas": _accuracy(persona_answers, rng),
            "resamples": RESAMPLES, "level": LEVEL}
