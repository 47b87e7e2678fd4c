"""The same model and data through the bundled (use-case config) path and the upload path, side by side.

Issue 22 saw "a user's own model 3x slower than the bundled path on the same data and settings". This
benchmark runs each model both ways as a whole ``evaluate()`` call, at the original HEXEval's documented
defaults (``benchmarks/workloads.py``: ``original_defaults``, every case explained), all 1,025 rows of
heart.csv (duplicates kept, so the same 205 test rows and the same 100 cases), narratives and personas off:

* ``lr_config``      the LogisticRegression pipeline of ``benchmarks/technical.py``'s ``heart_lr`` (one-hot +
                     scaler + LogisticRegression, trained on the use case's split), saved as skops and evaluated
                     with the heart use case's config (``config_path``: its categorical columns, value labels,
                     plausible ranges and DiCE constraints)
* ``lr_upload``      the same skops file and CSV with no config (``upload_files("heart_lr_upload")``): what a user
                     who uploads gets
* ``forest_config``  the bundled random forest through the use case (``evaluate(usecase="heart")``)
* ``forest_upload``  the same forest's skops file and the CSV with no config (``load_data(path,
                     target_column=...)`` inside ``evaluate``: ``upload_files("heart_full_upload")``)
* ``lr_declared``, ``forest_declared``  the upload path with three settings of the use case's config given as
                     overrides: ``data.categorical_features`` (heart.csv codes its seven categorical columns as
                     numbers, so without it the upload path reads every column as numeric), ``actionability`` and
                     DiCE's ``feature_ranges`` (what a counterfactual may change) — whether they are the whole
                     difference between the paths' results (the value labels, units and wording change no number)

Each run is its own child process (explainer libraries, skops and the engine imported before timing); the
runs alternate (config, upload, config, upload ...) so both paths see the same load. Printed per run: wall
and CPU seconds of the whole ``evaluate()``, the pipeline stages, each method's seconds in the technical
stage (its explanations, stability runs and metrics), the categorical columns the data ended up with, the
model rows and calls, the load average before and after; then per pair, whether the cases were the same
and how far the results are apart.

    PYTHONPATH=. .venv/bin/python benchmarks/paths.py [--repeats 2] [--only lr] [--save out.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from workloads import load_average, original_defaults  # noqa: E402  (benchmarks/ is on the path from here)

#: model -> (bundled config path, upload path, upload path with the config's categorical columns declared)
PAIRS = {"lr": ("lr_config", "lr_upload", "lr_declared"), "forest": ("forest_config", "forest_upload", "forest_declared")}
SETTINGS = ("original's defaults (sample 100, all explained, fidelity 20, stability 0.05 x 5 on 30, SHAP bg 100, "
            "LIME 500/5, Anchor 10 @0.9, DiCE 5 x 3), heart.csv 1,025 rows with duplicates, narratives and "
            "personas off, sequential")
METHODS = ("SHAP", "LIME", "Anchor", "DiCE", "Random")
STAGES = ("load", "validate", "technical", "sanity_checks", "recommendations")


def _overrides() -> dict:
    overrides = original_defaults(100)
    overrides["data"] = {"drop_duplicates": False}
    overrides["narratives"] = {"enabled": False}
    return overrides


def _inputs(name: str, folder: Path) -> dict:
    """``evaluate()``'s keyword arguments for workload ``name`` (files written in ``folder``)."""
    from hexeval_engine import get_usecase  # the engine loads in the child processes only
    from workloads import upload_files

    heart = get_usecase("heart")
    if name == "forest_config":
        return {"usecase": "heart", "config_overrides": _overrides()}
    model_path, csv_path, overrides, _ = upload_files("heart_lr_upload" if name.startswith("lr") else
                                                      "heart_full_upload", 100, folder)
    kwargs = {"model_path": model_path, "data_path": csv_path, "target_column": "target",
              "config_overrides": _overrides()}
    if name.endswith("_declared"):
        from hexeval_engine import load_config  # the engine loads in the child processes only

        usecase = load_config(heart.config_path)
        overrides = kwargs["config_overrides"]
        overrides["data"]["categorical_features"] = list(usecase.data.categorical_features)
        overrides["actionability"] = usecase.actionability.model_dump(mode="json")  # what DiCE may change
        overrides["evaluation"]["explainers"]["dice"]["feature_ranges"] = \
            usecase.evaluation.explainers.dice.model_dump(mode="json")["feature_ranges"]
    if name == "lr_config":
        kwargs["config_path"] = heart.config_path
    return kwargs


