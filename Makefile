# Every target installs what it needs: a fresh machine needs only Python 3.11+ and pip.
PYTHON ?= python3
UV := $(PYTHON) -m uv

.PHONY: help setup run test lint format bench clean

help:
	@echo "make run     run the main job (the tool-loop demo)"
	@echo "make test    run the whole test suite"
	@echo "make lint    ruff check, ruff format --check, mypy --strict core/src"

setup:
	@$(PYTHON) -m uv --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv
	@$(UV) sync --locked --all-packages --quiet

run: setup
	$(UV) run --locked python examples/demo.py

test: setup
	$(UV) run --locked pytest

lint: setup
	$(UV) run --locked ruff check .
	$(UV) run --locked ruff format --check .
	$(UV) run --locked mypy --strict core/src

format: setup
	$(UV) run --locked ruff format .
	$(UV) run --locked ruff check --fix .

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache
