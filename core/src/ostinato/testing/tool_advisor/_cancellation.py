"""The kit's checks of tool failures and of every way a turn is cancelled.

Mixed into :class:`~ostinato.testing.tool_advisor.ToolAdvisorConformance`:

* a failing call's ``ToolFinished`` names the class that was raised (the tool's own
  exception class, not ostinato's wrapper) and says the kind of failure;
* a turn cancelled amid a batch — its task cancelled, a ``KeyboardInterrupt`` on the
  sync face, its events left early, a :class:`~ostinato.runtime.CancelScope` — gives
  its listeners an ending: a cancelled ``ToolFinished`` for every call that had not
  finished, then ``LoopEnded(reason=cancelled)``, before the cancellation reaches the
  caller;
* a cancel scope keeps the results of the calls of the batch that finished and answers
  only the others as cancelled.

In each cancelled turn the model asks for two calls at once: ``quick`` finishes at once,
``block`` waits until it is cancelled; the turn is cancelled once both are known to the
listener (``quick`` finished, ``block`` started), so no timing decides the outcome.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import pytest

from ostinato.advisors import (
    Ordered,
    ToolAdvisor,
    ToolLoopExit,
    ToolLoopExitListener,
)
from ostinato.advisors._api import BaseAdvisor
from ostinato.client import ChatClient, ChatClientRequestSpec
from ostinato.events import (
    LoopEvent,
    LoopExitReason,
    ToolFailureKind,
    ToolFinished,
    ToolStarted,
)
from ostinato.model import ChatResponse
from ostinato.testing._scripted import ScriptedChatModel, tool_call, tool_call_response
from ostinato.testing.tool_advisor._checks import check_turn
from ostinato.testing.tool_advisor._harness import PATHS, WAYS, Run, run_way
from ostinato.tools import tool

__all__ = ["CancelKitTools", "CancellationConformance"]

_ways = pytest.mark.parametrize(("path", "face"), WAYS)
_paths = pytest.mark.parametrize("path", PATHS)
_CANCELLED_TEXT = "Cancelled"


class CancelKitTools:
    """The tools of the kit's failing and cancelled turns."""

    NAMES: ClassVar[tuple[str, ...]] = ("quick", "block", "raises_value", "raises_key", "slow")

    def __init__(self) -> None:
        self.cancelled = threading.Event()

    @tool(description="Answer at once")
    def quick(self, x: int) -> str:
        """Answer ``x`` at once."""
        return f"quick {x}"

    @tool(description="Wait until cancelled")
    async def block(self) -> str:
        """Wait until the turn is cancelled."""
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        return "never"

    @tool(description="Always raises ValueError")
    def raises_value(self) -> str:
        """Raise ValueError."""
        raise ValueError("bad value")

    @tool(description="Always raises KeyError")
    def raises_key(self) -> str:
        """Raise KeyError."""
        raise KeyError("missing")

    @tool(description="Runs past its timeout", timeout=0.05)
    async def slow(self) -> str:
        """Sleep past the timeout."""
        await asyncio.sleep(30)
        return "never"


class _Ready:
    """A listener that keeps the events and says when the batch is half done (``quick``
    finished, ``block`` started): then ``fire`` runs, once."""

    def __init__(self, fire: Callable[[], None] = lambda: None) -> None:
        self.events: list[LoopEvent] = []
        self.ready = threading.Event()
        self._fire = fire
        self._seen: set[str] = set()

    def __call__(self, event: LoopEvent) -> None:
        self.events.append(event)
        if isinstance(event, ToolFinished) and event.call.id == "q1":
            self._seen.add("quick")
        elif isinstance(event, ToolStarted) and event.call.id == "b1":
            self._seen.add("block")
        if len(self._seen) == 2 and not self.ready.is_set():
            self.ready.set()
            self._fire()


class _KeptEnding(BaseAdvisor, ToolLoopExitListener):
    """An advisor inside the loop that keeps how the loop ended without a round."""

    def __init__(self) -> None:
        self.endings: list[ToolLoopExit] = []

    @property
    def name(self) -> str:
        return "kept ending"

    @property
    def order(self) -> int:
        return Ordered.LOWEST_PRECEDENCE - 10

    async def on_tool_loop_exit(self, ending: ToolLoopExit) -> None:
        self.endings.append(ending)


