"""Fixtures: no ``OSTINATO_*`` variables, and a private data directory (so nothing here can
touch the real ``~/.local/share/ostinato``)."""

from __future__ import annotations

from tests.fakes.distributions import clean_environment, data_home

__all__ = ["clean_environment", "data_home"]
