"""Tools that raise what asyncio and concurrent.futures treat specially: no turn hangs.

``StopIteration`` cannot be put into an asyncio future, ``concurrent.futures`` turns its
``CancelledError`` into a cancellation, ``asyncio.CancelledError`` and ``GeneratorExit``
mean something to the event loop, ``TimeoutError`` is also what a tool's timeout raises.
Raised by a tool, each is a failure the model reads, like any other exception, on every
path (sync and async tools; concurrent, sequential, with a timeout, return-direct),
through ``call()`` and ``stream()``, on the async and the sync faces. ``KeyboardInterrupt``
and ``SystemExit`` end the turn and reach the caller. A cancellation of the turn, or a
tool's timeout, stays what it is even when the tool raises its own exception as it stops.

Every turn runs on a thread joined with a deadline, so a regression fails, never hangs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest

from ostinato import ChatClient, tool
from ostinato.messages import ToolCall, ToolResponseMessage
from ostinato.model import ChatResponse
from ostinato.prompt import Prompt
from ostinato.testing import ScriptedChatModel, tool_call_response

DEADLINE = 10.0

# A failure the model must read: (exception factory, what the model reads after "failed: ").
FAILURES: dict[str, tuple[Callable[[], BaseException], str]] = {
    "StopIteration": (lambda: StopIteration("exhausted"), "StopIteration: exhausted"),
    "StopAsyncIteration": (lambda: StopAsyncIteration("over"), "StopAsyncIteration: over"),
    "futures.CancelledError": (
        lambda: concurrent.futures.CancelledError("job dropped"),
        "CancelledError: job dropped",
    ),
    "asyncio.CancelledError": (
        lambda: asyncio.CancelledError("raised by the tool"),
        "CancelledError: raised by the tool",
    ),
    "GeneratorExit": (lambda: GeneratorExit("closed"), "GeneratorExit: closed"),
    "TimeoutError": (lambda: TimeoutError("upstream too slow"), "TimeoutError: upstream too slow"),
}
ENDINGS: dict[str, Callable[[], BaseException]] = {
    "KeyboardInterrupt": lambda: KeyboardInterrupt("stop"),
    "SystemExit": lambda: SystemExit(3),
}
KINDS = ["sync", "async"]
PATHS = ["concurrent", "sequential", "timeout", "return_direct"]
MODES = ["call", "stream"]
FACES = ["async", "sync"]


def bounded(run: Callable[[], Any]) -> Any:
    """``run()`` on a thread; its result or exception, or a failure after ``DEADLINE``."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = run()
        except BaseException as error:  # KeyboardInterrupt too: the test inspects it
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(DEADLINE)
    if thread.is_alive():
        pytest.fail(f"the turn hung (no outcome after {DEADLINE} s)")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def ask(client: ChatClient, mode: str, face: str) -> str | None:
    """One turn, bounded, through ``mode`` and ``face``."""

    async def async_turn() -> str | None:
        if mode == "call":
            return await client.prompt("go").call().acontent()
        return "".join([piece async for piece in client.prompt("go").stream().acontent()])

    def sync_turn() -> str | None:
        if mode == "call":
            return client.prompt("go").call().content()
        return "".join(client.prompt("go").stream().content())

    return bounded(sync_turn if face == "sync" else lambda: asyncio.run(async_turn()))


def reports_back(prompt: Prompt) -> ChatResponse | str:
    """Asks for ``bad`` and ``ok`` in one batch, then answers with what they said."""
    last = prompt.messages[-1]
    if isinstance(last, ToolResponseMessage):
        return "tool said: " + " | ".join(r.response_data for r in last.responses)
    return tool_call_response(ToolCall("c1", "bad", "{}"), ToolCall("c2", "ok", "{}"))


def client_with(raise_it: Callable[[], BaseException], kind: str, path: str) -> ChatClient:
    settings: dict[str, Any] = {
        "sequential": path == "sequential",
        "return_direct": path == "return_direct",
        "timeout": 5.0 if path == "timeout" else None,
    }
    if kind == "sync":

        @tool(name="bad", description="Raises", **settings)
        def bad_sync() -> str:
            raise raise_it()

        bad: object = bad_sync
    else:

        @tool(name="bad", description="Raises", **settings)
        async def bad_async() -> str:
            raise raise_it()

        bad = bad_async

    @tool(name="ok", description="Answers", return_direct=path == "return_direct")
    def ok() -> str:
        return "fine"

    return (
        ChatClient.builder(ScriptedChatModel(responder=reports_back)).default_tools(bad, ok).build()
    )


def every_way(test: Callable[..., None]) -> Callable[..., None]:
    """Run ``test`` for each kind of tool, each loop path, each mode and each face."""
    for mark in (
        pytest.mark.parametrize("kind", KINDS),
        pytest.mark.parametrize("path", PATHS),
        pytest.mark.parametrize("mode", MODES),
        pytest.mark.parametrize("face", FACES),
    ):
        test = mark(test)
    return test


@every_way
@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_tool_raising_a_special_exception_is_a_failure_the_model_reads(
    failure, kind, path, mode, face
):
    raise_it, said = FAILURES[failure]
    client = client_with(raise_it, kind, path)
    assert ask(client, mode, face) == f"tool said: Error: tool 'bad' failed: {said} | fine"


@every_way
@pytest.mark.parametrize("ending", list(ENDINGS))
def test_keyboard_interrupt_and_system_exit_from_a_tool_end_the_turn(
    ending, kind, path, mode, face
):
    raised: list[BaseException] = []

    def raise_it() -> BaseException:
        raised.append(ENDINGS[ending]())
        return raised[-1]

    client = client_with(raise_it, kind, path)
    with pytest.raises(type(ENDINGS[ending]())) as info:
        ask(client, mode, face)
    assert info.value is raised[0]
    # The runtime survives: the next turn answers.
    plain = ChatClient.builder(ScriptedChatModel(["still here"])).build()
    assert ask(plain, mode, face) == "still here"


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_tool_ending_the_turn_leaves_no_task_with_an_exception_nobody_retrieved(
    ending, path, mode, caplog
):
    # asyncio.run: the loop's own shutdown must not leave a task failed with it (asyncio
    # would log "Task exception was never retrieved" whenever the task is collected). A
    # sync tool's exception reaches the call's task as an async tool's does: one kind.
    client = client_with(ENDINGS[ending], "async", path)
    with pytest.raises(type(ENDINGS[ending]())):
        ask(client, mode, "async")
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        gc.collect()
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == []


@pytest.mark.parametrize("mode", MODES)
async def test_cancelling_the_turn_cancels_it_even_if_the_tool_raises_its_own_cancelled_error(
    mode,
):
    entered = asyncio.Event()

    @tool(name="bad", description="Waits, and says so when cancelled")
    async def waits() -> str:
        entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise asyncio.CancelledError("the tool's own, while being cancelled") from None
        return "never"

    model = ScriptedChatModel(responder=reports_back)
    client = ChatClient.builder(model).default_tools(waits).build()

    async def turn() -> str | None:
        if mode == "call":
            return await client.prompt("go").call().acontent()
        return "".join([piece async for piece in client.prompt("go").stream().acontent()])

    running = asyncio.create_task(turn())
    async with asyncio.timeout(DEADLINE):
        await entered.wait()
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
    assert running.cancelled()
    assert len(model.prompts) == 1  # the model never read a tool error


@pytest.mark.parametrize("own", [asyncio.CancelledError, TimeoutError, RuntimeError])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("face", FACES)
def test_a_timeout_stays_a_timeout_whatever_the_tool_raises_as_it_stops(own, mode, face):
    @tool(name="bad", description="Hangs, and raises its own error when stopped", timeout=0.2)
    async def hangs() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise own("stopped") from None
        return "never"

    @tool(name="ok", description="Answers")
    def ok() -> str:
        return "fine"

    model = ScriptedChatModel(responder=reports_back)
    client = ChatClient.builder(model).default_tools(hangs, ok).build()
    assert ask(client, mode, face) == "tool said: Error: tool 'bad' timed out after 0.2 s | fine"
