# DriftLens: two commands. `make run` serves the app, `make test` runs every test (on both graph backends:
# embedded FalkorDB and a real Neo4j 5 the tests start themselves with Java 17 + Maven).
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501
RUN_STAMP := $(VENV)/.stamp-run-$(shell cat requirements.txt | sha256sum | cut -c1-16)
DEV_STAMP := $(VENV)/.stamp-dev-$(shell cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-16)

.PHONY: run test test-neo4j install install-dev demo lint format bench bench-peers clean neo4j

run: $(RUN_STAMP)
	$(PY) -m retrieval demo
	$(PY) -m streamlit run app.py --server.address $(HOST) --server.port $(PORT)

test: $(DEV_STAMP)
	$(PY) -m ruff check retrieval components views app.py tests benchmarks examples tools
	$(PY) -m ruff format --check retrieval components views app.py tests benchmarks examples tools
	$(PY) -m mypy
	$(PY) -m pytest

# Only the Neo4j half of the backend-parametrised tests (the session starts and stops its own Neo4j,
# or uses TEST_NEO4J_URI's scratch server when that is set: its database is wiped). Ends with pytest's summary line.
test-neo4j: $(DEV_STAMP)
	$(PY) -m pytest -m neo4j

install: $(RUN_STAMP)
install-dev: $(DEV_STAMP)

$(VENV)/bin/python:
	$$(scripts/find_python.sh) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# A stamp named by the requirements' hash: re-running after a successful install is a no-op.
$(RUN_STAMP): requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --progress-bar off -r requirements.txt
	rm -f $(VENV)/.stamp-run-*; touch $@

$(DEV_STAMP): requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --progress-bar off -r requirements.txt -r requirements-dev.txt
	rm -f $(VENV)/.stamp-dev-* $(VENV)/.stamp-run-*; touch $@ $(RUN_STAMP)

demo: $(RUN_STAMP)
	$(PY) -m retrieval demo

lint: $(DEV_STAMP)
	$(PY) -m ruff check --fix retrieval components views app.py tests benchmarks examples tools
	$(PY) -m ruff format retrieval components views app.py tests benchmarks examples tools

# A real Neo4j 5 on 127.0.0.1:7687 in the foreground (Java 17 + Maven; Maven Central into ~/.m2 the first time).
neo4j: $(RUN_STAMP)
	$(PY) -m tools.neo4j.server --port 7687

bench: $(RUN_STAMP)
	$(PY) benchmarks/store.py --quick

# DriftLens's Neo4j search next to neo4j-graphrag's and agent-framework-neo4j's retrievers (benchmarks/peers.py).
# The peers live in their own environment: benchmark dependencies, never the product's.
BENCH_VENV ?= .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.stamp-bench-$(shell cat requirements.txt requirements-bench.txt | sha256sum | cut -c1-16)
DEV_EVAL ?= ../shared/data/dev-eval

$(BENCH_STAMP): requirements.txt requirements-bench.txt
	test -x $(BENCH_VENV)/bin/python || $$(scripts/find_python.sh) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --progress-bar off -r requirements.txt
	$(BENCH_VENV)/bin/python -m pip install --progress-bar off -r requirements-bench.txt
	rm -f $(BENCH_VENV)/.stamp-bench-*; touch $@

bench-peers: $(BENCH_STAMP)
	nice -n 10 $(BENCH_VENV)/bin/python benchmarks/peers.py $(DEV_EVAL)/hotpotqa_dev200.jsonl \
		$(DEV_EVAL)/musique-train100/musique_train.json

clean:
	rm -rf $(VENV) $(BENCH_VENV) .driftlens tests/artifacts
