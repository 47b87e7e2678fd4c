"""Benchmark: how long the LLM rater's retries, timeouts, concurrency, parsing and interrupts take.

Against the local OpenAI-compatible server of ``tests/llm_server.py`` (real HTTP on 127.0.0.1),
every knob set explicitly. These were timing assertions in tests/test_llm_rater.py; they live here
so a loaded machine cannot fail the test suite and a broken rater cannot pass it by luck.

    .venv/bin/python benchmarks/llm_rater.py

Rows and their reference (what the figure should be near):

* retry-after: 429 twice with ``retry-after-ms: 250``, then an answer; reference 0.5 s (the SDK's
  own backoff without the header: >= 1.1 s).
* timeout: a server that answers after 1.5 s, ``timeout=0.3``, no retries; reference 0.3 s.
* concurrency: 8 ratings, 0.2 s latency, ``concurrency=4``; reference 0.4 s (sequential: 1.6 s).
* parse: ``parse_rating`` on adversarial answers of 20,000 characters (the cap); reference: a
  few milliseconds (the old scan decoded from every ``{``: quadratic, ~30 min for 5 MB).
* interrupt: ``rate_many`` of 40 ratings against a server that never answers, interrupted after
  1 s from another thread (as Ctrl-C does); reference: returns within ~0.25 s (the old thread
  pool waited for every queued call: 40 × timeout).
"""

from __future__ import annotations

import _thread
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from llm_server import Behaviour, FakeLLMServer  # noqa: E402
from rating_tasks import tasks  # noqa: E402

from hexeval_engine.raters import make_rater  # noqa: E402
from hexeval_engine.raters.parsing import AnswerError, parse_rating  # noqa: E402

KEY = "sk-bench-0000000000"


def rater(server, **options):
    settings = dict(model="bench-model", base_url=server.url, api_key=KEY, concurrency=4, timeout=2.0,
                    max_retries=2)
    return make_rater("openai", **{**settings, **options})


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def retry_after() -> tuple[float, float]:
    with FakeLLMServer() as server:
        server.add(Behaviour("status", status=429, times=2, headers={"retry-after-ms": "250"}))
        with rater(server) as r:
            return timed(lambda: r.rate_many(tasks(1))), 0.5


def timeout() -> tuple[float, float]:
    with FakeLLMServer() as server:
        server.add(Behaviour("slow", delay=1.5))
        with rater(server, timeout=0.3, max_retries=0) as r:
            return timed(lambda: r.rate_many(tasks(1))), 0.3


def concurrency() -> tuple[float, float]:
    with FakeLLMServer(latency=0.2) as server, rater(server, concurrency=4) as r:
        return timed(lambda: r.rate_many(tasks(8))), 0.4


def parse(answer: str) -> tuple[float, float]:
    def run():
        try:
            parse_rating(answer)
        except AnswerError:
            pass  # expected: these answers hold no rating; only the time matters here
    return timed(run), 0.0


def interrupt() -> tuple[float, float]:
    """Seconds from the interrupt to rate_many raising KeyboardInterrupt in the calling thread."""
    with FakeLLMServer() as server:
        server.add(Behaviour("hang"))
        with rater(server, timeout=60, max_retries=3, concurrency=4) as r:
            fired = []
            timer = threading.Timer(1.0, lambda: (fired.append(time.perf_counter()), _thread.interrupt_main()))
            timer.start()
            try:
                r.rate_many(tasks(40))
            except KeyboardInterrupt:
                return time.perf_counter() - fired[0], 0.25
    raise RuntimeError("rate_many finished against a server that never answers")


def main() -> int:
    rows = [("retry-after 2 × 250 ms", *retry_after()), ("timeout 0.3 s", *timeout()),
            ("8 ratings, 4 at once, 0.2 s each", *concurrency()),
            ("parse 20,000 × '{'", *parse("{" * 19_999)),
            ("parse 20,000 chars of '{\"trust\": '", *parse('{"trust": ' * 1_999)),
            ("parse 20,000 nested '['", *parse("[" * 10_000 + "]" * 9_999)),
            ("interrupt 40 queued, hanging server", *interrupt())]
    load = os.getloadavg()
    print(f"LLM rater timings (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores)")
    print(f"{'case':<40} {'seconds':>8} {'reference':>10}")
    for name, seconds, reference in rows:
        print(f"{name:<40} {seconds:8.3f} {reference:10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
