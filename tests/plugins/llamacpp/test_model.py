"""``LlamaCppChatModel`` over the stub: lazy start, reuse, crash mid-turn, 500s, closing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ostinato.errors import ServerError
from ostinato.messages import UserMessage
from ostinato.model import ChatResponse, MessageAggregator
from ostinato.prompt import Prompt
from ostinato_llamacpp import (
    LlamaCppChatModel,
    LlamaServer,
    LlamaServerCrashedError,
    ServerSpec,
    small_model_hint,
)
from ostinato_llamacpp._shared import acquire_server, release_server, shared_servers
from ostinato_openai import OpenAIChatOptions
from tests.plugins.llamacpp.processes import alive, server_pid, wait_gone

PROMPT = Prompt([UserMessage("hi")])
HINT = small_model_hint("Qwen2.5-Coder-1.5B-Instruct (Q4_K_M)", bundled=True)


async def streamed(model: LlamaCppChatModel) -> ChatResponse:
    chunks = [chunk async for chunk in model.stream(PROMPT)]
    aggregate = MessageAggregator().aggregate(chunks)
    assert isinstance(aggregate, ChatResponse)
    return aggregate


async def ask(model: LlamaCppChatModel, face: str) -> ChatResponse:
    """The answer to ``PROMPT`` through ``face``: ``"call"``, or ``"stream"`` aggregated."""
    return await model.call(PROMPT) if face == "call" else await streamed(model)


async def test_first_request_starts_the_server_and_close_stops_it(
    make_spec: Callable[..., ServerSpec],
) -> None:
    spec = make_spec(reply="the answer is 42")
    model = LlamaCppChatModel(spec, default_options=OpenAIChatOptions(model="default"))
    assert model.server is None and model.base_url is None  # nothing starts early
    response = await model.call(PROMPT)
    assert response.text == "the answer is 42"
    assert (await streamed(model)).text == "the answer is 42"
    assert model.base_url == f"http://127.0.0.1:{model.server.port}"  # type: ignore[union-attr]
    stub = server_pid(spec)
    await model.aclose()
    assert wait_gone(stub) and model.server is None


async def test_requests_carry_the_default_options(
    make_spec: Callable[..., ServerSpec], tmp_path: Path
) -> None:
    requests = tmp_path / "requests.jsonl"
    spec = make_spec(requests_file=str(requests))
    options = OpenAIChatOptions(model="default", temperature=0.0, max_tokens=64)
    async with LlamaCppChatModel(spec, default_options=options) as model:
        await model.call(PROMPT)
    sent = json.loads(requests.read_text().splitlines()[0])
    assert sent["temperature"] == 0.0 and sent["max_tokens"] == 64 and sent["model"] == "default"


async def test_models_with_equal_specs_share_one_server(
    make_spec: Callable[..., ServerSpec],
) -> None:
    spec = make_spec()
    first, second = LlamaCppChatModel(spec), LlamaCppChatModel(spec)
    await first.call(PROMPT)
    await second.call(PROMPT)
    assert first.server is second.server
    assert shared_servers() == {first.server: 2}
    stub = server_pid(spec)
    await first.aclose()
    assert alive(stub)  # the second still uses it
    assert (await second.call(PROMPT)).text
    await second.aclose()
    assert wait_gone(stub) and shared_servers() == {}


def test_acquire_and_release_count_users(make_spec: Callable[..., ServerSpec]) -> None:
    spec = make_spec()
    one = acquire_server(spec)
    assert acquire_server(spec) is one
    one.start()
    release_server(one)
    assert one.running
    release_server(one)
    assert not one.running
    release_server(one)  # releasing an unknown server does nothing


@pytest.mark.parametrize("face", ["call", "stream"])
async def test_a_crash_mid_turn_is_a_typed_error_and_the_next_request_restarts(
    make_spec: Callable[..., ServerSpec], tmp_path: Path, face: str
) -> None:
    spec = make_spec(crash=face, crash_once_marker=str(tmp_path / "crashed"))
    async with LlamaCppChatModel(spec, hint=HINT) as model:
        await model.astart()
        first = server_pid(spec)
        with pytest.raises(LlamaServerCrashedError) as caught:
            await ask(model, face)
        error = caught.value
        assert error.exit_code is not None and error.exit_code != 0
        assert "exited with status" in str(error) and "the next request starts it again" in str(
            error
        )
        assert error.provider == "llamacpp" and "stub llama-server" in error.log_tail
        assert wait_gone(first)
        response = await model.call(PROMPT)  # a new server, the crash marker is set now
        assert response.text == "hello from the stub" and server_pid(spec) != first


@pytest.mark.parametrize("face", ["call", "stream"])
async def test_a_500_stays_a_server_error_and_explains_the_small_model(
    make_spec: Callable[..., ServerSpec], face: str
) -> None:
    message = "Failed to parse input at pos 12: does not match the expected peg-native format"
    async with LlamaCppChatModel(make_spec(status_500=message), hint=HINT) as model:
        with pytest.raises(ServerError) as caught:
            await ask(model, face)
    error = caught.value
    assert type(error) is ServerError and error.status == 500
    text = str(error)
    assert "peg-native" in text and "the bundled model" in text and "is small" in text
    assert "OSTINATO_MODEL=" in text and isinstance(error.__cause__, ServerError)


async def test_a_caller_owned_server_is_used_but_not_stopped(
    make_spec: Callable[..., ServerSpec],
) -> None:
    server = LlamaServer(make_spec())
    try:
        async with LlamaCppChatModel(server) as model:
            assert (await model.call(PROMPT)).text
        assert server.running
    finally:
        server.stop()


async def test_a_url_model_talks_to_a_running_server(
    make_spec: Callable[..., ServerSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # loopback must bypass proxies
    with LlamaServer(make_spec(reply="via url")) as server:
        async with LlamaCppChatModel(server.base_url + "/") as model:
            assert model.server is None and model.base_url == server.base_url
            assert (await model.call(PROMPT)).text == "via url"
            with pytest.raises(ValueError, match="did not start"):
                _ = model.spec_of_server


def test_sync_close_releases_the_server(make_spec: Callable[..., ServerSpec]) -> None:
    from ostinato.runtime import run_sync

    spec = make_spec()
    model = LlamaCppChatModel(spec)
    model.start()
    assert run_sync(model.call(PROMPT)).text
    stub = server_pid(spec)
    model.close()
    assert wait_gone(stub)
    assert repr(model) == f"LlamaCppChatModel({spec.model.name!r})"
