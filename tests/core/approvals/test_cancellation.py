"""Cancelling a turn: through a cancel scope (call and stream, sync and async), task
cancellation, and a sync caller's KeyboardInterrupt. The model call and the tools stop;
a scope-cancelled turn ends with reason ``cancelled`` and every call answered; nothing
keeps running afterwards."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from ostinato import CancelScope, ChatClient, tool
from ostinato.model import ChatResponse
from ostinato.prompt import ChatOptions, Prompt, ToolCallingChatOptions
from ostinato.testing import ScriptedChatModel, text_response, tool_call_response
from tests.core.approvals.faces import FACES, answer
from tests.reliability.resources import assert_nothing_left, finalised, snapshot

STARTED = threading.Event()
CANCELLED = threading.Event()
RELEASE = threading.Event()
SEEN: list[str] = []


@tool
async def slow_async(seconds: int) -> str:
    """Wait (async)."""
    STARTED.set()
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        SEEN.append("async tool cancelled")
        CANCELLED.set()
        raise
    return "never"


@tool
def slow_sync(seconds: int) -> str:
    """Wait (in a thread)."""
    seen = SEEN  # the list of the test that started it, even if it finishes later
    STARTED.set()
    RELEASE.wait(30)
    seen.append("sync tool finished")
    return "late"


@tool
def quick(x: int) -> str:
    """Answer at once."""
    return "quick"


@pytest.fixture(autouse=True)
def _reset() -> Any:
    global SEEN
    STARTED.clear()
    CANCELLED.clear()
    RELEASE.clear()
    SEEN = []
    yield
    RELEASE.set()  # let an abandoned sync tool's thread finish


def cancel_when_started(scope: CancelScope) -> threading.Thread:
    def run() -> None:
        if STARTED.wait(30):
            scope.cancel("stopped by the user")

    thread = threading.Thread(target=run, name="test-canceller")
    thread.start()
    return thread


class StallingModel:
    """A model whose call (and stream, after one chunk) waits until cancelled."""

    def __init__(self) -> None:
        self.cancelled = 0

    @property
    def default_options(self) -> ChatOptions:
        return ToolCallingChatOptions()

    async def _stall(self) -> None:
        """Say it started, then wait until cancelled (counting the cancellation)."""
        STARTED.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise

    async def call(self, prompt: Prompt) -> ChatResponse:
        await self._stall()
        raise AssertionError("unreachable")

    async def stream(self, prompt: Prompt) -> AsyncIterator[ChatResponse]:
        yield text_response("Once upon")
        await self._stall()


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("slow", [slow_async, slow_sync], ids=["async-tool", "sync-tool"])
def test_a_scope_cancels_running_tools_and_answers_every_call(face: str, slow: Any) -> None:
    scope = CancelScope()
    model = ScriptedChatModel(
        [tool_call_response(("quick", {"x": 1}), (slow.__name__, {"seconds": 60}))]
    )
    spec = ChatClient.create(model).prompt("go").tools(quick, slow).cancel_scope(scope)
    canceller = cancel_when_started(scope)
    response = answer(spec, face)
    canceller.join()
    assert response.chat_response is not None
    result = response.chat_response.result
    assert result.output.text == "The turn was cancelled: stopped by the user."
    assert result.metadata.finish_reason == "cancelled"
    assert model.call_count == 1  # no model round after the cancellation
    if slow is slow_async:
        assert SEEN == ["async tool cancelled"]
    else:
        assert SEEN == []  # abandoned: its result is dropped


@pytest.mark.parametrize("face", FACES)
def test_a_scope_cancels_the_model_call(face: str) -> None:
    scope = CancelScope()
    model = StallingModel()
    spec = ChatClient.create(model).prompt("go").cancel_scope(scope)  # type: ignore[arg-type]
    canceller = cancel_when_started(scope)
    response = answer(spec, face)
    canceller.join()
    assert response.chat_response is not None
    assert response.chat_response.result.metadata.finish_reason == "cancelled"
    assert model.cancelled == 1


def test_a_scope_cancelled_before_the_turn_ends_it_at_once() -> None:
    scope = CancelScope()
    scope.cancel()
    model = ScriptedChatModel([text_response("never")])
    text = ChatClient.create(model).prompt("go").cancel_scope(scope).call().content()
    assert text == "The turn was cancelled."


async def test_nothing_keeps_running_after_a_cancelled_turn() -> None:
    before = snapshot()
    scope = CancelScope()
    model = ScriptedChatModel([tool_call_response(("slow_async", {"seconds": 60}))])
    spec = ChatClient.create(model).prompt("go").tools(slow_async).cancel_scope(scope)
    canceller = cancel_when_started(scope)
    await spec.call().acontent()
    await asyncio.to_thread(canceller.join)
    await finalised()
    assert_nothing_left(before)


async def test_cancelling_the_callers_task_cancels_the_tools_and_leaves_nothing() -> None:
    before = snapshot()
    model = ScriptedChatModel([tool_call_response(("slow_async", {"seconds": 60}))])
    spec = ChatClient.create(model).prompt("go").tools(slow_async)
    task = asyncio.ensure_future(spec.call().acontent())
    await asyncio.to_thread(STARTED.wait, 30)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert SEEN == ["async tool cancelled"]
    await finalised()
    assert_nothing_left(before)


def test_a_sync_callers_keyboard_interrupt_cancels_the_tools() -> None:
    import signal

    model = ScriptedChatModel([tool_call_response(("slow_async", {"seconds": 60}))])
    spec = ChatClient.create(model).prompt("go").tools(slow_async)

    def interrupt(signum: int, frame: object) -> None:
        # Ctrl-C once the tool runs (until then, look again shortly).
        if not STARTED.is_set():
            signal.setitimer(signal.ITIMER_REAL, 0.05)
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(KeyboardInterrupt):
            spec.call().content()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    # The turn's task on the private loop was cancelled: the tool saw it.
    assert CANCELLED.wait(10)
    assert SEEN == ["async tool cancelled"]
