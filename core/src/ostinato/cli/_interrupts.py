"""Ctrl-C (SIGINT) in the interactive ``ostinato chat`` session.

A session is, at every moment, in one of three places, and a press means one thing in
each:

* **at the prompt** (``input()`` waiting for a line): the handler raises
  ``KeyboardInterrupt``, the only way to make readline give up the line; the session
  clears the line and says how to quit.
* **in a turn** (the event loop running it): ``loop.add_signal_handler`` routes the
  signal through the loop's wakeup file descriptor, so a press wakes the loop even if it
  arrives just before the loop blocks; the first press cancels the turn, later presses
  while it unwinds do nothing (its cleanup runs to the end).
* **anywhere else** (reporting a turn, reading a command, before the first prompt): the
  handler only notes the press, and the next prompt acts on it as on a press at the
  prompt; a press noted between the line being read and the turn starting cancels that
  turn. No ``KeyboardInterrupt`` ever lands on those lines.

Handing the signal from one place to the next happens with SIGINT blocked, so no press
falls between two handlers. One gap is readline's: a press landing in the microseconds
between the prompt being written and readline waiting for a key is seen only when
readline returns a line, and then the line is kept; a person cannot press that fast.
This module must not print: the session decides what a press shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Coroutine, Iterator
from types import FrameType
from typing import Any, TypeVar

__all__ = ["SessionInterrupts", "TurnInterrupted"]

T = TypeVar("T")


class TurnInterrupted(Exception):
    """The running turn was cancelled by Ctrl-C."""


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT held back (delivered when unblocked) where the platform can hold it."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class SessionInterrupts:
    """SIGINT handling for one interactive session (see the module); a context manager
    that installs its handler on entry and puts the previous one back on exit."""

    def __init__(self) -> None:
        self._at_prompt = False
        self._pressed = False
        self._previous: Any = None

    def __enter__(self) -> SessionInterrupts:
        with _sigint_blocked():
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
        return self

    def __exit__(self, *exc: object) -> None:
        with _sigint_blocked():
            signal.signal(signal.SIGINT, self._previous)

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self._at_prompt:
            self._at_prompt = False  # one press, one interrupt
            raise KeyboardInterrupt
        self._pressed = True

    def take_press(self) -> bool:
        """Whether Ctrl-C was pressed since the last call, outside the prompt and turns."""
        pressed, self._pressed = self._pressed, False
        return pressed

    def read_line(self, read: Callable[[], str]) -> str:
        """``read()`` at the prompt: a press raises ``KeyboardInterrupt`` there, and a
        press noted since the last prompt raises it before ``read`` is called.

        Raises:
            KeyboardInterrupt: Ctrl-C was pressed at the prompt, or before it.
            EOFError: from ``read`` (Ctrl-D).
        """
        try:
            self._at_prompt = True
            if self.take_press():
                raise KeyboardInterrupt
            return read()
        finally:
            self._at_prompt = False

    def run_turn(self, runner: asyncio.Runner, turn: Coroutine[Any, Any, T]) -> T:
        """Run ``turn`` on ``runner``, cancelled by the first Ctrl-C.

        Raises:
            TurnInterrupted: Ctrl-C cancelled the turn (also when pressed after the line
                was read, before the turn started).
        """
        return runner.run(self._guarded(turn))

    async def _guarded(self, turn: Coroutine[Any, Any, T]) -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        cancelled = False

        def cancel() -> None:
            nonlocal cancelled
            if not cancelled:  # later presses: the turn is already unwinding
                cancelled = True
                task.cancel()

        restore = self._route_to(loop, cancel)
        try:
            if self.take_press():  # pressed after Enter, before the turn began
                turn.close()
                raise TurnInterrupted
            return await turn
        except asyncio.CancelledError:
            if not cancelled:
                raise
            task.uncancel()
            raise TurnInterrupted from None
        finally:
            restore()

    def _route_to(
        self, loop: asyncio.AbstractEventLoop, cancel: Callable[[], None]
    ) -> Callable[[], None]:
        """Route SIGINT to ``cancel`` on ``loop``; the function that routes it back here."""
        with _sigint_blocked():
            try:
                loop.add_signal_handler(signal.SIGINT, cancel)
            except (NotImplementedError, RuntimeError):  # no loop signal handlers (Windows)
                signal.signal(signal.SIGINT, lambda *_: loop.call_soon_threadsafe(cancel))

        def restore() -> None:
            with _sigint_blocked():
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(signal.SIGINT)
                signal.signal(signal.SIGINT, self._on_sigint)

        return restore
