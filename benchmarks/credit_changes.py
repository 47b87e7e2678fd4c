"""Each speed change of the ``credit`` branch (issue 22) measured on its own: off and on, alternately, in one process.

A whole-run A/B on a shared 2-core machine drifts by more than these changes save, so each change is switched
off and on in turn inside one warmed-up process, the rest of the code the same, and the medians are printed with
the load average beside each line:

* ``path_dependent_skip``  SHAP's choice of algorithm on the credit-risk XGBoost pipeline (the first
  ``ShapExplainer.attributions`` call on the 100 cases of the original's defaults, 100 background rows): the
  path-dependent option built, run and rejected first (off) or not built (on, :func:`margin_booster`).

Tried and reverted (the figures are in ``benchmarks/TARGETS.md``, credit branch): fitting the randomisation
check's copy, and the counterfactual manifold's k-NN searches, in background threads from the start of the
technical stage. Both made the whole run slower on the shared machine (no free core: every GIL hand-off waits
for the scheduler).

    PYTHONPATH=. .venv/bin/python benchmarks/credit_changes.py [--repeats 5] [--raw]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from workloads import load_average, original_defaults  # noqa: E402  (benchmarks/ is on the path from here)


def _timed(fn) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - cpu


def path_dependent_skip(repeats: int) -> dict:
    """Wall and CPU seconds of SHAP's first call (algorithm chosen) on 100 credit cases, per setting."""
    from hexeval_engine import get_usecase, load_config, load_model
    from hexeval_engine.data.usecase_data import load_data_for_config
    from hexeval_engine.explainers import shap_explainer
    from hexeval_engine.technical.run import sample_instance_ids

    usecase = get_usecase("credit_risk")
    config = load_config(usecase.config_path, original_defaults(100))
    data = load_data_for_config(usecase.data_path, config)
    model = load_model(usecase.model_path)
    ids = sample_instance_ids(data, config)
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    proba = model.predict_proba(X)[:, 1]
    classes = (proba >= 0.5).astype(int)
    real = shap_explainer.margin_booster

    def run(skip: bool):
        shap_explainer.margin_booster = real if skip else (lambda estimator: False)
        try:
            explainer = shap_explainer.ShapExplainer(model, data, config, seed=1)
            return _timed(lambda: explainer.attributions(X, classes, proba))
        finally:
            shap_explainer.margin_booster = real

    run(True)  # warm-up: imports, first-call caches
    return _alternate(run, repeats, "SHAP's first call on the 100 credit cases (algorithm chosen), bg 100",
                      "path-dependent option built, run and rejected first (off) / not built (on)")


def _alternate(run, repeats: int, what: str, settings: str) -> dict:
    rows = {False: [], True: []}
    loads = []
    for _ in range(repeats):
        for setting in (False, True):
            loads.append(load_average())
            rows[setting].append(run(setting))
    return {"what": what, "settings": settings, "loads": loads,
            **{("on" if s else "off"): rows[s] for s in rows}}


CHANGES = {"path_dependent_skip": path_dependent_skip}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="*", choices=sorted(CHANGES))
    parser.add_argument("--raw", action="store_true", help="also print every pair's wall seconds and the loads")
    args = parser.parse_args()
    print(f"{'change':22s} {'off wall':>9s} {'on wall':>9s} {'off CPU':>9s} {'on CPU':>9s}  "
          f"{'runs':>4s}  load (1-min, first / last)  measured; settings")
    for name in args.only or CHANGES:
        r = CHANGES[name](args.repeats)

        def median(side, k):
            return statistics.median(x[k] for x in r[side])

        print(f"{name:22s} {median('off', 0):8.3f}s {median('on', 0):8.3f}s {median('off', 1):8.3f}s "
              f"{median('on', 1):8.3f}s  {len(r['on']):4d}  {r['loads'][0].split()[0]} / {r['loads'][-1].split()[0]}"
              f"{'':16s}{r['what']}; {r['settings']}")
        if args.raw:
            pairs = ", ".join(f"{a[0]:.2f}/{b[0]:.2f}" for a, b in zip(r["off"], r["on"]))
            print(f"{'':22s} wall off/on per pair: {pairs}; loads {', '.join(x.split()[0] for x in r['loads'])}")
    print("\nmedians of alternating runs in one process (off, on, off, on, ...); CPU = process CPU seconds, all threads")


if __name__ == "__main__":
    main()
