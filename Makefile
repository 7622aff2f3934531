# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
SERVER := build/bin/llama-server
VLLM   := build/vllm-python

.PHONY: run test test-fast install install-fast install-test lint llama-server vllm bench clean deps-debian test-models docs

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# The distribution was called `specview` before `specview-tui` (pyproject.toml): a venv that had the former
# name would keep it beside the new one (two installs of one package and one command), and its metadata
# beside the checkout: both go before an install.
DROP_FORMER = $(PIP) uninstall --quiet --yes specview 2>/dev/null; rm -rf specview.egg-info

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(DROP_FORMER)
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	@echo "installing the test extras (llama-cpp-python compiles once, then comes from pip's wheel cache)"
	$(DROP_FORMER)
	$(PIP) install --quiet -e '.[dev,llama,demo,serve,docs]'
	touch $@ $(VENV)/.installed $(VENV)/.installed-docs

# The quick loop's tools, without the llama extra: nothing to compile (pure-Python wheels only).
$(VENV)/.installed-fast: pyproject.toml | $(BIN)/python
	$(DROP_FORMER)
	$(PIP) install --quiet -e '.[dev,serve]'
	touch $@ $(VENV)/.installed

# The documentation site's tools alone (mkdocs-material), for `make docs` without the test extras.
$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(DROP_FORMER)
	$(PIP) install --quiet -e '.[docs]'
	touch $@

install: $(VENV)/.installed

install-fast: $(VENV)/.installed-fast

install-test: $(VENV)/.installed-test

run: install
	$(BIN)/specview

llama-server: $(SERVER)

$(SERVER): scripts/build-llama-server.sh | $(VENV)/.installed-test
	bash scripts/build-llama-server.sh $(BIN)/python $(SERVER)

# A CPU vLLM in its own environment (its torch pin is not ours), cached under ~/.cache/specview;
# $(VLLM) holds the path of its python for the tests that start a real vLLM server.
vllm: $(VLLM)

$(VLLM): scripts/install-vllm.sh
	@mkdir -p $(dir $@)
	bash scripts/install-vllm.sh $(PYTHON) > $@.tmp && mv $@.tmp $@

# Models the tests make locally (nothing is downloaded): Gemma 3 270M requantized as its own draft,
# cached under ~/.cache/specview/models (tests/support/draft_pair.py; the tests make it too if missing).
test-models: install-test
	$(BIN)/python -m tests.support.draft_pair

LINT = $(BIN)/ruff check specview tests bench && $(BIN)/mypy && $(BIN)/lint-imports && $(BIN)/vulture

lint: install-test
	$(LINT)

# Debian packages the tests use (sshd, ssh, tmux, headless Chromium): only what is missing.
deps-debian:
	@bash scripts/deps-debian.sh

# The suite runs in pytest-xdist workers, test by test; the tests that share a module-scoped fixture (a
# llama-server, vLLM, Prometheus, sshd: tests/conftest.py groups them) run in one worker, which starts it
# once. A native crash (llama.cpp in a test's own process) ends one worker, fails that test with the signal
# in its output, and a new worker carries on with the rest. Two workers on this 2-core machine: 12:51
# against 24:54 for one (a module to a worker).
PYTEST_WORKERS ?= 2
XDIST := -n $(PYTEST_WORKERS) --dist loadgroup --max-worker-restart 16
# every worker must collect the same test ids: one hash seed for all (a set's order can name a test)
export PYTHONHASHSEED := 0

# The docs site (mkdocs.yml, docs/) into site/: --strict fails on a broken link or anchor, a page left out of
# the nav; README.md's links are checked by tests/unit/test_docs_links.py.
docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

test: deps-debian install-test llama-server vllm test-models lint docs
	SPECVIEW_LLAMA_SERVER=$(abspath $(SERVER)) SPECVIEW_VLLM_PYTHON=$$(cat $(VLLM)) $(BIN)/python -m pytest -q $(XDIST)

# The quick loop: lint and the unit tests, with nothing compiled (no llama-cpp-python, no llama.cpp build,
# no vLLM, no terminal). Widen it with PYTEST_MARK, e.g. `make test-fast PYTEST_MARK="not slow and not
# integration"` (app and hostile too); the tests marked `llama` stay out (`make test` runs them all).
PYTEST_MARK ?= unit and not slow
test-fast: install-fast
	$(LINT)
	$(BIN)/python -m pytest -q $(XDIST) -m "($(PYTEST_MARK)) and not llama"

# The docs' pictures (docs/images/*.svg), drawn again by the test that checks them (simulator, fixed seeds):
# look at them before committing. `make test` fails while a committed picture differs from what the app draws.
.PHONY: screenshots
screenshots: install-fast
	SPECVIEW_UPDATE_PICTURES=1 $(BIN)/python -m pytest -q tests/app/test_doc_pictures.py

bench: install-test llama-server
	$(BIN)/python bench/ui_throughput.py

clean:
	rm -rf $(VENV) build site .mypy_cache .ruff_cache .pytest_cache
