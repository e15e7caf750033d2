"""Tool scopes (``ostinato.instrumentation``): entered around each tool call, in the
call's own context, so what they make current is current in async and sync tools."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

import pytest

from ostinato import ChatClient, tool
from ostinato.errors import ToolError
from ostinato.instrumentation import ToolOutcomeReport, add_tool_scope, tool_scopes
from ostinato.messages import ToolCall
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato.tools import ToolCallback

_current: contextvars.ContextVar[str | None] = contextvars.ContextVar("_current", default=None)


@tool
def sync_tool(x: int) -> str:
    """Reads the scope's variable on the tool pool."""
    return f"sync saw {_current.get()}"


@tool
async def async_tool(x: int) -> str:
    """Reads the scope's variable in the tool's task."""
    return f"async saw {_current.get()}"


@tool
def failing_tool(x: int) -> str:
    """Fails."""
    raise ValueError("bad")


@pytest.fixture
def scope_log() -> Iterator[list[tuple[str, object]]]:
    log: list[tuple[str, object]] = []

    @contextlib.contextmanager
    def scope(call: ToolCall, callback: ToolCallback) -> Iterator[ToolOutcomeReport]:
        token = _current.set(call.id)
        log.append(("enter", call.id))
        try:
            yield lambda outcome: log.append(("outcome", outcome))
        finally:
            _current.reset(token)
            log.append(("exit", callback.tool_definition.name))

    remove = add_tool_scope(scope)
    yield log
    remove()
    remove()  # harmless twice
    assert scope not in tool_scopes()


def test_what_a_scope_makes_current_is_current_in_sync_and_async_tools(
    scope_log: list[tuple[str, object]],
) -> None:
    model = ScriptedChatModel(
        [
            tool_call_response(
                tool_call("sync_tool", {"x": 1}, id="s"), tool_call("async_tool", {"x": 2}, id="a")
            ),
            "done",
        ]
    )
    client = ChatClient.builder(model).default_tools(sync_tool, async_tool).build()

    assert client.prompt("go").call().content() == "done"

    outcomes = sorted(str(v) for k, v in scope_log if k == "outcome")
    assert outcomes == ["async saw a", "sync saw s"]
    assert sorted(v for k, v in scope_log if k == "exit") == ["async_tool", "sync_tool"]


def test_a_failing_tool_reports_its_tool_error(scope_log: list[tuple[str, object]]) -> None:
    model = ScriptedChatModel([tool_call_response(tool_call("failing_tool", {"x": 1})), "ok"])
    client = ChatClient.builder(model).default_tools(failing_tool).build()

    assert client.prompt("go").call().content() == "ok"

    [(_, outcome)] = [entry for entry in scope_log if entry[0] == "outcome"]
    assert isinstance(outcome, ToolError) and isinstance(outcome.__cause__, ValueError)


def test_scopes_are_listed_outermost_first_until_removed() -> None:
    def first(call: ToolCall, callback: ToolCallback) -> contextlib.nullcontext[ToolOutcomeReport]:
        return contextlib.nullcontext(lambda outcome: None)

    def second(call: ToolCall, callback: ToolCallback) -> contextlib.nullcontext[ToolOutcomeReport]:
        return contextlib.nullcontext(lambda outcome: None)

    remove_first, remove_second = add_tool_scope(first), add_tool_scope(second)
    assert tool_scopes()[-2:] == (first, second)
    remove_first()
    remove_second()
    assert first not in tool_scopes() and second not in tool_scopes()
