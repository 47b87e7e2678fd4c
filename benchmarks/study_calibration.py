"""Seconds to compute a study's calibration: the pure-Python bootstrap it had until commit d2af701
("before", copied below as the reference, with its what-if differences through ``paired_difference``,
whose unused Wilcoxon test ran a permutation test) against the vectorised one HEXEval runs now ("after").

The study tables are the simulated studies of ``benchmarks/study_sample_size.py`` (one role, six
explanations per case, 1,000 resamples per role and question); both versions run on the same tables
at the same seed, and the largest difference between their results is printed (it is at the level of
the last bit of a float: the sums are taken in a different order).

    .venv/bin/python benchmarks/study_calibration.py                      # 3 x 6 and 8 x 12
    .venv/bin/python benchmarks/study_calibration.py --shapes 5x12 --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import hexeval_engine.study.calibration  # noqa: E402  (after the path set-up)
from hexeval_engine.paired_stats import paired_difference  # noqa: E402
from study_sample_size import simulate  # noqa: E402

#: the module (``hexeval_engine.study.calibration`` as an attribute is the public function of that name)
calibration = sys.modules["hexeval_engine.study.calibration"]


def _alpha_before(units):
    """Ordinal alpha as computed before (per pair of values, in Python loops)."""
    pairable = [np.asarray(u, dtype=float) for u in units if len(u) >= 2]
    if not pairable:
        return None
    values = np.unique(np.concatenate(pairable))
    if len(values) < 2:
        return None
    index = {v: i for i, v in enumerate(values)}
    k = len(values)
    coincidence = np.zeros((k, k))
    for u in pairable:
        m = len(u)
        for i in range(m):
            for j in range(m):
                if i != j:
                    coincidence[index[u[i]], index[u[j]]] += 1.0 / (m - 1)
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    cum = np.cumsum(n_c)
    delta = np.zeros((k, k))
    for c in range(k):
        for e in range(k):
            lo, hi = min(c, e), max(c, e)
            delta[c, e] = (cum[hi] - (cum[lo - 1] if lo > 0 else 0.0) - (n_c[c] + n_c[e]) / 2) ** 2
    observed = (coincidence * delta).sum()
    expected = (np.outer(n_c, n_c) * delta).sum() / (n - 1)
    return None if expected == 0 else float(1 - observed / expected)


def _spearman_before(a, b):
    if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return None
    return calibration._finite(np.corrcoef(stats.rankdata(a), stats.rankdata(b))[0, 1])


def _kendall_before(human, persona, method, n_methods):
    counts = np.bincount(method, minlength=n_methods)
    seen = counts > 0
    if seen.sum() < 3:
        return None
    h = np.bincount(method, weights=human, minlength=n_methods)[seen] / counts[seen]
    p = np.bincount(method, weights=persona, minlength=n_methods)[seen] / counts[seen]
    if np.ptp(h) == 0 or np.ptp(p) == 0:
        return None
    return calibration._finite(stats.kendalltau(h, p).statistic)


def _role_dimension_before(humans, personas, dimension, rng):
    """The bootstrap as it was: one resample at a time, each measure computed in Python."""
    keys_of = ["instance_index", "explanation_type"]
    h = humans.groupby(keys_of)[dimension].mean()
    p = personas.groupby(keys_of)[dimension].mean()
    paired = pd.DataFrame({"human": h, "persona": p}).dropna()
    keys = list(paired.index)
    groups = {k: g[dimension].dropna().tolist() for k, g in humans.groupby(keys_of)}
    human, persona = paired["human"].to_numpy(dtype=float), paired["persona"].to_numpy(dtype=float)
    methods = sorted({k[1] for k in keys})
    method = np.array([methods.index(k[1]) for k in keys], dtype=int)
    among = [groups.get(k, []) for k in keys]
    between = [[float(round(persona[i])), float(np.median(among[i]))] for i in range(len(keys))]

    def measures(pick):
        return {"spearman": _spearman_before(human[pick], persona[pick]),
                "kendall_tau_methods": _kendall_before(human[pick], persona[pick], method[pick], len(methods)),
                "alpha_humans": _alpha_before([among[i] for i in pick]),
                "alpha_personas_humans": _alpha_before([between[i] for i in pick])}

    point = measures(np.arange(len(keys)))
    draws = {name: [] for name in point}
    for _ in range(calibration.RESAMPLES if len(keys) >= 3 else 0):
        for name, value in measures(rng.integers(len(keys), size=len(keys))).items():
            draws[name].append(np.nan if value is None else value)
    result = {"n_items": len(keys)}
    for name, value in point.items():
        lo, hi = calibration._ci(np.asarray(draws[name], dtype=float))
        result[name] = {"value": value, "ci_low": lo, "ci_high": hi}
    return result


def _versus_random_before(frame, scores, units, *, seed):
    """The what-if differences as they were: through ``paired_difference`` (which adds a Wilcoxon test)."""
    if not len(frame):
        return {}
    table = frame[units + ["explanation_type"]].astype(str).assign(score=scores)
    wide = table.pivot_table(index=units, columns="explanation_type", values="score", aggfunc="mean")
    if "Random" not in wide:
        return {}
    out = {}
    for method in wide.columns:
        if method == "Random":
            continue
        diff = paired_difference(wide[method].to_numpy(dtype=float), wide["Random"].to_numpy(dtype=float),
                                 n_resamples=calibration.RESAMPLES, confidence=calibration.LEVEL, seed=seed)
        if diff.n:
            out[str(method)] = {"value": calibration._finite(diff.mean), "ci_low": calibration._finite(diff.ci_low),
                                "ci_high": calibration._finite(diff.ci_high), "n": diff.n}
    return out


def _timed(tables, seed):
    start = time.perf_counter()
    result = calibration.calibration_from(*tables, seed=seed)
    return time.perf_counter() - start, json.loads(json.dumps(result))


def _largest_difference(a, b) -> float:
    if isinstance(a, dict):
        return max([_largest_difference(a[k], b[k]) for k in a] or [0.0])
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b)
    if a != b:
        raise SystemExit(f"the two versions disagree: {a!r} against {b!r}")
    return 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=["3x6", "8x12"], help="people x cases")
    parser.add_argument("--repeats", type=int, default=1, help="timings per version (the minimum is printed)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"reference: calibration_from on one simulated role (benchmarks/study_sample_size.py), "
          f"{calibration.RESAMPLES} resamples; before = pure-Python bootstrap of d2af701, after = vectorised; "
          f"seed {args.seed}; minimum of {args.repeats} timing(s)")
    print(f"{'people':>6} {'cases':>5} {'ratings':>7} {'before s':>9} {'after s':>8} {'speed-up':>8} "
          f"{'max diff':>9} {'load':>5}")
    now = calibration._role_dimension, calibration._versus_random
    for shape in args.shapes:
        people, cases = (int(x) for x in shape.lower().split("x"))
        tables = simulate(people, cases, np.random.default_rng([args.seed, people, cases]))
        calibration._role_dimension, calibration._versus_random = _role_dimension_before, _versus_random_before
        try:
            before = [_timed(tables, args.seed) for _ in range(args.repeats)]
        finally:
            calibration._role_dimension, calibration._versus_random = now
        after = [_timed(tables, args.seed) for _ in range(args.repeats)]
        t0, t1 = min(t for t, _ in before), min(t for t, _ in after)
        diff = _largest_difference(after[0][1], before[0][1])
        print(f"{people:>6} {cases:>5} {len(tables[0]):>7} {t0:>9.2f} {t1:>8.3f} {t0 / t1:>7.0f}x {diff:>9.1e} "
              f"{os.getloadavg()[0]:>5.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
