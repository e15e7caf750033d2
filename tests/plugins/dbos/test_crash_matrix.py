"""The crash matrix (``crash_matrix``): a destructive tool never runs twice, whatever
point its worker is killed at; every call killed inside it is surfaced as in doubt and
resolved by its rule. A few runs here; ``make crash-matrix`` runs at least 200."""

from __future__ import annotations

import os
import random

import pytest

from tests.plugins.dbos.crash_matrix import run_matrix
from tests.plugins.dbos.workers import Workers


def test_a_few_runs_of_the_crash_matrix(workers: Workers) -> None:
    # One batch: one run per rule, the first two killing their worker inside the tool
    # (each kill lands the other turns wherever they are).
    matrix = run_matrix(workers, runs=3, seed=7, batch=3)
    assert matrix.problems() == [], matrix.summary()
    assert matrix.kills >= 1


@pytest.mark.slow
def test_the_crash_matrix(workers: Workers, capsys: pytest.CaptureFixture[str]) -> None:
    runs = int(os.environ.get("OSTINATO_CRASH_MATRIX_RUNS", "200"))
    seed = int(os.environ.get("OSTINATO_CRASH_MATRIX_SEED", random.randrange(1 << 30)))
    matrix = run_matrix(workers, runs=runs, seed=seed)
    with capsys.disabled():
        print(f"\ncrash matrix (seed {seed}): {matrix.summary()}")
    assert matrix.problems() == [], f"seed {seed}: {matrix.summary()}"
    assert len(matrix.runs) == runs
