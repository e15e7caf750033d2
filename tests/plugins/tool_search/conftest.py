"""Fixtures: fake distributions on sys.path, and an environment without OSTINATO_* variables."""

from __future__ import annotations

from tests.fakes.distributions import clean_environment, fake_distributions

__all__ = ["clean_environment", "fake_distributions"]
