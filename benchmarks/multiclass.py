"""Multi-class models at HEXEval's default settings: time and peak memory of a whole evaluation.

Workloads (data that ships inside scikit-learn, nothing downloaded):

* ``wine``: the bundled wine use case (3 classes, 13 features, its random forest and config) — the
  reference line;
* ``diabetes``: scikit-learn's diabetes data (442 patients, 10 features, **regression** of disease
  progression), a random forest regressor, the default config (each case explained on its band view);
* ``digits``: scikit-learn's digits data (1,797 images of 8 x 8 pixels, 64 features, **10 classes**),
  a ``StandardScaler → LogisticRegression`` pipeline, evaluated as an uploaded model would be: the
  default config (every method, the generic personas with the simulated rater, narratives).

Each workload runs in its own process, so ``peak MB`` (the process's peak resident memory) is its own.
Printed per workload: classes, features, settings, the class groups (one per explained class and
counterfactual target), seconds per stage (technical, sanity checks, personas, total) and per method,
the CPU seconds the worker and its own workers used (beside the wall time: the machine is shared),
peak memory, and the load average when it finished (read times beside it).

    .venv/bin/python benchmarks/multiclass.py                 # wine, diabetes, then digits
    .venv/bin/python benchmarks/multiclass.py --only digits
    .venv/bin/python benchmarks/multiclass.py --short         # smaller samples (make bench)
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from workloads import load_average  # noqa: E402  (benchmarks/ is on the path from here)

WORKLOADS = ("wine", "diabetes", "digits")
#: ``--short``: a smaller sample and fewer Anchor/DiCE cases, for a quick check (``make bench``).
SHORT = {"evaluation": {"sample_size": 12, "explainers": {"anchor": {"max_instances": 6},
                                                          "dice": {"max_instances": 6}}}}


def _digits_inputs(folder: Path) -> tuple[Path, Path]:
    """The digits CSV (columns ``pixel_r_c``, target ``digit``) and a skops pipeline trained on 80% of it."""
    import skops.io as sio  # imported in the worker only
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    digits = load_digits(as_frame=True)
    frame = digits.frame.rename(columns={"target": "digit"})
    csv = folder / "digits.csv"
    frame.to_csv(csv, index=False)
    X, y = frame.drop(columns="digit"), frame["digit"]
    train = X.sample(frac=0.8, random_state=0).index
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X.loc[train], y.loc[train])
    path = folder / "digits.skops"
    sio.dump(model, path)
    return path, csv


def _diabetes_inputs(folder: Path) -> tuple[Path, Path]:
    """The diabetes CSV (target ``progression``) and a skops random forest regressor trained on 80% of it."""
    import skops.io as sio  # imported in the worker only
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import RandomForestRegressor

    diabetes = load_diabetes(as_frame=True, scaled=False)
    frame = diabetes.frame.rename(columns={"target": "progression"})
    csv = folder / "diabetes.csv"
    frame.to_csv(csv, index=False)
    X, y = frame.drop(columns="progression"), frame["progression"]
    train = X.sample(frac=0.8, random_state=0).index
    model = RandomForestRegressor(n_estimators=100, max_depth=6, random_state=0).fit(X.loc[train], y.loc[train])
    path = folder / "diabetes.skops"
    sio.dump(model, path)
    return path, csv


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished child processes."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_one(name: str, *, short: bool = False) -> dict:
    """Evaluate one workload in this process; its figures."""
    from hexeval_engine import evaluate  # imported in the worker only

    overrides = SHORT if short else None
    with tempfile.TemporaryDirectory() as tmp:
        if name == "wine":
            cpu, start = _cpu_seconds(), time.perf_counter()
            result = evaluate(usecase="wine", output_dir=tmp, config_overrides=overrides)
            settings = "the use case's config"
        else:
            inputs = {"digits": (_digits_inputs, "digit"), "diabetes": (_diabetes_inputs, "progression")}
            make, target = inputs[name]
            model, csv = make(Path(tmp))
            cpu, start = _cpu_seconds(), time.perf_counter()
            result = evaluate(model, csv, target, output_dir=tmp, config_overrides=overrides)
            settings = "defaults (generic personas, simulated)"
        wall = time.perf_counter() - start
        cpu = _cpu_seconds() - cpu
    stages = result.manifest["timings"]
    per_method = {k: v for k, v in result.technical.timings.items() if k not in ("shared", "total")}
    groups = len({(e.extra["class_view"]["class"], e.extra["class_view"].get("target"))
                  for e in result.technical.explanations if e.method == "DiCE" and "class_view" in e.extra}) \
        or "-"
    return {"workload": name, "classes": len(result.data.class_labels) or "regression", "features": len(result.data.feature_names),
            "settings": f"{settings}{', short' if short else ''}, sample {result.config.evaluation.sample_size}",
            "cases": len(result.technical.shared_instance_ids), "dice groups": groups,
            "technical s": stages.get("technical"), "sanity s": stages.get("sanity_checks"),
            "personas s": stages.get("personas"), "total s": wall, "cpu s": cpu,
            "per method s": {k: round(v, 1) for k, v in per_method.items()},
            "peak MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "load": load_average()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=WORKLOADS)
    parser.add_argument("--short", action="store_true", help="smaller samples, for a quick check")
    parser.add_argument("--worker", choices=WORKLOADS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(run_one(args.worker, short=args.short)))
        return
    rows = []
    for name in [args.only] if args.only else WORKLOADS:
        proc = subprocess.run([sys.executable, __file__, "--worker", name, *(["--short"] if args.short else [])],
                              capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            print(f"{name}: failed (exit {proc.returncode}):\n{proc.stderr.strip()[-2000:]}")
            continue
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print("Reference: the first line (wine, 3 classes). Times in seconds (cpu s: CPU time of the worker and its "
          "workers, beside wall time on a shared machine); peak MB: the worker's peak resident memory.")
    header = ["workload", "classes", "features", "settings", "cases", "dice groups", "technical s", "sanity s",
              "personas s", "total s", "cpu s", "peak MB", "load"]
    print(" | ".join(header))
    for row in rows:
        print(" | ".join(f"{row[h]:.1f}" if isinstance(row[h], float) else str(row[h]) for h in header))
        print(f"    per method: {row['per method s']}")


if __name__ == "__main__":
    main()