class CancellationConformance:
    """Tool failures and cancellation checks (see the module)."""

    def make_advisor(self, **settings: Any) -> ToolAdvisor:
        """The tool advisor under test (implemented by the conformance class)."""
        raise NotImplementedError

    def discovery(self, tool_names: Sequence[str]) -> list[ChatResponse]:
        """Model responses that come first in every turn (see the conformance class)."""
        return []

    def _cancel_client(
        self, script: Sequence[Any]
    ) -> tuple[ChatClient, CancelKitTools, _KeptEnding]:
        tools = CancelKitTools()
        kept = _KeptEnding()
        model = ScriptedChatModel([*self.discovery(CancelKitTools.NAMES), *script])
        client = (
            ChatClient.builder(model, tool_advisor=self.make_advisor())
            .default_advisors(kept)
            .build()
        )
        return client, tools, kept

    def _half_done_batch(self) -> tuple[ChatClient, CancelKitTools, _KeptEnding]:
        both = tool_call_response(
            tool_call("quick", {"x": 1}, id="q1"), tool_call("block", {}, id="b1")
        )
        return self._cancel_client([both, "never asked"])

    @staticmethod
    def _cancel_spec(client: ChatClient, tools: CancelKitTools) -> ChatClientRequestSpec:
        return client.prompt().system("You are the kit.").user("Go.").tools(tools)

    @staticmethod
    def _check_cancelled(run: Run, tools: CancelKitTools) -> None:
        """The ending every cancelled turn of a half-done batch gives its listeners."""
        where = f"({run.path}/{run.face})"
        check_turn(run)
        assert run.ended.reason is LoopExitReason.CANCELLED, f"{run.ended!r} {where}"
        finished = {e.call.id: e for e in run.of(ToolFinished)}
        assert set(finished) >= {"q1", "b1"}, f"calls without ToolFinished {where}"
        quick, block = finished["q1"], finished["b1"]
        assert (quick.result, quick.error, quick.failure) == ("quick 1", None, None), where
        assert block.failure is ToolFailureKind.CANCELLED, f"{block!r} {where}"
        assert block.error == "CancelledError", f"{block!r} {where}"
        assert block.result.startswith(_CANCELLED_TEXT), f"{block!r} {where}"
        assert tools.cancelled.wait(5), f"the blocked tool was never cancelled {where}"

    # -- finding: what was raised ----------------------------------------------------------

    @_ways
    def test_a_failed_call_names_what_was_raised_and_the_kind_of_failure(
        self, path: str, face: str
    ) -> None:
        """``ToolFinished.error`` is the class raised (``ValueError``, ``KeyError``; for
        failures of ostinato's own, its class) and ``failure`` the kind of failure."""
        batch = tool_call_response(
            tool_call("raises_value", {}, id="v1"),
            tool_call("raises_key", {}, id="k1"),
            tool_call("slow", {}, id="s1"),
            tool_call("quick", {"x": "not a number"}, id="a1"),
            tool_call("teleport", {}, id="t1"),
        )
        client, tools, _ = self._cancel_client([batch, "Noted."])
        run = run_way(path, face, lambda c: self._cancel_spec(c, tools), client)
        assert run.error is None, run.error
        check_turn(run)
        seen = {e.call.id: (e.error, e.failure) for e in run.of(ToolFinished)}
        assert seen["v1"] == ("ValueError", ToolFailureKind.RAISED)
        assert seen["k1"] == ("KeyError", ToolFailureKind.RAISED)
        assert seen["s1"] == ("ToolTimeoutError", ToolFailureKind.TIMED_OUT)
        assert seen["a1"] == ("ToolArgumentsError", ToolFailureKind.BAD_ARGUMENTS)
        assert seen["t1"] == ("ToolNotFoundError", ToolFailureKind.UNKNOWN_TOOL)
        for event in run.of(ToolFinished):
            failure = event.failure
            assert event.to_dict()["failure"] == (None if failure is None else failure.value)
            assert LoopEvent.from_dict(event.to_dict()) == event

    # -- finding: every cancellation ends the turn visibly ---------------------------------

    @_paths
    def test_cancelling_the_task_ends_the_turn_for_listeners(self, path: str) -> None:
        """``task.cancel()`` on an async turn: a cancelled ``ToolFinished`` for the call
        that did not finish and ``LoopEnded(cancelled)`` reach the listener before the
        task ends."""
        client, tools, _ = self._half_done_batch()

        async def main() -> _Ready:
            ready = asyncio.Event()
            loop = asyncio.get_running_loop()

            def wake() -> None:
                loop.call_soon_threadsafe(ready.set)

            listener = _Ready(wake)
            spec = self._cancel_spec(client, tools).listener(listener)

            async def consume() -> None:
                if path == "call":
                    await spec.call().acontent()
                else:
                    async for _ in spec.stream().acontent():
                        pass

            task = asyncio.create_task(consume())
            await ready.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return listener

        listener = asyncio.run(main())
        self._check_cancelled(Run(path, "async", listener.events), tools)

    @_paths
    def test_a_keyboard_interrupt_ends_the_turn_for_listeners(self, path: str) -> None:
        """Ctrl-C (a real SIGINT-like interruption of the main thread) on the sync face:
        the listener hears the ending before the ``KeyboardInterrupt`` reaches the
        caller."""
        if not hasattr(signal, "setitimer") or threading.current_thread() is not (
            threading.main_thread()
        ):
            pytest.skip("needs POSIX interval timers on the main thread")
        client, tools, _ = self._half_done_batch()
        listener = _Ready()
        spec = self._cancel_spec(client, tools).listener(listener)

        def run_to_the_end() -> None:
            if path == "call":
                spec.call().content()
            else:
                for _ in spec.stream().content():
                    pass

        def interrupt(signum: int, frame: object) -> None:
            if not listener.ready.is_set():  # not yet: look again shortly
                signal.setitimer(signal.ITIMER_REAL, 0.02)
                return
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGALRM, interrupt)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.02)
            with pytest.raises(KeyboardInterrupt):
                run_to_the_end()
            heard = list(listener.events)  # what the listener had when the caller knew
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        self._check_cancelled(Run(path, "sync", heard), tools)

    @pytest.mark.parametrize("face", ["sync", "async"])
    def test_leaving_the_events_early_ends_the_turn_for_listeners(self, face: str) -> None:
        """Breaking out of ``stream().events()`` (closing ``aevents()``) cancels the turn,
        and the listener hears its ending before the iterator is closed."""
        client, tools, _ = self._half_done_batch()
        listener = _Ready()
        spec = self._cancel_spec(client, tools).listener(listener)
        if face == "sync":
            for _ in spec.stream().events():
                if listener.ready.is_set():
                    break
        else:

            async def main() -> None:
                events = spec.stream().aevents()
                try:
                    async for _ in events:
                        if listener.ready.is_set():
                            break
                finally:
                    await events.aclose()  # type: ignore[attr-defined]  # an async generator

            asyncio.run(main())
        self._check_cancelled(Run("stream", face, list(listener.events)), tools)

    # -- finding: a cancel scope keeps what finished ----------------------------------------

    @_ways
    def test_a_cancel_scope_keeps_finished_results_and_ends_every_call(
        self, path: str, face: str
    ) -> None:
        """A scope cancelled amid a batch: the call that finished keeps its result in the
        kept conversation, only the unfinished one is answered as cancelled, and each
        has its ``ToolFinished``."""
        from ostinato.runtime import CancelScope

        scope = CancelScope()
        client, tools, kept = self._half_done_batch()
        listener = _Ready(lambda: scope.cancel("stop"))

        def spec(c: ChatClient) -> ChatClientRequestSpec:
            return self._cancel_spec(c, tools).cancel_scope(scope).listener(listener)

        run = run_way(path, face, spec, client)
        assert run.error is None, run.error
        self._check_cancelled(Run(path, face, list(listener.events)), tools)
        assert run.ended.reason is LoopExitReason.CANCELLED
        [ending] = [e for e in kept.endings if e.reason is LoopExitReason.CANCELLED]
        assert ending.tool_responses is not None
        answered = {r.id: r.response_data for r in ending.tool_responses.responses}
        assert answered["q1"] == "quick 1", answered
        assert answered["b1"].startswith(_CANCELLED_TEXT), answered
