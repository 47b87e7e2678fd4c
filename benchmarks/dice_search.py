"""DiCE seconds per run: HEXEval's array random search against the library's own search.

Reference: ``dice_ml`` 0.12's ``DiceRandom._generate_counterfactuals`` (per-cell ``DataFrame.at``
writes), run through the same pooled lockstep searches, sparsity step and rendering; only the
search differs. Both give the same counterfactuals (``tests/test_dice_random.py``); this script
checks that again on the cases it times and prints the seconds.

Settings (every knob explicit): the bundled use cases as shipped (their immutable features and
feature ranges, 3 counterfactuals, method random, random_state 42), the first ``--cases`` cases of
the technical evaluation's sample, ``--repeats`` paired runs alternating which search goes first;
the table shows the median.

    .venv/bin/python benchmarks/dice_search.py --workloads heart credit_risk --cases 20 --repeats 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _load(name: str, cases: int):
    from hexeval_engine import get_usecase, load_config, load_model
    from hexeval_engine.models.prepare import prepare_usecase
    from hexeval_engine.technical.run import sample_instance_ids
    from hexeval_engine.data.usecase_data import load_data_for_config

    usecase = get_usecase(name)
    prepare_usecase(usecase)
    overrides = {"evaluation": {"sample_size": cases, "random_state": 42,
                                "explainers": {"dice": {"enabled": True, "max_instances": cases,
                                                        "num_counterfactuals": 3, "method": "random"}}}}
    config = load_config(usecase.config_path, overrides)
    data = load_data_for_config(usecase.data_path, config)
    model = load_model(usecase.model_path)
    return model, data, config, list(sample_instance_ids(data, config)[:cases])


def _timed_run(model, data, config, ids, *, library: bool):
    from hexeval_engine.runtime.parallel import ExplainRunner
    from hexeval_engine.explainers.base import explained_classes, instance_seed
    from hexeval_engine.explainers.dice_explainer import DiceExplainer

    X = data.X_test.iloc[ids][list(data.feature_names)].reset_index(drop=True)
    classes, probabilities = explained_classes(model, X)
    seeds = [instance_seed(config.evaluation.random_state, i, "DiCE") for i in ids]
    original = DiceExplainer._search

    def search(self, query, seed, predict, library_search=False):
        return original(self, query, seed, predict, library=library)

    with mock.patch.object(DiceExplainer, "_search", search), ExplainRunner(model, data, config) as runner:
        runner.explainer("DiCE")
        start = time.perf_counter()
        out = runner.explain("DiCE", X, ids, classes, probabilities, seeds, render=False)
        seconds = time.perf_counter() - start
    signature = [(e.instance_id, e.error, [(cf.row, cf.probability) for cf in e.counterfactuals or []]) for e in out]
    return seconds, signature


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", nargs="+", default=["heart", "credit_risk"])
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = []
    for name in args.workloads:
        model, data, config, ids = _load(name, args.cases)
        times = {True: [], False: []}
        signatures = {}
        for r in range(args.repeats):
            for library in ((True, False) if r % 2 == 0 else (False, True)):
                seconds, signatures[library] = _timed_run(model, data, config, ids, library=library)
                times[library].append(seconds)
        same = signatures[True] == signatures[False]
        lib, ours = statistics.median(times[True]), statistics.median(times[False])
        rows.append((name, len(ids), lib, ours, lib / ours, "yes" if same else "NO"))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"DiCE seconds per run (median of {args.repeats}; load average {load}; {os.cpu_count()} cores)")
    print(f"{'workload':<12} {'cases':>5} {'library search':>15} {'array search':>13} "
          f"{'speed-up':>9} {'same counterfactuals':>21}")
    for name, n, lib, ours, ratio, same in rows:
        print(f"{name:<12} {n:>5} {lib:>13.2f} s {ours:>11.2f} s {ratio:>8.1f}x {same:>21}")
    return 0 if all(r[-1] == "yes" for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
