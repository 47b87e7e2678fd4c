"""How well the run's personas agree with the people who took its study.

Per role and dimension: Spearman's rho between the persona mean and the human mean over items,
Kendall's tau between their orders of the methods, Krippendorff's ordinal alpha among the people
(the ceiling any rater can be expected to reach) and between personas and people (persona and the
people's median as two coders), each with a percentile bootstrap interval over items; the
forward-simulation (what-if) accuracy of people and personas per method and its paired difference
from the Random explanation on the same units (a person or persona and a case), with bootstrap
intervals (:func:`hexeval_engine.paired_stats.mean_ci` of the paired differences); the real n of
people and ratings; and one sentence per role for the agreement and one for the what-if answers.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from ..explanation import BASELINE_METHOD
from ..paired_stats import mean_ci
from ..ratings_summary import DIMENSIONS
from ..vocabulary import plural, signed
from .forward import answer_scores
from .krippendorff import resampled_alpha

RESAMPLES = 1000
LEVEL = 0.95
#: People a role needs before its ratings are compared (agreement among people needs two) or used as evidence.
MIN_PEOPLE = 2


def _finite(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def _ci(draws: np.ndarray) -> tuple[float | None, float | None]:
    """Percentile interval of the finite draws (None, None with fewer than 20 of them)."""
    vals = draws[np.isfinite(draws)]
    if len(vals) < 20:
        return None, None
    lo, hi = np.percentile(vals, [50 * (1 - LEVEL), 50 * (1 + LEVEL)])
    return float(lo), float(hi)


def _spearman(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row pair of ``a`` and ``b`` (shape (r, n)): Pearson on average ranks, computed
    as :func:`numpy.corrcoef` does; NaN where n < 3 or a row does not vary."""
    n = a.shape[1]
    if n < 3:
        return np.full(a.shape[0], np.nan)
    ra, rb = stats.rankdata(a, axis=1), stats.rankdata(b, axis=1)
    ra, rb = ra - ra.mean(axis=1, keepdims=True), rb - rb.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.clip(((ra * rb).sum(axis=1) / (n - 1)) / np.sqrt((ra * ra).sum(axis=1) / (n - 1))
                      / np.sqrt((rb * rb).sum(axis=1) / (n - 1)), -1, 1)
    varies = (np.ptp(a, axis=1) > 0) & (np.ptp(b, axis=1) > 0)
    return np.where(varies & np.isfinite(rho), rho, np.nan)


