"""The whole tool loop through ``ChatClient`` with each HTTP adapter's model over real sockets.

A loopback server replays recorded exchanges in sequence: the model's tool call, then its
answer. The tool runs for real and its result travels back to the server, where the
adapter checks the follow-up request against the recorded one (or, where the corpus has
none, against the API's documented shape). Sync and async faces, call and stream; each
adapter's scenarios and checks live in its ``tool_loop`` module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from ostinato import ChatClient, ChatResponse
from ostinato.http import HttpxChatModel
from ostinato.runtime import run_sync
from tests.fakes.loopback import LoopbackServer
from tests.plugins.anthropic.tool_loop import ANTHROPIC
from tests.plugins.ollama.tool_loop import OLLAMA
from tests.plugins.openai.tool_loop import OPENAI
from tests.plugins.tool_loop import Scenario, ToolLoop

LOOPS = [OPENAI, ANTHROPIC, OLLAMA]
PARALLEL = [loop for loop in LOOPS if loop.parallel_call_sync is not None]


def each(loops: list[ToolLoop]) -> Any:
    return pytest.mark.parametrize("loop", loops, ids=[loop.name for loop in loops])


def checked(loop: ToolLoop, scenario: Scenario, server: LoopbackServer, result: Any) -> None:
    """One request per recording reached the server; then the adapter's own checks."""
    assert len(server.requests) == len(scenario.recordings)
    if scenario.check is not None:
        scenario.check(server, result)
    if scenario.followup:
        assert loop.check_followup is not None
        loop.check_followup(server, scenario.recordings[-1])


@contextmanager
def replaying(
    loop: ToolLoop, scenario: Scenario
) -> Iterator[tuple[LoopbackServer, HttpxChatModel[Any]]]:
    """The server replaying the scenario, and the model pointed at it (closed afterwards)."""
    with loop.served(*scenario.recordings) as server:
        model = loop.new_model(server)
        try:
            yield server, model
        finally:
            run_sync(model.aclose())


def answered(scenario: Scenario, text: str | None) -> None:
    """The answer's text starts as the scenario says (when it says)."""
    if scenario.starts is not None:
        assert text is not None
        assert text.startswith(scenario.starts)


def call_sync(loop: ToolLoop, scenario: Scenario) -> None:
    """Asks once through the blocking call face, and runs the scenario's checks."""
    with replaying(loop, scenario) as (server, model):
        answer = scenario.ask(ChatClient.create(model)).call().content()
        answered(scenario, answer)
        checked(loop, scenario, server, answer)


@each(LOOPS)
def test_tool_loop_call_sync(loop: ToolLoop) -> None:
    call_sync(loop, loop.call_sync)


@each(PARALLEL)
def test_parallel_tool_loop_call_sync(loop: ToolLoop) -> None:
    assert loop.parallel_call_sync is not None
    call_sync(loop, loop.parallel_call_sync)


@each(LOOPS)
def test_tool_loop_stream_sync(loop: ToolLoop) -> None:
    scenario = loop.stream_sync
    with replaying(loop, scenario) as (server, model):
        pieces = list(scenario.ask(ChatClient.create(model)).stream().content())
        checked(loop, scenario, server, pieces)


async def play(
    loop: ToolLoop, scenario: Scenario, face: Callable[[ChatClient], Awaitable[Any]]
) -> None:
    """Asks through an async face of a client on the adapter's model, then runs the checks."""
    with loop.served(*scenario.recordings) as server:
        async with loop.new_model(server) as model:
            result = await face(ChatClient.create(model))
        checked(loop, scenario, server, result)


@each(LOOPS)
async def test_tool_loop_call_async(loop: ToolLoop) -> None:
    scenario = loop.call_async

    async def respond(client: ChatClient) -> ChatResponse:
        response = await scenario.ask(client).call().achat_response()
        assert response is not None
        answered(scenario, response.text)
        if scenario.usage is not None:
            # The usage of both rounds is summed on the final response.
            prompt, completion = scenario.usage
            assert response.usage.prompt_tokens == prompt
            assert response.usage.completion_tokens == completion
        return response

    await play(loop, scenario, respond)


@each(LOOPS)
async def test_tool_loop_stream_async(loop: ToolLoop) -> None:
    scenario = loop.stream_async

    async def pieces(client: ChatClient) -> list[str]:
        return [text async for text in scenario.ask(client).stream().acontent()]

    await play(loop, scenario, pieces)
