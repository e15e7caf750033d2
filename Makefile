# Every target installs what it needs: a fresh machine needs only Python 3.11+ and pip.
PYTHON ?= python3
export UV_NO_PROGRESS := 1
UV := $(PYTHON) -m uv
RUN := $(UV) run --locked --all-packages --group docs

.PHONY: help setup run test lint docs format clean

help:
	@echo "make run     run the main job (the tool-loop demo)"
	@echo "make test    run the whole test suite"
	@echo "make lint    ruff check, ruff format --check, mypy --strict core/src"
	@echo "make docs    build the documentation site (mkdocs, strict) into site/"

setup:
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv
	@$(UV) sync --locked --all-packages --group docs --quiet

run: setup
	$(RUN) python examples/demo.py

test: setup
	$(RUN) pytest

lint: setup
	$(RUN) ruff check .
	$(RUN) ruff format --check .
	$(RUN) mypy --strict core/src

docs: setup
	NO_MKDOCS_2_WARNING=1 $(RUN) mkdocs build --strict --quiet

format: setup
	$(RUN) ruff format .
	$(RUN) ruff check --fix .

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache
