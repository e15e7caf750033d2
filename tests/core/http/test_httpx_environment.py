"""The httpx engine and the environment: proxies read as httpx's own clients read them.

httpx reads ``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and ``NO_PROXY`` only for a
client that builds its own transport; a model's client brings its own, so the proxies
are read when the client is made and mounted on transports with the client's options.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest

from ostinato.client import ChatClient
from ostinato.prompt import Prompt
from ostinato.transport import make_client
from ostinato_openai import OpenAIChatModel
from tests.reliability.faultserver import FaultServer, model_reply

pytestmark = pytest.mark.usefixtures("bare_environment")

PATH = "/v1/chat/completions"


@pytest.fixture
def server() -> Iterator[FaultServer]:
    """A loopback model server, reached directly."""
    started = FaultServer(model_reply).start()
    try:
        yield started
    finally:
        started.stop()


def ask(base_url: str) -> str | None:
    """One async call of a model on the httpx engine at ``base_url``."""

    async def call() -> str | None:
        model = OpenAIChatModel(model="m", base_url=base_url, http_engine="httpx")
        try:
            return (await model.call(Prompt("hi"))).result.output.text
        finally:
            await model.aclose()

    return asyncio.run(call())


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
def test_a_proxy_from_the_environment_carries_the_requests(
    variable: str, loopback_proxy: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, f"http://127.0.0.1:{loopback_proxy.port}")
    assert ask("http://models.example/v1") == "answer to hi"
    # An HTTP proxy is sent the whole URL (absolute form), not just the path.
    assert [r.target for r in loopback_proxy.requests] == [f"http://models.example{PATH}"]


def test_the_sync_face_goes_through_the_proxy(
    loopback_proxy: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{loopback_proxy.port}")
    model = OpenAIChatModel(model="m", base_url="http://models.example/v1", http_engine="httpx")
    client = ChatClient.builder(model).build()
    assert client.prompt("hi").call().content() == "answer to hi"
    assert "".join(client.prompt("hi").stream().content()) == "answer to hi"
    asyncio.run(model.aclose())
    assert [r.target for r in loopback_proxy.requests] == [f"http://models.example{PATH}"] * 2


@pytest.mark.parametrize("variable", ["NO_PROXY", "no_proxy"])
def test_no_proxy_sends_an_excluded_host_directly(
    variable: str,
    loopback_proxy: FaultServer,
    server: FaultServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{loopback_proxy.port}")
    monkeypatch.setenv(variable, "models.example,127.0.0.1")
    assert ask(f"http://127.0.0.1:{server.port}/v1") == "answer to hi"
    assert [r.target for r in server.requests] == [PATH]
    assert loopback_proxy.requests == []


def test_without_proxy_variables_requests_go_directly(
    loopback_proxy: FaultServer, server: FaultServer
) -> None:
    assert ask(f"http://127.0.0.1:{server.port}/v1") == "answer to hi"
    assert [r.target for r in server.requests] == [PATH]
    assert loopback_proxy.requests == []


def test_the_environment_is_read_when_the_client_is_made(
    loopback_proxy: FaultServer, server: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def post() -> int:
        async with make_client(httpx.Timeout(10.0), httpx.Limits()) as client:
            monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{loopback_proxy.port}")
            body = {"messages": [{"role": "user", "content": "hi"}]}
            response = await client.post(f"http://127.0.0.1:{server.port}{PATH}", json=body)
            return response.status_code

    assert asyncio.run(post()) == 200
    assert [r.target for r in server.requests] == [PATH]
    assert loopback_proxy.requests == []


def test_proxied_routes_keep_the_clients_transport_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "internal.example")
    limits = httpx.Limits(max_connections=7, max_keepalive_connections=3)
    client = make_client(httpx.Timeout(10.0), limits)
    direct = client._transport_for_url(httpx.URL("https://internal.example/v1"))
    proxied = client._transport_for_url(httpx.URL("https://models.example/v1"))
    plain = client._transport_for_url(httpx.URL("http://models.example/v1"))
    assert direct is plain is client._transport
    assert isinstance(proxied, httpx.AsyncHTTPTransport) and proxied is not direct
    pool = proxied._pool
    assert (pool._max_connections, pool._max_keepalive_connections) == (7, 3)
    assert pool._retries == 0 and not pool._http2
    asyncio.run(client.aclose())
