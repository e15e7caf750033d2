"""Fixtures: fake distributions on sys.path, and an environment without OSTINATO_* variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.distributions import clean_environment, fake_distributions

__all__ = ["clean_environment", "fake_distributions"]


@pytest.fixture(autouse=True)
def _isolated(clean_environment: Path) -> Path:
    return clean_environment
