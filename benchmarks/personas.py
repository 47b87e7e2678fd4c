"""Benchmark: 48 persona ratings against a local OpenAI-compatible server with 300 ms latency.

Runs ``run_persona_evaluation`` end to end (heart use case: 4 personas × 4 methods × 3 cases)
with the LLM rater pointed at ``tests/llm_server.py``. Explanations are built by hand
(``tests/persona_fixtures.py``): this measures the rating pipeline, not the explainers.

    .venv/bin/python benchmarks/personas.py [--latency 0.3] [--sequential]

Target: 48 ratings in <= 3 s at the default concurrency (8). The original HEXEval made the calls
one by one (~90 s with a real API).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from llm_server import FakeLLMServer  # noqa: E402
from persona_fixtures import FakeTechnicalResult, heart_explanations  # noqa: E402

from hexeval_engine import get_usecase, load_config, load_model  # noqa: E402
from hexeval_engine.raters.run import run_persona_evaluation  # noqa: E402
from hexeval_engine.models.prepare import prepare_usecase  # noqa: E402
from hexeval_engine.raters import make_rater  # noqa: E402
from hexeval_engine.data.usecase_data import load_data_for_config  # noqa: E402

TARGET_SECONDS = 3.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.3, help="server latency per call in seconds")
    parser.add_argument("--sequential", action="store_true", help="also time concurrency 1 (about 15 s)")
    args = parser.parse_args(argv)

    uc = get_usecase("heart")
    prepare_usecase(uc)
    config = load_config(uc.config_path, overrides={"personas": {"sample_instances": 3}})
    data, model = load_data_for_config(uc.data_path, config), load_model(uc.model_path)
    ids = [0, 1, 2]
    technical = FakeTechnicalResult(heart_explanations(data, ids), ids)

    plans = [("fresh", 8), ("fresh", 16), ("cached re-run", 8)]
    if args.sequential:
        plans.insert(0, ("fresh", 1))
    rows = []
    with FakeLLMServer(latency=args.latency) as server, tempfile.TemporaryDirectory() as tmp:
        for n, (kind, concurrency) in enumerate(plans):
            cache = Path(tmp) / (f"cache{n}" if kind == "fresh" else f"cache{n - 1}")
            server.reset()
            with make_rater("openai", model="bench-model", base_url=server.url, concurrency=concurrency,
                            timeout=10, max_retries=2, cache_path=cache) as rater:
                start = time.perf_counter()
                table = run_persona_evaluation(model, data, technical, config, rater=rater)
                wall = time.perf_counter() - start
            stats = table.attrs["stats"]
            rows.append((kind, len(table), concurrency, wall, stats["calls_made"], stats["cached"],
                         stats["failed"], len(server.completion_requests())))

    header = f"{'run':<14} {'ratings':>7} {'concurrency':>11} {'wall time':>10} {'calls':>6} {'cached':>6} " \
             f"{'failed':>6} {'requests':>8}"
    print(f"Persona ratings against a local server with {args.latency * 1000:.0f} ms latency per call")
    print(header)
    print("-" * len(header))
    for kind, ratings, conc, wall, calls, cached, failed, requests in rows:
        print(f"{kind:<14} {ratings:>7} {conc:>11} {wall:>9.2f}s {calls:>6} {cached:>6} {failed:>6} {requests:>8}")
    default = next(r for r in rows if r[0] == "fresh" and r[2] == 8)
    verdict = "met" if default[3] <= TARGET_SECONDS else "MISSED"
    print(f"target: 48 ratings in <= {TARGET_SECONDS:.0f} s at concurrency 8: {verdict} ({default[3]:.2f} s)")
    return 0 if verdict == "met" else 1


if __name__ == "__main__":
    sys.exit(main())
