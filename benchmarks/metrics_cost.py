"""What the metrics cost: model rows and seconds of ``compute_instance_metrics`` and of the claim-scoped metrics.

The claim-scoped metrics with the reader's test (``claim_rows``, issue 19) send 3 masked rows per explanation
and size, and 200 neighbours per case shared by every method, in one model call each.

No explainer runs here: the explanations are built directly so that only the metrics are timed.
Per use case, ``sample`` test rows (100, capped by the test set) are explained by four kinds of
vectors that cover the cases the metrics treat differently:

* ``signed``  random signed attributions, no ties (like SHAP or the Random baseline);
* ``top-k``   signed attributions with all but 5 features set to 0 (like LIME: ties among zeros);
* ``rule``    1 on two features, 0 elsewhere, with a two-condition rule (like Anchor: many ties);
* ``cf``      counterfactual shares on two features with 3 counterfactuals (like DiCE).

Each configuration is timed on the same explanations. The reference is the cost before issue 9:
one tie draw and no soft masks (``tie_draws=1, soft_draws`` rows subtracted), i.e. only the
deletion/insertion rows; the new defaults are ``tie_draws=5, soft_draws=20``. The table prints model
rows, model calls and wall seconds (after one untimed warm-up call); the load average is printed beside it (a 2-core machine shared
with other jobs slows every number).

Run from the project root: ``PYTHONPATH=. .venv/bin/python benchmarks/metrics_cost.py [--usecases heart credit_risk]
[--sample 100]`` (``PYTHONPATH=.`` so the checkout's code is measured, not an installed copy).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np


def _explanations(data, model, sample: int, seed: int = 0):
    from hexeval_engine.explanation import Condition, Counterfactual, Explanation, Rule

    rng = np.random.default_rng(seed)
    features = list(data.feature_names)
    ids = sorted(rng.choice(len(data.X_test), size=min(sample, len(data.X_test)), replace=False).tolist())
    X = data.X_test.iloc[ids][features]
    proba = model.predict_proba(X)
    classes = (proba[:, 1] >= model.threshold).astype(int)
    numeric = [f for f in features if f not in data.categorical_features][:2]
    out = []
    for iid, cls, p in zip(ids, classes, proba):
        signed = dict(zip(features, rng.normal(size=len(features))))
        top = sorted(signed, key=lambda f: -abs(signed[f]))[:5]
        top_k = {f: (v if f in top else 0.0) for f, v in signed.items()}
        x = data.X_test.iloc[iid]
        common = (iid, int(cls), float(p[cls]))
        out.append(Explanation("signed", *common, attributions=signed,
                               importance={f: abs(v) for f, v in signed.items()}))
        out.append(Explanation("top-k", *common, attributions=top_k, importance={f: abs(v) for f, v in top_k.items()}))
        conditions = [Condition(f, ">", float(data.X_train[f].median()), f"{f} > median") for f in numeric]
        out.append(Explanation("rule", *common, rule=Rule(conditions, 0.95, 0.1),
                               importance={f: float(f in numeric) for f in features}, importance_derived=True))
        cfs = [Counterfactual({f: (x[f], float(x[f]) * (1.1 + 0.1 * k)) for f in numeric}, 0.4, True,
                              {**x.to_dict(), **{f: float(x[f]) * (1.1 + 0.1 * k) for f in numeric}}) for k in range(3)]
        out.append(Explanation("cf", *common, counterfactuals=cfs,
                               importance={f: float(f in numeric) for f in features}, importance_derived=True))
    return out, len(ids)


def run(name: str, sample: int) -> list[dict]:
    from hexeval_engine import get_usecase, load_config, load_model
    from hexeval_engine.metrics import compute_instance_metrics
    from hexeval_engine.metrics.fidelity import step_counts
    from hexeval_engine.models.prepare import prepare_usecase
    from hexeval_engine.data.usecase_data import load_data_for_config

    usecase = get_usecase(name)
    prepare_usecase(usecase)
    data = load_data_for_config(usecase.data_path, load_config(usecase.config_path))
    model = load_model(usecase.model_path)
    explanations, n = _explanations(data, model, sample)
    compute_instance_metrics(model, data, explanations[:8], load_config(usecase.config_path))  # warm-up, not timed
    rows = []
    for label, ties, soft in (("before issue 9 (1 draw, no soft)", 1, 1), ("new defaults (5 ties, 20 soft)", 5, 20)):
        config = load_config(usecase.config_path, {"evaluation": {"random_state": 42, "fidelity": {
            "steps": 20, "min_gap": 0.05, "tie_draws": ties, "soft_draws": soft}, "counterfactual": {
            "k_neighbours": 5, "max_knn_ratio": 2.0, "reference_rows": 500}}})
        model.reset_counters()
        start = time.perf_counter()
        long = compute_instance_metrics(model, data, explanations, config)
        seconds = time.perf_counter() - start
        model_rows = model.rows
        if soft == 1:  # the old computation had no soft rows: 2 + 2 * 1 per explanation with a vector
            model_rows -= 4 * sum(e.importance is not None for e in explanations)
        rows.append({"usecase": name, "config": label, "n": n, "explanations": len(explanations),
                     "rows": model_rows, "calls": model.calls, "seconds": seconds,
                     "nan_combined": float(long[long["metric"] == "fidelity_combined"]["value"].isna().mean()),
                     "K": len(step_counts(len(data.feature_names), 20))})
    # issue 19: claim-scoped faithfulness (own k and equal k) and the reader's test, one pass over all four kinds
    from hexeval_engine.metrics.claim_evidence import claim_rows  # like the imports above: after prepare_usecase

    model.reset_counters()
    start = time.perf_counter()
    claims = claim_rows(model, data, explanations, config)
    seconds = time.perf_counter() - start
    scores = [v for _, _, metric, v, _ in claims if metric == "technical_claim_score"]
    rows.append({"usecase": name, "config": "claims + readers (issue 19)", "n": n, "explanations": len(explanations),
                 "rows": model.rows, "calls": model.calls, "seconds": seconds,
                 "nan_combined": float(np.isnan(scores).mean()) if scores else float("nan"), "K": 0})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--usecases", nargs="+", default=["heart", "credit_risk"])
    parser.add_argument("--sample", type=int, default=100)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores\n")
    results = [r for name in args.usecases for r in run(name, args.sample)]
    head = (f"{'use case':<12}{'configuration':<36}{'cases':>6}{'expl.':>7}{'curve pts':>10}{'model rows':>12}"
            f"{'calls':>7}{'seconds':>9}{'no norm. score':>16}")
    print(head)
    print("-" * len(head))
    for r in results:
        print(f"{r['usecase']:<12}{r['config']:<36}{r['n']:>6}{r['explanations']:>7}{r['K']:>10}{r['rows']:>12,}"
              f"{r['calls']:>7}{r['seconds']:>9.2f}{r['nan_combined']:>16.0%}")
    print("\n'before issue 9' rows count only the deletion/insertion rows of the vectors (its soft rows are "
          "subtracted; seconds include them).\nBoth rows include one pass over the test rows (held-out rule "
          "precision) and one over the training rows (counterfactual neighbours).\n'no norm. score': share of "
          "explanations whose fidelity_combined is empty because f(x) - f(baseline) < min_gap (for the issue-19 row: "
          "technical_claim_score empty).")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