def _method_means(values: np.ndarray, method: np.ndarray, n_methods: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``values`` (shape (r, n)): each method's count and mean (summed in the items' order)."""
    r = values.shape[0]
    bins = (method + n_methods * np.arange(r)[:, None]).ravel()
    counts = np.bincount(bins, minlength=r * n_methods).reshape(r, n_methods)
    sums = np.bincount(bins, weights=values.ravel(), minlength=r * n_methods).reshape(r, n_methods)
    with np.errstate(divide="ignore", invalid="ignore"):
        return counts, sums / counts


def _kendall(human: np.ndarray, persona: np.ndarray, method: np.ndarray, n_methods: int) -> np.ndarray:
    """Kendall's tau-b between the methods' mean human and mean persona ratings, per row of the (r, n)
    arrays (the methods no item of a row has are left out); NaN with fewer than three methods or no
    variation in either order."""
    counts, h = _method_means(human, method, n_methods)
    _, p = _method_means(persona, method, n_methods)
    seen = counts > 0
    pair = seen[:, :, None] & seen[:, None, :] & np.triu(np.ones((n_methods, n_methods), dtype=bool), 1)
    sh = np.where(pair, np.sign(np.nan_to_num(h[:, :, None] - h[:, None, :])), 0.0)
    sp = np.where(pair, np.sign(np.nan_to_num(p[:, :, None] - p[:, None, :])), 0.0)
    untied_h, untied_p = (sh * sh).sum(axis=(1, 2)), (sp * sp).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.clip((sh * sp).sum(axis=(1, 2)) / np.sqrt(untied_h) / np.sqrt(untied_p), -1.0, 1.0)
    return np.where((seen.sum(axis=1) >= 3) & (untied_h > 0) & (untied_p > 0), tau, np.nan)


def _role_dimension(humans: pd.DataFrame, personas: pd.DataFrame, dimension: str, rng) -> dict:
    """The four agreement measures of one role and question, each with its bootstrap interval over items.

    All resamples are drawn at once (``rng.integers(n, size=(RESAMPLES, n))`` draws the same numbers
    as ``RESAMPLES`` draws of size ``n``) and measured as arrays.
    """
    keys_of = ["instance_index", "explanation_type"]
    h = humans.groupby(keys_of)[dimension].mean()
    p = personas.groupby(keys_of)[dimension].mean()
    paired = pd.DataFrame({"human": h, "persona": p}).dropna()
    keys = list(paired.index)
    groups = humans.dropna(subset=[dimension]).groupby(keys_of)[dimension].agg(list).to_dict()
    human, persona = paired["human"].to_numpy(dtype=float), paired["persona"].to_numpy(dtype=float)
    methods = sorted({k[1] for k in keys})
    method = np.array([methods.index(k[1]) for k in keys], dtype=int)
    among_units = [groups.get(k, []) for k in keys]
    between_units = [[float(round(persona[i])), float(np.median(among_units[i]))] for i in range(len(keys))]

    def measures(picks: np.ndarray) -> dict:
        return {"spearman": _spearman(human[picks], persona[picks]),
                "kendall_tau_methods": _kendall(human[picks], persona[picks], method[picks], len(methods)),
                "alpha_humans": resampled_alpha(among_units, picks),
                "alpha_personas_humans": resampled_alpha(between_units, picks)}

    point = {name: _finite(value[0]) for name, value in measures(np.arange(len(keys))[None]).items()}
    n_draws = RESAMPLES if len(keys) >= 3 else 0
    draws = measures(rng.integers(len(keys), size=(n_draws, len(keys)))) if n_draws else {}
    result = {"n_items": len(keys)}
    for name, value in point.items():
        lo, hi = _ci(draws[name]) if n_draws else (None, None)
        result[name] = {"value": value, "ci_low": lo, "ci_high": hi}
    return result


def _accuracy(frame: pd.DataFrame, scores: np.ndarray, *, seed: int) -> dict:
    """Per method: the mean what-if score with its bootstrap interval and the real n of answers."""
    out = {}
    methods = frame["explanation_type"].astype(str).to_numpy()
    for method in sorted(set(methods)):
        values = scores[(methods == method) & np.isfinite(scores)]
        if not len(values):
            continue
        mean, lo, hi = mean_ci(values, n_resamples=RESAMPLES, confidence=LEVEL, seed=seed)
        out[method] = {"value": mean, "ci_low": _finite(lo), "ci_high": _finite(hi), "n": int(len(values))}
    return out


def _versus_random(frame: pd.DataFrame, scores: np.ndarray, units: list[str], *, seed: int) -> dict:
    """Per method: the paired difference of its what-if score minus the Random explanation's on the same
    units (a person or persona and a case), with its bootstrap interval and the real n of pairs.

    The mean and interval are :func:`hexeval_engine.paired_stats.paired_difference`'s; its Wilcoxon
    p-value, which the calibration does not report and which costs a permutation test on small
    samples with ties, is not computed.
    """
    if not len(frame):
        return {}
    table = frame[units + ["explanation_type"]].astype(str).assign(score=scores)
    wide = table.pivot_table(index=units, columns="explanation_type", values="score", aggfunc="mean")
    if BASELINE_METHOD not in wide:
        return {}
    out = {}
    baseline = wide[BASELINE_METHOD].to_numpy(dtype=float)
    for method in wide.columns:
        if method == BASELINE_METHOD:
            continue
        values = wide[method].to_numpy(dtype=float)
        keep = np.isfinite(values) & np.isfinite(baseline)
        if keep.any():
            mean, lo, hi = mean_ci(values[keep] - baseline[keep], n_resamples=RESAMPLES, confidence=LEVEL, seed=seed)
            out[str(method)] = {"value": _finite(mean), "ci_low": _finite(lo), "ci_high": _finite(hi),
                                "n": int(keep.sum())}
    return out


def forward_block(people: pd.DataFrame, personas: pd.DataFrame, *, seed: int) -> dict:
    """What-if accuracy of people and personas per method, and paired against Random."""
    people_scores = people["simulation_correct"].map(
        lambda v: np.nan if pd.isna(v) else float(bool(v))).to_numpy(dtype=float)
    persona_scores = answer_scores(personas) if len(personas) else np.array([])
    return {"people": _accuracy(people, people_scores, seed=seed),
            "personas": _accuracy(personas, persona_scores, seed=seed) if len(personas) else {},
            "people_vs_random": _versus_random(people, people_scores, ["participant_id", "instance_index"], seed=seed),
            "personas_vs_random": _versus_random(personas, persona_scores, ["persona_name", "instance_index"],
                                                 seed=seed) if len(personas) else {},
            "n_people_answers": int(np.isfinite(people_scores).sum()),
            "n_persona_answers": int(np.isfinite(persona_scores).sum()),
            "n_persona_failures": int((personas["status"].astype(str) != "ok").sum()) if len(personas) else 0}


def estimate_text(entry: dict, *, no_interval: str = "") -> str:
    """One calibration estimate in words: ``0.41 [0.12, 0.66]``, or "not measurable" when it has no value.

    ``no_interval`` is appended when the estimate has no interval (too few cases to bootstrap).
    """
    if not entry or entry.get("value") is None:
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
    if n_people < MIN_PEOPLE:
        return (f"For {role}, {people} answered: too few to measure how well people agree with each other, so "
                "the personas cannot be compared with that ceiling yet.")
    if not pairs:
        return (f"For {role}, {people} answered, but their ratings vary too little (or too few items were rated by "
                "two of them) to measure how well people agree with each other, so the personas cannot be compared "
                "with that ceiling.")
    gap = float(np.mean([a - b for a, b in pairs]))
    how = "about as well as" if abs(gap) < 0.1 else ("much less than" if gap > 0.3 else
                                                      "less than" if gap > 0 else "better than")
    return (f"The personas agree with the {people} in the role {role} {how} those people agree with each other "
            f"(mean Krippendorff's alpha over the six questions: personas with people {np.mean([b for _, b in pairs]):.2f}, "
            f"people among themselves {np.mean([a for a, _ in pairs]):.2f}).")


def signed_text(entry: dict) -> str:
    """A paired difference in words: ``+0.25 [0.05, 0.45], 12 pairs``."""
    if not entry or entry.get("value") is None:
        return "not measurable"
    interval = f" [{signed(entry['ci_low'])}, {signed(entry['ci_high'])}]" if entry.get("ci_low") is not None else ""
    return f"{signed(entry['value'])}{interval}, {plural(entry['n'], 'pair')}"


def forward_sentence(role: str, forward: dict, persona_kind: str) -> str:
    """One sentence: which methods let the people of a role (and the personas) anticipate the model better
    than the Random explanation, paired on the same cases."""
    parts = []
    for who, key in ((f"people in the role {role}", "people_vs_random"),
                     ("the simulated readers" if persona_kind == "simulated" else "the LLM personas",
                      "personas_vs_random")):
        entries = forward.get(key) or {}
        if not entries:
            parts.append(f"for {who} the what-if answers cannot be paired against the Random explanation")
            continue
        better = [m for m, e in entries.items() if e.get("ci_low") is not None and e["ci_low"] > 0]
        n = max(e["n"] for e in entries.values())
        if better:
            parts.append(f"{who} anticipated the model better than with the Random explanation with "
                         + ", ".join(f"{m} ({signed_text(entries[m])})" for m in better))
        else:
            parts.append(f"no method let {who} anticipate the model better than the Random explanation beyond "
                         f"chance (up to {plural(n, 'pair')} per method)")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


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
        ``study/persona_answers.csv`` (:data:`~hexeval_engine.study.forward.ANSWER_COLUMNS`).
    """
    rng = np.random.default_rng(seed)
    roles = {}
    answers_role = persona_answers["persona_role"].fillna("").astype(str) if len(persona_answers) else pd.Series([], dtype=str)
    for role, of_role in humans.groupby("role"):
        personas_of_role = personas[personas["persona_role"].astype(str) == str(role)]
        # simulated readers carry no role (the same reader for every role); LLM personas answer as their role
        answers_of_role = persona_answers[(answers_role == str(role)) | (answers_role == "")]
        n_people = int(of_role["participant_id"].nunique())
        block = {"n_people": n_people, "n_ratings": int(len(of_role)), "persona_kind": persona_kind,
                 "n_persona_ratings": int(len(personas_of_role)), "dimensions": {},
                 "forward_accuracy": forward_block(of_role, answers_of_role, seed=seed)}
        for d in DIMENSIONS:
            block["dimensions"][d] = _role_dimension(of_role, personas_of_role, d, rng) if len(personas_of_role) else {
                "n_items": 0, **{k: {"value": None, "ci_low": None, "ci_high": None}
                                 for k in ("spearman", "kendall_tau_methods", "alpha_humans", "alpha_personas_humans")}}
        if len(personas_of_role) == 0:
            block["note"] = "No persona of the run has this role: the people's ratings are not compared with personas."
        block["sentence"] = sentence(str(role), n_people, block)
        block["forward_sentence"] = forward_sentence(str(role), block["forward_accuracy"], persona_kind)
        roles[str(role)] = block
    return {"roles": roles, "resamples": RESAMPLES, "level": LEVEL, "persona_kind": persona_kind}
