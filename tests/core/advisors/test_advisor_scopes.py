"""Advisor scopes (``ostinato.instrumentation``): entered around each hop of the chain,
current for the whole ``advise_call`` and for each step of a stream, never across a
``yield``."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncIterator, Iterator

import pytest

from ostinato import ChatClient, tool
from ostinato.advisors import (
    Advisor,
    AdvisorChain,
    CallAdvisor,
    ChatClientRequest,
    ChatClientResponse,
    Ordered,
    StreamAdvisor,
)
from ostinato.instrumentation import (
    AdvisorScopeActivation,
    add_advisor_scope,
    advisor_scopes,
)
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response

_current: contextvars.ContextVar[str | None] = contextvars.ContextVar("_current", default=None)


@tool
def weather(city: str) -> str:
    """Reads the scope current while the tool runs."""
    return f"sunny ({_current.get()})"


class Watching(CallAdvisor, StreamAdvisor):
    """Records the scope current when it calls on, and after each chunk."""

    def __init__(self) -> None:
        self.seen: list[str | None] = []

    @property
    def order(self) -> int:
        return Ordered.HIGHEST_PRECEDENCE  # outside the tool loop

    async def advise_call(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> ChatClientResponse:
        self.seen.append(_current.get())
        return await chain.next_call(request)

    async def advise_stream(
        self, request: ChatClientRequest, chain: AdvisorChain
    ) -> AsyncIterator[ChatClientResponse]:
        async for chunk in chain.next_stream(request):
            self.seen.append(_current.get())  # a later step: still this advisor's scope
            yield chunk


Log = list[tuple[str, str, object]]


@pytest.fixture
def scope_log() -> Iterator[Log]:
    log: Log = []

    @contextlib.contextmanager
    def scope(
        advisor: Advisor, request: ChatClientRequest, stream: bool
    ) -> Iterator[AdvisorScopeActivation]:
        log.append(("enter", advisor.name, stream))

        @contextlib.contextmanager
        def activate() -> Iterator[None]:
            token = _current.set(advisor.name)
            try:
                yield
            finally:
                _current.reset(token)

        try:
            yield activate
        except BaseException as error:
            log.append(("fail", advisor.name, type(error).__name__))
            raise
        log.append(("exit", advisor.name, stream))

    remove = add_advisor_scope(scope)
    yield log
    remove()
    remove()  # harmless twice
    assert scope not in advisor_scopes()


def _client(model: ScriptedChatModel, watching: Watching) -> ChatClient:
    return ChatClient.builder(model).default_advisors(watching).default_tools(weather).build()


def _two_rounds() -> ScriptedChatModel:
    return ScriptedChatModel([tool_call_response(tool_call("weather", {"city": "Oslo"})), "Sunny."])


def _entered(log: Log) -> list[str]:
    return [name for kind, name, _ in log if kind == "enter"]


def test_each_hop_of_a_call_is_wrapped_and_current_inside(scope_log: Log) -> None:
    watching = Watching()
    model = _two_rounds()

    assert _client(model, watching).prompt("Weather?").call().content() == "Sunny."

    assert _entered(scope_log) == ["Watching", "Tool Calling Advisor", "call", "call"]
    assert [k for k, _, _ in scope_log].count("exit") == 4
    assert watching.seen == ["Watching"]
    # The tool runs inside the tool calling advisor's scope.
    assert "sunny (Tool Calling Advisor)" in str(model.prompts[1].messages)


async def test_a_stream_is_wrapped_whole_and_its_scope_current_in_every_step(
    scope_log: Log,
) -> None:
    watching = Watching()
    model = _two_rounds()

    pieces = [p async for p in _client(model, watching).prompt("Weather?").stream().acontent()]

    assert "".join(pieces) == "Sunny."
    assert _entered(scope_log) == ["Watching", "Tool Calling Advisor", "stream", "stream"]
    assert scope_log[-1] == ("exit", "Watching", True)  # the outermost ends last
    assert watching.seen and set(watching.seen) == {"Watching"}
    assert "sunny (Tool Calling Advisor)" in str(model.prompts[1].messages)


async def test_between_chunks_the_consumer_sees_its_own_scope(scope_log: Log) -> None:
    client = ChatClient.builder(ScriptedChatModel(["a b c"])).build()

    seen = [_current.get() async for _ in client.prompt("Hi").stream().acontent()]

    assert seen and set(seen) == {None}


def test_a_failure_leaves_every_scope_with_the_exception(scope_log: Log) -> None:
    client = ChatClient.builder(ScriptedChatModel([ConnectionError("down")])).build()

    with pytest.raises(ConnectionError):
        client.prompt("Hi").call().content()

    assert ("fail", "call", "ConnectionError") in scope_log
    assert ("fail", "Tool Calling Advisor", "ConnectionError") in scope_log


async def test_closing_a_stream_early_leaves_the_scopes(scope_log: Log) -> None:
    client = ChatClient.builder(ScriptedChatModel(["a b c d"])).build()

    stream = client.prompt("Hi").stream().acontent()
    async with contextlib.aclosing(stream) as pieces:  # type: ignore[type-var]
        async for _ in pieces:
            break

    failed = {name for kind, name, _ in scope_log if kind in ("fail", "exit")}
    assert failed == set(_entered(scope_log))
