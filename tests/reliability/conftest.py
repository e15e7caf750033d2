"""Fixtures of the reliability suite: fault servers that are always stopped, models that
are always closed, and a deterministic hypothesis profile."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import pytest

from tests.fakes.distributions import clean_environment, data_home
from tests.reliability.faultserver import Fault, FaultServer, ReceivedRequest

__all__ = ["clean_environment", "data_home", "serve"]


@pytest.fixture
def serve() -> Iterator[Callable[..., FaultServer]]:
    """Start a :class:`FaultServer` for ``script``; every one started is stopped after."""
    started: list[FaultServer] = []

    def start(script: Sequence[Fault] | Callable[[ReceivedRequest], Fault] = ()) -> FaultServer:
        server = FaultServer(script).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
