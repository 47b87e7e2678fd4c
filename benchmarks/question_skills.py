"""What the question skills cost beside the existing per-case metrics (issue 32).

Per use case, the use case's own ``evaluation.sample_size`` test rows are explained by the four kinds of
explanations of ``benchmarks/metrics_cost.py`` (signed attributions, top-k attributions, a two-condition rule,
three counterfactuals; built directly, no explainer runs), and the same explanations are measured by
``compute_instance_metrics`` (the reference, the existing per-case metrics without stability) and by
``question_skills`` at its defaults (250 neighbours per case, 48 redraws, 24 random sets, 24 random actions).
Each is timed once after an untimed warm-up; the load average is printed on each line (a 2-core machine shared
with other jobs slows every number).

Run from the project root: ``PYTHONPATH=. .venv/bin/python benchmarks/question_skills.py [--usecases heart
credit_risk] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from metrics_cost import _explanations  # noqa: E402 (after the path set-up)
from workloads import load_average  # noqa: E402


def run(name: str, repeats: int) -> list[dict]:
    from hexeval_engine import get_usecase, load_config, load_model
    from hexeval_engine.data.usecase_data import load_data_for_config
    from hexeval_engine.metrics import compute_instance_metrics
    from hexeval_engine.metrics.questions import question_skills
    from hexeval_engine.models.prepare import prepare_usecase

    usecase = get_usecase(name)
    prepare_usecase(usecase)
    config = load_config(usecase.config_path)
    data = load_data_for_config(usecase.data_path, config)
    model = load_model(usecase.model_path)
    sample = config.evaluation.sample_size
    explanations, n = _explanations(data, model, sample)
    seed = config.evaluation.random_state
    compute_instance_metrics(model, data, explanations[:8], config)  # warm-up, not timed
    question_skills(model, data, explanations[:8], config, random_state=seed)
    rows = []
    for _ in range(repeats):
        start = time.perf_counter()
        compute_instance_metrics(model, data, explanations, config)
        reference = time.perf_counter() - start
        reference_load = load_average()
        model.reset_counters()
        start = time.perf_counter()
        frame = question_skills(model, data, explanations, config, random_state=seed)
        seconds = time.perf_counter() - start
        rows.append({"usecase": name, "cases": n, "explanations": len(explanations), "reference": reference,
                     "reference_load": reference_load, "seconds": seconds, "rows": model.rows, "calls": model.calls,
                     "load": load_average(), "nan": float(frame[frame["metric"].str.startswith("skill_")]["value"]
                                                          .isna().mean())})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--usecases", nargs="+", default=["heart", "credit_risk"])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    print("reference: compute_instance_metrics on the same explanations (no stability copies)")
    head = (f"{'use case':<12}{'cases':>6}{'expl.':>7}{'reference s':>13}{'  load (ref)':<18}{'questions s':>12}"
            f"{'ratio':>7}{'model rows':>12}{'calls':>6}{'skills NaN':>11}  load")
    print(head)
    print("-" * (len(head) + 14))
    for name in args.usecases:
        for r in run(name, args.repeats):
            print(f"{r['usecase']:<12}{r['cases']:>6}{r['explanations']:>7}{r['reference']:>13.2f}  "
                  f"{r['reference_load']:<16}{r['seconds']:>12.2f}{r['seconds'] / r['reference']:>7.2f}"
                  f"{r['rows']:>12,}{r['calls']:>6}{r['nan']:>11.0%}  {r['load']}")


if __name__ == "__main__":
    main()
