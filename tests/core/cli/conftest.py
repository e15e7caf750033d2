"""Fixtures: fake distributions on sys.path, an environment without OSTINATO_* variables,
and the ``scripted`` model provider (``--model scripted:<scenario>``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import scripted_provider
from tests.fakes.distributions import FakeDistributions, clean_environment, fake_distributions

__all__ = ["clean_environment", "fake_distributions", "scripted"]


@pytest.fixture(autouse=True)
def _isolated(clean_environment: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The chat command keeps its question history under XDG_STATE_HOME.
    monkeypatch.setenv("XDG_STATE_HOME", str(clean_environment.parent / "state"))
    return clean_environment


@pytest.fixture
def scripted(fake_distributions: FakeDistributions) -> FakeDistributions:
    """The ``scripted`` provider installed (and nothing else but core)."""
    scripted_provider.install(fake_distributions)
    scripted_provider.CREATED.clear()
    return fake_distributions
