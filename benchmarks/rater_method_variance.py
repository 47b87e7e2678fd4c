"""Benchmark: how much of the simulated rater's trust and actionability the method name alone explains.

Issue 9 found that, with ``simulated-v1``, method dummies explained 49% of the variance in trust and
70% in actionability: the rater had per-family constants. This script rates the same real
explanations with the current rater and with the reference ``simulated-v1`` (read from git at
commit ``REFERENCE_COMMIT``) and prints R² of each score on method dummies (the share of variance
between methods: 1 − within-method sum of squares / total sum of squares), per use case and pooled.

Knobs (all set here): both bundled use cases; ``evaluation.sample_size`` = ``CASES`` with Anchor and
DiCE on every sampled case (so every method explains the same cases); stability off (not used);
every persona of the use case rates every method on every case once (``runs_per_method`` 1).

Per-instance metrics: the rater uses ``fidelity_combined`` and ``counterfactual_plausible`` when the
technical stage provides them. Where it does not yet, the script adds, and labels, stand-ins
computed as the metric contract defines them from what the technical stage does provide:
``fidelity_combined`` from the raw deletion/insertion AUCs normalised by f(x) − f(baseline) (NaN
when the gap is under 0.05), and ``counterfactual_in_range`` (share of counterfactuals whose changed
values lie in the training data's 1st–99th percentile or seen categories), which the rater uses
when ``counterfactual_plausible`` is absent.

    .venv/bin/python benchmarks/rater_method_variance.py [--cases 16]
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from hexeval_engine import get_usecase, load_config, load_model  # noqa: E402
from hexeval_engine.metrics import make_baseline  # noqa: E402
from hexeval_engine.raters.run import run_persona_evaluation  # noqa: E402
from hexeval_engine.models.prepare import prepare_usecase  # noqa: E402
from hexeval_engine.raters import make_rater  # noqa: E402
from hexeval_engine.technical.run import run_technical_evaluation  # noqa: E402
from hexeval_engine.data.usecase_data import load_data_for_config  # noqa: E402

REFERENCE_COMMIT = "9e475e7"
CASES = 16
MIN_GAP = 0.05


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=CASES, help="shared cases per use case")
    args = parser.parse_args(argv)
    raters = {"current": make_rater("simulated")}
    reference = _reference_rater()
    if reference is not None:
        raters[f"simulated-v1 ({REFERENCE_COMMIT})"] = reference
    tables, notes = [], []
    for name in ("heart", "credit_risk"):
        start = time.perf_counter()
        uc = get_usecase(name)
        prepare_usecase(uc)
        config = load_config(uc.config_path, overrides={
            "evaluation": {"sample_size": args.cases, "bootstrap_resamples": 100,
                           "explainers": {"anchor": {"max_instances": args.cases},
                                          "dice": {"max_instances": args.cases},
                                          "lime": {"stability_test": False}}},
            "personas": {"sample_instances": args.cases, "runs_per_method": 1, "rater": "simulated"}})
        data, model = load_data_for_config(uc.data_path, config), load_model(uc.model_path)
        technical = run_technical_evaluation(model, data, config)
        technical.per_instance, added = _with_stand_ins(technical, model, data)
        notes += [f"{name}: {a}" for a in added]
        for label, rater in raters.items():
            table = run_persona_evaluation(model, data, technical, config, rater=rater)
            tables.append(table.assign(usecase=name, rater_version=label))
        notes.append(f"{name}: {len(set(tables[-1]['instance_index']))} shared cases, "
                     f"{time.perf_counter() - start:.1f} s")
    ratings = pd.concat(tables, ignore_index=True)
    ratings = ratings[ratings["status"] == "ok"]
    print(f"R² of each score on method dummies (load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f})")
    header = f"{'rater':<28} {'use case':<12} {'n':>5} {'R² trust':>9} {'R² actionability':>17}"
    print(header)
    print("-" * len(header))
    for label in raters:
        mine = ratings[ratings["rater_version"] == label]
        for scope, part in [*mine.groupby("usecase"), ("pooled", mine)]:
            print(f"{label:<28} {scope:<12} {len(part):>5} {_r2(part, 'trust'):>9.2f} "
                  f"{_r2(part, 'actionability'):>17.2f}")
    print()
    current = ratings[ratings["rater_version"] == "current"]
    print("Current rater: mean (sd) per method, pooled over use cases and personas")
    summary = current.groupby("explanation_type")[["trust", "actionability"]].agg(["mean", "std", "count"])
    print(summary.round(2).to_string())
    print()
    for note in notes:
        print("note:", note)
    return 0


def _r2(table: pd.DataFrame, column: str) -> float:
    y = table[column].astype(float)
    total = ((y - y.mean()) ** 2).sum()
    within = ((y - table.groupby("explanation_type")[column].transform("mean")) ** 2).sum()
    return float(1 - within / total) if total > 0 else float("nan")


def _with_stand_ins(technical, model, data) -> tuple[pd.DataFrame, list[str]]:
    """``per_instance`` plus labelled stand-ins for the contract metrics the technical stage does not yet give."""
    table = technical.per_instance
    have = set(table["metric"])
    rows, added = [], []
    if "fidelity_combined" not in have:
        base = model.predict_proba(make_baseline(data))[0]
        wide = table[table["metric"].isin(["fidelity_deletion", "fidelity_insertion"])].pivot_table(
            index=["method", "instance_id"], columns="metric", values="value")
        for exp in technical.explanations:
            key = (exp.method, exp.instance_id)
            if not exp.ok or key not in wide.index:
                continue
            fx, fb = exp.probability, float(base[exp.predicted_class])
            gap = fx - fb
            value = np.nan
            if abs(gap) >= MIN_GAP:
                ins = (wide.loc[key, "fidelity_insertion"] - fb) / gap
                dele = (wide.loc[key, "fidelity_deletion"] - fb) / gap
                value = (ins + 1 - dele) / 2
            rows.append((exp.method, exp.instance_id, "fidelity_combined", float(value), bool(exp.importance_derived)))
        added.append("fidelity_combined is a stand-in (raw AUCs of the current ordering, normalised by f(x) - f(b))")
    if "counterfactual_plausible" not in have and "counterfactual_in_range" not in have:
        low, high = data.X_train.quantile(0.01, numeric_only=True), data.X_train.quantile(0.99, numeric_only=True)
        for exp in technical.explanations:
            if exp.ok and exp.counterfactuals:
                inside = [all(_in_range(data, f, new, low, high) for f, (_, new) in cf.changes.items())
                          for cf in exp.counterfactuals]
                rows.append((exp.method, exp.instance_id, "counterfactual_in_range", float(np.mean(inside)), False))
        added.append("counterfactual_in_range is a stand-in (counterfactual_plausible not computed yet)")
    extra = pd.DataFrame(rows, columns=["method", "instance_id", "metric", "value", "derived"])
    return pd.concat([table, extra], ignore_index=True) if rows else table, added


def _in_range(data, feature, value, low, high) -> bool:
    if feature in low.index:
        return bool(low[feature] <= float(value) <= high[feature])
    return str(value) in set(data.X_train[feature].astype(str))


def _reference_rater():
    """``simulated-v1`` from git (its three modules, imports pointed at the current base interface)."""
    files = ("properties", "simulated_comments", "simulated")
    folder = Path(tempfile.mkdtemp(prefix="hexeval_rater_v1_")) / "hexeval_rater_v1"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name in files:
        proc = subprocess.run(["git", "show", f"{REFERENCE_COMMIT}:hexeval_engine/raters/{name}.py"], cwd=ROOT,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"note: reference rater unavailable ({proc.stderr.strip()}); only the current rater is measured")
            return None
        source = (proc.stdout.replace("from ..explanation", "from hexeval_engine.explanation")
                  .replace("from .base", "from hexeval_engine.raters.base")
                  .replace("from .persona_weights", "from hexeval_engine.raters.persona_weights"))
        (folder / f"{name}.py").write_text(source)
    sys.path.insert(0, str(folder.parent))
    return importlib.import_module("hexeval_rater_v1.simulated").SimulatedRater()


if __name__ == "__main__":
    sys.exit(main())
