"""Telemetry and loop events say the same about a failed tool call: the span's
``error.type`` is the ``ToolFinished.error`` of the same call, whatever went wrong (the
tool raised, timed out, had bad arguments, was unknown, was cancelled), on the call and
the stream path."""

from __future__ import annotations

import asyncio

import pytest

from ostinato import CancelScope, ChatClient, tool
from ostinato.events import LoopEvent, ToolFailureKind, ToolFinished, ToolStarted
from ostinato.testing import ScriptedChatModel, tool_call, tool_call_response
from ostinato_opentelemetry import instrument
from tests.plugins.opentelemetry.conftest import Recorded


class Inventory:
    class Missing(LookupError):
        """An error class nested in another (its qualified name is reported)."""


@tool
def raises_value() -> str:
    """Always raises ValueError."""
    raise ValueError("bad value")


@tool
def raises_nested() -> str:
    """Always raises a nested error class."""
    raise Inventory.Missing("no stock")


@tool(timeout=0.05)
async def slow() -> str:
    """Runs past its timeout."""
    await asyncio.sleep(30)
    return "never"


@tool
def count(n: int) -> str:
    """Needs an integer."""
    return str(n)


@tool
async def block() -> str:
    """Waits until cancelled."""
    await asyncio.Event().wait()
    return "never"


def _client(model: ScriptedChatModel) -> ChatClient:
    builder = ChatClient.builder(model).default_tools(raises_value, raises_nested, slow, count)
    return instrument(builder, provider_name="openai").build()


def _error_types(recorded: Recorded) -> dict[str, str]:
    spans = [s for s in recorded.spans() if s.name.startswith("execute_tool ")]
    return {
        str(attributes["gen_ai.tool.call.id"]): str(attributes["error.type"])
        for attributes in (s.attributes or {} for s in spans)
        if "error.type" in attributes
    }


@pytest.mark.parametrize("path", ["call", "stream"])
def test_a_failed_calls_span_and_tool_finished_name_the_same_error(
    recorded: Recorded, path: str
) -> None:
    model = ScriptedChatModel(
        [
            tool_call_response(
                tool_call("raises_value", {}, id="v1"),
                tool_call("raises_nested", {}, id="n1"),
                tool_call("slow", {}, id="s1"),
                tool_call("count", {"n": "many"}, id="a1"),
            ),
            "Noted.",
        ]
    )
    events: list[LoopEvent] = []
    spec = _client(model).prompt("Go.").listener(events.append)
    if path == "call":
        spec.call().content()
    else:
        "".join(spec.stream().content())

    finished = {e.call.id: e for e in events if isinstance(e, ToolFinished)}
    assert {i: e.error for i, e in finished.items()} == {
        "v1": "ValueError",
        "n1": "Inventory.Missing",
        "s1": "ToolTimeoutError",
        "a1": "ToolArgumentsError",
    }
    assert [finished[i].failure for i in ("v1", "n1", "s1", "a1")] == [
        ToolFailureKind.RAISED,
        ToolFailureKind.RAISED,
        ToolFailureKind.TIMED_OUT,
        ToolFailureKind.BAD_ARGUMENTS,
    ]
    # The tools that ran have spans (an argument error stops the call inside its span).
    assert _error_types(recorded) == {i: e.error for i, e in finished.items()}


@pytest.mark.parametrize("path", ["call", "stream"])
def test_a_cancelled_calls_span_and_tool_finished_agree(recorded: Recorded, path: str) -> None:
    scope = CancelScope()

    def cancel_once_running(event: LoopEvent) -> None:
        if isinstance(event, ToolStarted):
            scope.cancel("stop")

    model = ScriptedChatModel([tool_call_response(tool_call("block", {}, id="b1"))])
    builder = ChatClient.builder(model).default_tools(block)
    events: list[LoopEvent] = []
    spec = (
        instrument(builder, provider_name="openai")
        .build()
        .prompt("Go.")
        .cancel_scope(scope)
        .listener(cancel_once_running)
        .listener(events.append)
    )
    if path == "call":
        spec.call().content()
    else:
        "".join(spec.stream().content())

    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.failure is ToolFailureKind.CANCELLED
    assert _error_types(recorded) == {"b1": finished.error} == {"b1": "CancelledError"}
