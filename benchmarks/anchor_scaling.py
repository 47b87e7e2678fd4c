"""Anchor on wide data: where the searches' time and memory go as the number of columns grows.

Workload: ``benchmarks/workloads.py``'s ``synthetic:P`` (2,000 rows, P features, a quarter
categorical, XGBoost behind one-hot + imputation), explained at the original HEXEval's defaults
(``original_defaults``: sample 100, random_state 42; Anchor on the first 10 cases of the sample at
precision 0.9) with the Anchor settings of ``anchor_explainer`` (printed). Each width runs in its own
process, so its peak memory is its own. Reference: the first row (13 features); cost that grows
"about linearly" should stay near the width ratio in the ``x13`` columns.

Printed per width (all searches of the 10 cases together):

* ``predicates``: candidate predicates per search (one per categorical feature, about three per
  numeric one); ``requests``: model questions of the longest search (its bandit steps plus the
  initial draws) and of all searches; ``calls``: pooled model calls; ``rows``: rows the model saw;
* seconds: ``search``: CPU seconds in the search threads, of which ``sample`` in the sampler
  (drawing rows, imposing conditions; the coverage sample included); ``pooled``: CPU seconds of the
  pooled model calls, of which ``decode`` (coded rows back to a frame) and ``model``
  (``predict_proba``); ``wall``: the whole Anchor run;
* memory: ``held MB``: the most the searches' own records held (samples, coverage masks, training
  keys; summed over the searches that run together), ``peak MB`` / ``start MB``: the process's
  peak resident memory and its memory before Anchor started.

    .venv/bin/python benchmarks/anchor_scaling.py                   # 13, 30, 100, 300 features
    .venv/bin/python benchmarks/anchor_scaling.py --features 13 100 --budget 600
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from workloads import load_average, rss_mb  # noqa: E402  (benchmarks/ is on the path from here)


class _Timer:
    """CPU seconds of the calling thread spent inside wrapped callables, per label (nested calls counted once)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._active = threading.local()

    def wrap(self, label: str, fn):
        def timed(*args, **kwargs):
            active = self._active.__dict__.setdefault("labels", set())
            if label in active:
                return fn(*args, **kwargs)
            active.add(label)
            start = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                active.discard(label)
                self.seconds[label] = self.seconds.get(label, 0.0) + time.thread_time() - start
        return timed


class _TimedCoder:
    def __init__(self, coder, timer):
        self._coder = coder
        self.decode = timer.wrap("decode", coder.decode)

    def __getattr__(self, name):
        return getattr(self._coder, name)


def child(features: int, instances: int, budget: float) -> dict:
    """Explain ``instances`` synthetic cases with Anchor in this process and return the figures."""
    import anchor.anchor_tabular  # noqa: F401  (imported before timing)

    from hexeval_engine.explainers import anchor_explainer as ae
    from hexeval_engine.explainers.anchor_sampling import AnchorSampler
    from hexeval_engine.explainers.base import explained_classes, instance_seed
    from hexeval_engine.technical.run import sample_instance_ids
    from workloads import load_workload

    model, data, config, _ = load_workload(f"synthetic:{features}", 100)
    config.evaluation.explainers.anchor.time_budget_seconds = budget
    ids = sample_instance_ids(data, config)[:instances]
    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = explained_classes(model, X)
    seeds = [instance_seed(config.evaluation.random_state, i, "Anchor") for i in ids]
    explainer = ae.AnchorExplainer(model, data, config)

    timer, found = _Timer(), []
    AnchorSampler.draw = timer.wrap("sample", AnchorSampler.draw)
    AnchorSampler.rows = timer.wrap("sample", AnchorSampler.rows)
    beam = ae.anchor_beam

    def recorded_beam(sampler, label_fn, *args, **kwargs):
        asked = [0]

        def counted(raw):
            asked[0] += 1
            return label_fn(raw)

        held = 0
        try:
            out = beam(sampler, counted, *args, **kwargs)
            held = out["held_bytes"]
            return out
        finally:  # a search stopped by its time budget still counts its requests (its memory is not known)
            found.append((sampler.n_predicates, asked[0], held))

    ae.anchor_beam = timer.wrap("search", recorded_beam)
    explainer.predictor.positive = timer.wrap("pooled", explainer.predictor.positive)
    explainer.predictor.coder = _TimedCoder(explainer.predictor.coder, timer)
    model.predict_proba = timer.wrap("model", model.predict_proba)
    calls, rows = explainer.predictor.calls, explainer.predictor.rows

    start_mb, load_before = rss_mb(), load_average()
    start = time.perf_counter()
    out = explainer.explain(X, ids, classes, probabilities, seeds)
    wall = time.perf_counter() - start
    return {
        "features": features, "instances": len(ids), "wall": wall, **timer.seconds,
        "predicates": max((f[0] for f in found), default=0), "requests_max": max((f[1] for f in found), default=0),
        "requests": sum(f[1] for f in found), "held_mb": sum(f[2] for f in found) / 2**20,
        "together": explainer.together(),
        "budgeted_mb": ae.search_bytes(len(data.feature_names), len(data.categorical_features)
                                       + 3 * len(data.numeric_features), len(explainer._anchor.train)) / 2**20,
        "calls": explainer.predictor.calls - calls, "rows": explainer.predictor.rows - rows,
        "start_mb": start_mb, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "failed": sum(not e.ok for e in out), "errors": sorted({e.error for e in out if not e.ok}),
        "load_before": load_before, "load_after": load_average(),
        "rules": [[c.text for c in e.rule.conditions] if e.ok else None for e in out],
    }


