"""Fixtures of the HTTP tests: an environment without proxies, and a loopback proxy.

The proxy is a :class:`FaultServer` answering like a model: an HTTP proxy is sent the
whole URL (absolute form), which it records, so a test sees which requests it carried.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.faultserver import FaultServer, model_reply

__all__ = ["bare_environment", "loopback_proxy"]


@pytest.fixture
def bare_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No proxy variable (``NO_PROXY`` included, any case) and no ``.netrc`` file."""
    for name in list(os.environ):
        if name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NETRC", str(tmp_path / "missing-netrc"))


@pytest.fixture
def loopback_proxy(bare_environment: None) -> Iterator[FaultServer]:
    """A loopback server answering like a model, to be named as a proxy; stopped after."""
    proxy = FaultServer(model_reply).start()
    try:
        yield proxy
    finally:
        proxy.stop()
