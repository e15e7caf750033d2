"""Fixtures of the reliability suite: fault servers that are always stopped, models that
are always closed, and a deterministic hypothesis profile.

Every test that talks to a fault server runs on each HTTP engine (``OSTINATO_HTTP_ENGINE``
set to ``httpx``, then ``aiohttp``): the models it makes use that engine. The aiohttp
engine's one-time set-up (importing aiohttp, loading the certificates), which its first
request would otherwise pay, is done before the test, so that the time a test measures is
its requests' own, not the import's (seconds on a loaded machine)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import pytest

from ostinato.transport._engine import ENGINE_VARIABLE, ENGINES, _ssl_context
from tests.fakes.distributions import clean_environment, data_home
from tests.reliability.faultserver import Fault, FaultServer, ReceivedRequest

__all__ = ["clean_environment", "data_home", "http_engine", "serve"]


@pytest.fixture(params=ENGINES)
def http_engine(
    request: pytest.FixtureRequest, data_home: object, monkeypatch: pytest.MonkeyPatch
) -> str:
    """The HTTP engine the models of this test run on (each in turn)."""
    engine: str = request.param
    monkeypatch.setenv(ENGINE_VARIABLE, engine)
    if engine == "aiohttp":
        _warm_aiohttp()
    return engine


def _warm_aiohttp() -> None:
    """Pay the aiohttp engine's one-time set-up now (cached by the process afterwards)."""
    import aiohttp  # noqa: F401
    import httpx_aiohttp  # noqa: F401

    _ssl_context(trust_env=True)


@pytest.fixture
def serve(http_engine: str) -> Iterator[Callable[..., FaultServer]]:
    """Start a :class:`FaultServer` for ``script``; every one started is stopped after."""
    started: list[FaultServer] = []

    def start(script: Sequence[Fault] | Callable[[ReceivedRequest], Fault] = ()) -> FaultServer:
        server = FaultServer(script).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