def run(features: int, instances: int, budget: float) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(features), str(instances), str(budget)],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"width {features} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_table(runs: list[dict]) -> None:
    head = (f"{'features':>8}{'predicates':>11}{'requests':>15}{'calls':>7}{'rows':>10}{'search s':>9}{'sample s':>9}"
            f"{'pooled s':>9}{'decode s':>9}{'model s':>8}{'wall s':>8}{'x13':>6}{'held MB':>8}{'peak MB':>8}"
            f"{'start MB':>9}{'together':>9}{'budget MB':>10}{'failed':>7}  load before/after")
    print(head)
    print("-" * len(head))
    ref = runs[0]
    for r in runs:
        g = r.get
        print(f"{r['features']:>8}{r['predicates']:>11}{r['requests_max']:>7} / {r['requests']:<5}{r['calls']:>7}"
              f"{r['rows']:>10,}{g('search', 0):>9.2f}{g('sample', 0):>9.2f}{g('pooled', 0):>9.2f}"
              f"{g('decode', 0):>9.2f}"
              f"{g('model', 0):>8.2f}{r['wall']:>8.2f}{r['wall'] / ref['wall']:>6.1f}{r['held_mb']:>8.1f}"
              f"{r['peak_mb']:>8.0f}{r['start_mb']:>9.0f}{r['together']:>9}{r['budgeted_mb']:>10.0f}{r['failed']:>7}  "
              f"{r['load_before'].split()[0]} / "
              f"{r['load_after'].split()[0]}")
    print("\nrequests = model questions of the longest search / of all searches (bandit steps + initial draws);")
    print("calls = pooled model calls (one serves every search still running). search/pooled = CPU seconds of the")
    print("search threads / of the pooled model calls (decode and model are parts of pooled; sample is part of")
    print("search). x13 = wall time relative to the first row. held MB = the searches' own records at their")
    print("largest, summed. peak/start MB = the process's peak resident memory / before Anchor started.")
    print("together = searches run (and pooled) together, from the memory budget; budget MB = memory budgeted per")
    print("search (anchor_explainer.search_bytes).")
    for r in runs:
        for error in r["errors"]:
            print(f"  {r['features']} features, failed case: {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=int, nargs="+", default=[13, 30, 100, 300])
    parser.add_argument("--instances", type=int, default=10, help="cases explained (the benchmark default: 10)")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="time budget per case in seconds (evaluation.explainers.anchor.time_budget_seconds)")
    parser.add_argument("--save", type=Path, help="also write every figure (and the rules) as JSON")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(int(args.child[0]), int(args.child[1]), float(args.child[2]))))
        return
    from hexeval_engine.explainers import anchor_explainer as ae

    print(f"load average before: {load_average()} on {os.cpu_count()} cores")
    print(f"Anchor settings: {args.instances} cases, precision 0.9, time budget {args.budget:g} s per case, "
          f"delta {ae.DELTA}, tau {ae.TAU}, beam {ae.BEAM_SIZE}, batch {ae.BATCH_SIZE}, start samples "
          f"{ae.MIN_SAMPLES_START}, coverage samples {ae.COVERAGE_SAMPLES}, longest rule {ae.MAX_ANCHOR_SIZE}, "
          f"training rows sampled <= {ae.MAX_SAMPLE_ROWS}\n")
    runs = [run(p, args.instances, args.budget) for p in args.features]
    print_table(runs)
    if args.save:
        args.save.write_text(json.dumps(runs, indent=1))
    print(f"\nload average after: {load_average()}")


if __name__ == "__main__":
    main()
