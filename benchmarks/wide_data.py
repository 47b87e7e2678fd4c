"""Benchmark an evaluation of a wide CSV: 300 feature columns, one of them a categorical with thousands of levels.

The data are synthetic and seeded: 297 numeric columns (a few carry the signal), two small
categoricals, and ``account_id``-like ``merchant`` with ``--levels`` distinct values (default 3,000);
``--rows`` rows (default 5,000). The model is the kind people bring for such data: a scikit-learn
Pipeline (one-hot encoding with unknown categories ignored, median imputation) in front of an
XGBClassifier, saved with skops.

Each configuration runs ``hexeval_engine.evaluate`` in a fresh child process and reports wall time
per stage in seconds (from the run manifest: loading, technical, personas, total) and the child's peak resident memory (``ru_maxrss``). Reference:
the bundled heart use case with the same knobs, so the two rows compare like with like.

Knobs (all set explicitly): sample_size 20, SHAP background 50, LIME 500 samples with a stability
subset of 5, Anchor on 5 instances at precision 0.9, DiCE on 3 instances with 3 counterfactuals,
fidelity steps 20, stability repeats 3, simulated persona rater on 2 instances, sequential backend.
``--no-anchor`` leaves Anchor out of both rows (on the wide data its beam search over ~900 candidate
predicates did not finish 5 instances in 12 minutes and held more than 4 GiB).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/wide_data.py [--rows 5000] [--levels 3000]``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

KNOBS = {
    "evaluation": {
        "sample_size": 20, "random_state": 42, "bootstrap_resamples": 1000,
        "fidelity": {"steps": 20}, "stability": {"noise_std": 0.02, "repeats": 3},
        "parallel": {"backend": "sequential"},
        "explainers": {"shap": {"enabled": True, "background_size": 50},
                       "lime": {"enabled": True, "num_samples": 500, "num_features": 10, "stability_test": True,
                                "stability_subset": 5},
                       "anchor": {"enabled": True, "max_instances": 5, "precision_threshold": 0.9},
                       "dice": {"enabled": True, "max_instances": 3, "num_counterfactuals": 3, "method": "random"}}},
    "personas": {"enabled": True, "rater": "simulated", "sample_instances": 2, "runs_per_method": 1},
}


def make_wide(folder: Path, rows: int, levels: int, n_features: int = 300) -> tuple[Path, Path]:
    """Write the synthetic CSV and its trained pipeline; return (model path, CSV path)."""
    import skops.io as sio
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder
    from xgboost import XGBClassifier

    rng = np.random.default_rng(7)
    n_numeric = n_features - 3
    numeric = rng.normal(size=(rows, n_numeric))
    frame = pd.DataFrame(numeric, columns=[f"measure_{i:03d}" for i in range(n_numeric)]).round(3)
    frame["region"] = rng.choice(["north", "south", "east", "west"], rows)
    frame["channel"] = rng.choice(["web", "branch", "phone"], rows)
    merchants = np.array([f"M{i:05d}" for i in range(levels)])
    frame["merchant"] = merchants[rng.integers(0, levels, rows)]
    risky = set(merchants[: levels // 10])
    logit = 1.2 * numeric[:, 0] - 0.8 * numeric[:, 1] + 0.5 * numeric[:, 2] + \
        0.7 * (frame["region"] == "south") + 1.0 * frame["merchant"].isin(risky)
    frame["target"] = (rng.random(rows) < 1 / (1 + np.exp(-logit))).astype(int)
    csv = folder / "wide.csv"
    frame.to_csv(csv, index=False)
    categorical = ["region", "channel", "merchant"]
    pre = ColumnTransformer([("categorical", OneHotEncoder(handle_unknown="ignore"), categorical),
                             ("numeric", SimpleImputer(strategy="median"), list(frame.columns[:n_numeric]))])
    model = Pipeline([("preprocess", pre), ("model", XGBClassifier(n_estimators=100, max_depth=4, n_jobs=1,
                                                                   random_state=0))])
    X = frame.drop(columns="target")
    model.fit(X, frame["target"])
    path = folder / "wide.skops"
    sio.dump(model, path)
    return path, csv


def _child(kind: str, model: str | None, csv: str | None, out: str, knobs: dict, queue) -> None:
    from hexeval_engine import evaluate

    start = time.perf_counter()
    if kind == "heart":
        result = evaluate(usecase="heart", output_dir=out, config_overrides=knobs)
    else:
        result = evaluate(model, csv, "target", output_dir=out, config_overrides=knobs, keep_inputs=True)
    wall = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put({"timings": result.manifest["timings"], "wall": wall, "peak_mib": peak_mib,
               "failures": [f.get("method") for f in result.manifest.get("failures", [])],
               "features": result.manifest["data"]["summary"]["n_features"],
               "ratings_ok": result.manifest["counts"]["ratings_ok"]})


def run(kind: str, knobs: dict, model=None, csv=None) -> dict:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    with tempfile.TemporaryDirectory() as out:
        proc = ctx.Process(target=_child, args=(kind, str(model) if model else None, str(csv) if csv else None,
                                               out, knobs, queue))
        proc.start()
        proc.join()
        if proc.exitcode != 0:
            return {"error": f"exit code {proc.exitcode}"}
        return queue.get()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--levels", type=int, default=3000)
    parser.add_argument("--no-anchor", action="store_true", help="leave Anchor out of both rows")
    args = parser.parse_args()
    knobs = json.loads(json.dumps(KNOBS))
    knobs["evaluation"]["explainers"]["anchor"]["enabled"] = not args.no_anchor
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        model, csv = make_wide(Path(tmp), args.rows, args.levels)
        print(f"Synthetic data: {args.rows:,} rows × 300 features (merchant: {args.levels:,} levels), "
              f"{csv.stat().st_size / 2**20:.1f} MiB CSV; model trained in {time.perf_counter() - t:.1f} s")
        print(f"Anchor {'off' if args.no_anchor else 'on'}; load average at start: {os.getloadavg()}")
        rows = [("heart (reference)", run("heart", knobs)), (f"wide ({args.rows:,} × 300)", run("wide", knobs, model, csv))]
    print(f"\nload average at the end: {os.getloadavg()}")
    header = f"{'case':<22}{'features':>9}{'loading':>8}{'technical':>11}{'personas':>10}{'total':>9}{'wall':>9}{'peak MiB':>10}  failures"
    print(header)
    print("-" * len(header))
    for name, r in rows:
        if "error" in r:
            print(f"{name:<22} {r['error']}")
            continue
        tm = r["timings"]
        print(f"{name:<22}{r['features']:>9}{tm.get('load', 0):>8.1f}{tm.get('technical', 0):>11.1f}"
              f"{tm.get('personas', 0):>10.1f}{tm.get('total', 0):>9.1f}{r['wall']:>9.1f}{r['peak_mib']:>10.0f}  "
              f"{', '.join(r['failures']) or 'none'}")
        print(f"{'':<22}per method (s): " + json.dumps({k: round(v, 1) for k, v in tm.get('per_method', {}).items()}))


if __name__ == "__main__":
    main()
