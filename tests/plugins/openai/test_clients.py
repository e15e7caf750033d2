"""One HTTP client per event loop, explicit timeouts and pool limits, closed with the model."""

from __future__ import annotations

import asyncio

import httpx

from ostinato.prompt import Prompt
from ostinato_openai import OpenAIChatModel
from ostinato_openai._model import DEFAULT_LIMITS, DEFAULT_TIMEOUT
from tests.fakes.loops import loop_on_a_thread
from tests.plugins.openai.fakes import completion


class Factory:
    """Makes MockTransport clients and remembers them."""

    def __init__(self) -> None:
        self.clients: list[httpx.AsyncClient] = []
        self.requests: list[httpx.Request] = []

    def __call__(self) -> httpx.AsyncClient:
        def handler(request: httpx.Request) -> httpx.Response:
            self.requests.append(request)
            return completion({"role": "assistant", "content": "ok"})

        client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        self.clients.append(client)
        return client


def model_with(factory: Factory, **kwargs) -> OpenAIChatModel:
    return OpenAIChatModel(
        model="m", base_url="https://x.test/v1", http_client_factory=factory, **kwargs
    )


async def test_one_client_per_loop_reused_and_closed():
    factory = Factory()
    model = model_with(factory)
    await model.call(Prompt("a"))
    await model.call(Prompt("b"))
    assert len(factory.clients) == 1
    await model.aclose()
    assert factory.clients[0].is_closed
    await model.call(Prompt("c"))  # usable again: a new client
    assert len(factory.clients) == 2
    await model.aclose()


def test_each_event_loop_gets_its_own_client():
    factory = Factory()
    model = model_with(factory)
    asyncio.run(model.call(Prompt("a")))
    asyncio.run(model.call(Prompt("b")))
    assert len(factory.clients) == 2
    asyncio.run(model.aclose())  # the first loops are closed: nothing to do there


async def test_aclose_closes_a_client_living_on_another_running_loop():
    factory = Factory()
    model = model_with(factory)
    with loop_on_a_thread() as other:
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(model.call(Prompt("a")), other))
        await model.call(Prompt("b"))
        assert len(factory.clients) == 2
        async with model:
            pass  # __aexit__ closes
        assert all(c.is_closed for c in factory.clients)


async def test_every_request_carries_explicit_timeouts_and_headers():
    factory = Factory()
    model = model_with(
        factory,
        api_key="sk-k",
        organization="org-1",
        project="proj-1",
        extra_headers={"X-Custom": "yes"},
        extra_query={"api-version": "2024"},
    )
    await model.call(Prompt("a"))
    await model.aclose()
    (request,) = factory.requests
    assert request.extensions["timeout"] == DEFAULT_TIMEOUT.as_dict()
    assert request.headers["authorization"] == "Bearer sk-k"
    assert request.headers["openai-organization"] == "org-1"
    assert request.headers["openai-project"] == "proj-1"
    assert request.headers["x-custom"] == "yes"
    assert request.headers["accept"] == "application/json"
    assert request.headers["user-agent"].startswith("ostinato-openai/")
    assert str(request.url) == "https://x.test/v1/chat/completions?api-version=2024"


async def test_a_number_timeout_and_no_key():
    factory = Factory()
    model = model_with(factory, timeout=30)
    await model.call(Prompt("a"))
    await model.aclose()
    (request,) = factory.requests
    assert request.extensions["timeout"] == httpx.Timeout(30, connect=10).as_dict()
    assert "authorization" not in request.headers


async def test_the_default_client_is_sized_for_many_conversations():
    model = OpenAIChatModel(model="m")
    client = model._make_client()
    try:
        pool = client._transport._pool  # type: ignore[attr-defined]
        assert pool._max_connections == DEFAULT_LIMITS.max_connections == 1000
        assert pool._max_keepalive_connections == 200
        assert client.timeout == DEFAULT_TIMEOUT
    finally:
        await client.aclose()


def test_the_model_never_shows_its_key():
    model = OpenAIChatModel(model="m", api_key="sk-very-secret")
    assert "sk-very-secret" not in repr(model)