def child(name: str) -> dict:
    """Run one workload in this process; its figures."""
    import anchor.anchor_tabular  # noqa: F401  imported before timing, like a running dashboard
    import dice_ml  # noqa: F401
    import lime.lime_tabular  # noqa: F401
    import shap  # noqa: F401
    import skops.io  # noqa: F401

    from hexeval_engine import evaluate  # the engine loads in the child processes only

    with tempfile.TemporaryDirectory() as tmp:
        kwargs = _inputs(name, Path(tmp))
        load_before = load_average()
        start, cpu_start = time.perf_counter(), time.process_time()
        result = evaluate(save=False, **kwargs)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    technical, data = result.technical, result.data
    sampled = data.X_test.iloc[technical.instance_ids][list(data.feature_names)]
    metrics = technical.metrics.set_index("method")
    numeric = metrics.select_dtypes("number").drop(columns=["seconds"], errors="ignore")
    return {"name": name, "wall": wall, "cpu": cpu, "load_before": load_before, "load_after": load_average(),
            "stages": {k: v for k, v in result.manifest["timings"].items() if isinstance(v, (int, float))},
            "methods": {k: v for k, v in technical.timings.items()},
            "categorical": list(data.categorical_features), "model_rows": technical.model_rows,
            "model_calls": result.model.calls,
            "cases": hashlib.sha256(sampled.to_csv(index=False).encode()).hexdigest()[:12],
            "n_cases": len(technical.instance_ids),
            "algorithms": {m: sorted({e.algorithm for e in technical.explanations if e.method == m and e.ok})
                           for m in METHODS},
            "metrics": json.loads(numeric.to_json(orient="index"))}


def run(name: str) -> dict:
    """Run one workload in a fresh process."""
    out = subprocess.run([sys.executable, __file__, "--child", name], capture_output=True, text=True, cwd=ROOT,
                         check=False)
    if out.returncode != 0:
        raise RuntimeError(f"workload {name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _differences(a: dict, b: dict) -> tuple[float, int, int]:
    """(largest absolute difference, metric cells compared, cells that differ) between two runs' metric means."""
    largest, compared, differ = 0.0, 0, 0
    for method, values in a["metrics"].items():
        other = b["metrics"].get(method, {})
        for column, value in values.items():
            if value is None or other.get(column) is None:
                continue
            compared += 1
            gap = abs(float(value) - float(other[column]))
            differ += gap > 1e-12
            largest = max(largest, gap)
    return largest, compared, differ


def print_runs(runs: list[dict]) -> None:
    head = (f"{'run':<15}{'wall s':>8}{'CPU s':>7}" + "".join(f"{s[:9] + ' s':>12}" for s in STAGES) +
            "".join(f"{m + ' s':>9}" for m in METHODS) + f"{'shared s':>9}{'categ.':>7}{'model rows':>12}"
            f"{'calls':>7}  load before/after")
    print(head)
    print("-" * len(head))
    for r in runs:
        stages = "".join(f"{r['stages'].get(s, float('nan')):>12.2f}" for s in STAGES)
        methods = "".join(f"{r['methods'].get(m, float('nan')):>9.2f}" for m in METHODS)
        print(f"{r['name']:<15}{r['wall']:>8.2f}{r['cpu']:>7.2f}{stages}{methods}{r['methods'].get('shared', 0):>9.2f}"
              f"{len(r['categorical']):>7}{r['model_rows']:>12,}{r['model_calls']:>7,}  "
              f"{r['load_before'].split()[0]} / {r['load_after'].split()[0]}")
    print("\nwall / CPU s = the whole evaluate() call (CPU: every thread of the process). Stage seconds are the "
          "manifest's timings;\nmethod seconds are the technical stage's (explanations, stability runs and metrics "
          "of the method; 'shared' is the rest of that stage).\ncateg. = categorical columns of the loaded data.")


def print_pairs(runs: list[dict]) -> None:
    print("\nSide by side (mean of the repeats; results compared with the bundled path's first run):")
    head = (f"{'run':<17}{'wall s':>8}{'CPU s':>7}{'CPU / bundled':>15}  same cases  results against the bundled path")
    print(head)
    print("-" * (len(head) + 40))
    mean = (lambda rs, k: sum(r[k] for r in rs) / len(rs))
    for names in PAIRS.values():
        base = [r for r in runs if r["name"] == names[0]]
        if not base:
            continue
        for name in names:
            mine = [r for r in runs if r["name"] == name]
            if not mine:
                continue
            largest, compared, differ = _differences(base[0], mine[0])
            same = "yes" if base[0]["cases"] == mine[0]["cases"] else "NO"
            verdict = ("identical metric means" if differ == 0 else
                       f"{differ} of {compared} metric means differ (largest gap {largest:.3g})")
            print(f"{name:<17}{mean(mine, 'wall'):>8.2f}{mean(mine, 'cpu'):>7.2f}"
                  f"{mean(mine, 'cpu') / mean(base, 'cpu'):>14.2f}x  {same:<11} {verdict}")
        for name in names[:2]:
            mine = [r for r in runs if r["name"] == name]
            if mine:
                print(f"    {name}: categorical {', '.join(mine[0]['categorical']) or 'none'}; "
                      + "; ".join(f"{m}: {', '.join(v) or 'none'}" for m, v in mine[0]["algorithms"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs of each workload (alternating), default 2")
    parser.add_argument("--only", nargs="+", choices=sorted(PAIRS), help="only these models")
    parser.add_argument("--save", type=Path, help="also write every run's figures as JSON")
    parser.add_argument("--child", metavar="NAME", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    print(f"load average before: {load_average()} on {os.cpu_count()} cores")
    print(f"reference: each model's bundled (use-case config) path; settings: {SETTINGS}\n")
    plan = [name for pair in (args.only or PAIRS) for name in PAIRS[pair]] * args.repeats
    runs = [run(name) for name in plan]
    print_runs(runs)
    print_pairs(runs)
    if args.save:
        args.save.write_text(json.dumps(runs, indent=1))
    print(f"\nload average after: {load_average()}")


if __name__ == "__main__":
    main()
