"""Interventional tree SHAP: shap's C routine against the shared-background routine, on the same trees and rows.

For each model: the bundled credit-risk XGBoost pipeline (300 trees, depth 5) and a synthetic XGBoost pipeline
(``synthetic:40``: 100 trees, depth 4), 100 background rows drawn as ``ShapExplainer`` draws them, the explained
rows from the test set. Printed per line: the reference (shap's ``TreeExplainer(..., feature_perturbation=
"interventional", model_output="probability").shap_values``, one call), the settings, milliseconds per explained
row for each (best of ``--repeats``), the speed-up, the largest difference between the two answers, and the load
average before and after. Each routine is built once before timing (the build is timed on its own line).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/tree_shap.py [--rows 200] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from workloads import load_average, load_workload  # noqa: E402  (benchmarks/ is on the path from here)


def _best(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def measure(name: str, rows: int, repeats: int) -> dict:
    import shap

    from hexeval_engine.explainers.feature_mapping import dense_matrix
    from hexeval_engine.explainers.shared_tree_shap import SharedTreeShap, shared_or_shap

    model, data, config, description = load_workload(name, rows)
    size = min(config.evaluation.explainers.shap.background_size, len(data.X_train))
    background = dense_matrix(model.transform(data.X_train.sample(n=size, random_state=0)))
    X = dense_matrix(model.transform(data.X_test.iloc[:rows]))
    load_before = load_average()

    def build():
        return shap.TreeExplainer(model.final_estimator, data=background, feature_perturbation="interventional",
                                  model_output="probability")

    reference = build()
    build_seconds, shared = _best(lambda: shared_or_shap(build()), repeats)
    if not isinstance(shared, SharedTreeShap):
        raise SystemExit(f"{name}: the shared routine does not cover this model")
    shap_seconds, want = _best(lambda: np.asarray(reference.shap_values(X, check_additivity=False)), repeats)
    shared_seconds, got = _best(lambda: shared.shap_values(X), repeats)
    return {"name": name, "description": description, "rows": len(X), "background": len(background),
            "shap_ms": 1000 * shap_seconds / len(X), "shared_ms": 1000 * shared_seconds / len(X),
            "build_s": build_seconds, "max_diff": float(np.max(np.abs(got - want))),
            "load": f"{load_before} / {load_average()}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200, help="explained rows per model")
    parser.add_argument("--repeats", type=int, default=3, help="timed repetitions (best is printed)")
    args = parser.parse_args()
    results = [measure(name, args.rows, args.repeats) for name in ("credit_risk", "synthetic:40")]
    print(f"{'model':14} {'rows':>5} {'bg':>4} {'shap ms/row':>12} {'shared ms/row':>14} {'speed-up':>9} "
          f"{'max |diff|':>11} {'build s':>8}  load before / after  reference; settings")
    print("-" * 150)
    for r in results:
        print(f"{r['name']:14} {r['rows']:5d} {r['background']:4d} {r['shap_ms']:12.2f} {r['shared_ms']:14.2f} "
              f"{r['shap_ms'] / r['shared_ms']:8.1f}x {r['max_diff']:11.1e} {r['build_s']:8.3f}  {r['load']:19}  "
              f"shap {__import__('shap').__version__} TreeExplainer interventional, probability, one call; "
              f"{r['description']}; best of {args.repeats}")


if __name__ == "__main__":
    main()
