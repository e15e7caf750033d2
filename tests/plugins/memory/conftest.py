"""Fixtures: no ``OSTINATO_*`` variables, and a private data directory (so nothing here can
touch the real ``~/.local/share/ostinato``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.distributions import clean_environment

__all__ = ["clean_environment", "data_home"]


@pytest.fixture(autouse=True)
def data_home(clean_environment: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``XDG_DATA_HOME`` under the test's temporary directory."""
    home = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home
