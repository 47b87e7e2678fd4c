"""Benchmark the technical evaluation on both bundled use cases at the original HEXEval defaults.

Defaults (the original HEXEval's documented settings): sample_size 100 (capped by the test set:
heart has 61 test rows after duplicates are dropped), fidelity steps 20, SHAP background 100,
LIME 500 samples with the stability test, Anchor on 10 instances at precision 0.9, DiCE on 5
instances with 3 counterfactuals each; sequential backend.

Prints wall time per method, the total, and the model rows evaluated per second, then compares
the vectorised fidelity metric with a one-model-call-per-masked-row loop on the same SHAP
importances (values must agree to 1e-9).

Run: ``.venv/bin/python benchmarks/technical.py [--fidelity-instances N]``. The explainer
libraries are imported before timing, so the numbers exclude one-off import time. The machine's
load average is printed too: other processes on a 2-core machine slow every number down.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

ORIGINAL_DEFAULTS = {"evaluation": {
    "sample_size": 100, "fidelity": {"steps": 20},
    "parallel": {"backend": "sequential"},
    "explainers": {"shap": {"enabled": True, "background_size": 100},
                   "lime": {"enabled": True, "num_samples": 500, "stability_test": True},
                   "anchor": {"enabled": True, "max_instances": 10, "precision_threshold": 0.9},
                   "dice": {"enabled": True, "max_instances": 5, "num_counterfactuals": 3}}}}


def _warm_imports() -> None:
    import anchor.anchor_tabular  # noqa: F401
    import dice_ml  # noqa: F401
    import lime.lime_tabular  # noqa: F401
    import shap  # noqa: F401


def run_usecase(name: str, fidelity_instances: int) -> dict:
    from hexeval_engine import get_usecase, load_config, load_model
    from hexeval_engine.metrics import deletion_insertion_auc, deletion_insertion_auc_loop, make_baseline
    from hexeval_engine.prepare import prepare_usecase
    from hexeval_engine.technical import run_technical_evaluation
    from hexeval_engine.usecase_data import load_data_for_config

    usecase = get_usecase(name)
    prepare_usecase(usecase)
    config = load_config(usecase.config_path, ORIGINAL_DEFAULTS)
    data = load_data_for_config(usecase.data_path, config)
    model = load_model(usecase.model_path)
    model.reset_counters()
    start = time.perf_counter()
    result = run_technical_evaluation(model, data, config)
    wall = time.perf_counter() - start

    shap_expl = [e for e in result.explanations if e.method == "SHAP" and e.ok][:fidelity_instances]
    X = data.X_test.iloc[[e.instance_id for e in shap_expl]][list(data.feature_names)].reset_index(drop=True)
    imp = np.array([[e.importance[f] for f in data.feature_names] for e in shap_expl])
    cls = np.array([e.predicted_class for e in shap_expl])
    base = make_baseline(data)
    steps = config.evaluation.fidelity.steps
    t0 = time.perf_counter()
    fast = deletion_insertion_auc(model, X, imp, cls, base, steps)
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    slow = deletion_insertion_auc_loop(model, X, imp, cls, base, steps)
    t_slow = time.perf_counter() - t0
    for a, b in zip(fast, slow):
        assert np.allclose(a, b, rtol=0, atol=1e-9, equal_nan=True), "vectorised and loop fidelity differ"
    return {"name": name, "result": result, "wall": wall, "n_sample": len(result.instance_ids),
            "n_test": len(data.X_test), "fid_n": len(shap_expl), "t_fast": t_fast, "t_slow": t_slow}


def print_table(runs: list[dict]) -> None:
    methods = ["SHAP", "LIME", "Anchor", "DiCE"]
    head = f"{'use case':<12}{'sample':>14}" + "".join(f"{m + ' s':>10}" for m in methods) + \
        f"{'metrics s':>11}{'total s':>9}{'model rows':>12}{'rows/s':>10}"
    print(head)
    print("-" * len(head))
    for r in runs:
        res = r["result"]
        t = res.timings
        sample = f"{r['n_sample']}" + (f" (cap {r['n_test']})" if r["n_sample"] < 100 else "")
        cells = "".join(f"{t.get(m, float('nan')):>10.2f}" for m in methods)
        print(f"{r['name']:<12}{sample:>14}{cells}{t['metrics']:>11.2f}{r['wall']:>9.2f}"
              f"{res.model_rows:>12,}{res.model_rows / r['wall']:>10,.0f}")
        if res.failures:
            print(f"  failures: {res.failures}")
    print("\n(per-method seconds include that method's stability runs; total = run_technical_evaluation wall time)")
    print("\nFidelity (deletion + insertion AUC, steps 20) on the same SHAP importances")
    head = f"{'use case':<12}{'instances':>10}{'vectorised s':>14}{'one call/row s':>16}{'speed-up':>10}"
    print(head)
    print("-" * len(head))
    for r in runs:
        print(f"{r['name']:<12}{r['fid_n']:>10}{r['t_fast']:>14.3f}{r['t_slow']:>16.2f}"
              f"{r['t_slow'] / r['t_fast']:>9.0f}x")
    print("values agree to 1e-9 (asserted)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fidelity-instances", type=int, default=30,
                        help="instances compared in the fidelity benchmark (the loop is slow)")
    parser.add_argument("--usecases", nargs="+", default=["heart", "credit_risk"])
    args = parser.parse_args()
    _warm_imports()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores\n")
    runs = [run_usecase(name, args.fidelity_instances) for name in args.usecases]
    print_table(runs)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
