"""Fingerprint of every result table of small runs: a refactor that should change no result must print the same.

Runs the bundled use cases (heart, credit risk, wine, diabetes) at a small sample size, offline, and prints
the SHA-256 (first 12 hex digits) of the technical metrics, the per-instance metrics, every explanation's
structure, the sanity results, the persona ratings and the recommendations, each separately, so a change shows
which table moved. Usage::

    .venv/bin/python benchmarks/fingerprint.py [--usecases heart credit_risk] [--sample-size 12] [--backend sequential]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


#: Columns that hold measured times (they differ from run to run; every other value must not).
_TIMES = ("seconds", "latency", "elapsed", "duration")


def _digest(value) -> str:
    if hasattr(value, "to_csv"):
        value = value[[c for c in value.columns if not any(t in str(c) for t in _TIMES)]]
        text = value.to_csv(index=False, float_format="%.10g")
    else:
        text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def fingerprint(usecase: str, sample_size: int, backend: str) -> dict[str, str]:
    from hexeval_engine import evaluate

    result = evaluate(usecase=usecase, save=False,
                      config_overrides={"evaluation": {"sample_size": sample_size, "parallel": {"backend": backend}}})
    tech = result.technical
    explanations = [{k: v for k, v in e.to_dict().items() if k not in ("seconds", "extra")}
                    for e in tech.explanations]
    recommendations = {k: v for k, v in result.recommendations.items() if k not in ("generated_at",)}
    return {"metrics": _digest(tech.metrics), "per_instance": _digest(tech.per_instance),
            "explanations": _digest(explanations), "sanity": _digest(result.sanity),
            "ratings": _digest(result.persona_ratings), "recommendations": _digest(recommendations)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--usecases", nargs="+", default=["heart", "credit_risk", "wine", "diabetes"])
    parser.add_argument("--sample-size", type=int, default=12)
    parser.add_argument("--backend", default="sequential")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    for usecase in args.usecases:
        prints = fingerprint(usecase, args.sample_size, args.backend)
        print(f"{usecase:12s} sample {args.sample_size} {args.backend:10s} load {load:.1f}  "
              + "  ".join(f"{k} {v}" for k, v in prints.items()), flush=True)


if __name__ == "__main__":
    main()
