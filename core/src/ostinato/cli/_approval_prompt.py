"""``ostinato chat --approve``: ask on the terminal before each tool call runs.

For every call the model asks for, the prompt shows the call and reads one answer:
``y`` runs it, ``n`` denies it and asks why (the model is told the user declined, and
the reason typed, if any), ``e`` asks for new arguments as a JSON object and runs the
call with them. End of input denies. A denial is shown like the tool lines:
``✗ name(arguments) denied: reason`` (the turn's listener prints it, from the call's
``ToolFinished``). The
question goes to stderr and the answer is read from stdin, on ostinato's tool thread
pool, so the event loop (and a cancelled turn) is never blocked by the terminal; on a
terminal, a question whose turn was cancelled (Ctrl-C) stops waiting, so the next line
typed goes to the chat prompt, not to the abandoned question.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from ostinato.cli._terminal import format_call
from ostinato.tools import ApprovalDecision, ApprovalRequest

if TYPE_CHECKING:
    from ostinato.cli._terminal import TerminalRenderer

__all__ = ["DECLINED", "TerminalApprover", "approve_every_call"]

_QUESTION = "approve {call}? [y]es / [n]o / [e]dit: "
_ARGUMENTS = "arguments (a JSON object): "
_REASON = "why (told to the model; Enter for no reason): "
#: The start of the reason of a call the user denied (the model reads it).
DECLINED = "the user declined this call"


def approve_every_call(call: object, tool: object) -> bool:
    """The approval policy of ``--approve``: every call waits for a decision."""
    return True


class TerminalApprover:
    """An approver asking on the terminal (see the module).

    Args:
        renderer: the turn's renderer (its progress indicator stops while asking).
        inp: where answers are read.
        err: where questions are written.
    """

    def __init__(self, renderer: TerminalRenderer, inp: TextIO, err: TextIO) -> None:
        self._renderer = renderer
        self._in = inp
        self._err = err

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        """Ask about ``request`` and return the answer as a decision."""
        from ostinato.runtime import run_in_tool_thread

        self._renderer.stop()
        given_up = _GiveUp()
        try:
            # A denial is shown by the turn's listener, from the call's ToolFinished.
            return await run_in_tool_thread(self._ask, request, given_up)
        except BaseException:
            given_up.set()  # cancelled (Ctrl-C): the reading thread stops reading
            raise

    def _read(self, question: str, given_up: _GiveUp) -> str | None:
        self._err.write(question)
        self._err.flush()
        if not _wait_for_line(self._in, given_up):
            raise _GivenUp
        line = self._in.readline()
        return None if not line else line.strip()

    def _ask(self, request: ApprovalRequest, given_up: _GiveUp) -> ApprovalDecision:
        try:
            return self._answer(request, given_up)
        except _GivenUp:
            return ApprovalDecision.deny("the question was given up (the turn was cancelled)")
        finally:
            given_up.release()  # in this thread: no select waits on its pipe any more

    def _answer(self, request: ApprovalRequest, given_up: _GiveUp) -> ApprovalDecision:
        read = functools.partial(self._read, given_up=given_up)
        call = format_call(request.call.name, request.call.arguments)
        while True:
            answer = read(_QUESTION.format(call=call))
            if answer is None:
                return ApprovalDecision.deny("no answer from the user (end of input)")
            choice = answer.lower()[:1]
            if choice == "y":
                return ApprovalDecision.approve()
            if choice == "n":
                reason = read(_REASON)
                return ApprovalDecision.deny(f"{DECLINED}: {reason}" if reason else DECLINED)
            if choice == "e":
                edited = self._edit(read)
                if edited is not None:
                    return edited

    def _edit(self, read: Callable[[str], str | None]) -> ApprovalDecision | None:
        while True:
            text = read(_ARGUMENTS)
            if text is None:
                return None
            try:
                arguments = json.loads(text)
            except ValueError as e:
                self._err.write(f"not JSON ({e}); try again\n")
                continue
            if isinstance(arguments, dict):
                return ApprovalDecision.edit(arguments)
            self._err.write('the arguments must be a JSON object, e.g. {"city": "Lyon"}\n')


class _GivenUp(Exception):
    """The turn asking was cancelled while its question waited for a line."""


class _GiveUp:
    """Tells a question's reading thread to stop waiting: a flag, and a pipe whose
    read end wakes the thread's ``select`` at once (POSIX). The thread makes the pipe
    (:meth:`wake_fd`) and closes it (:meth:`release`); :meth:`set` writes to it under
    the same lock, so it never writes to a closed or reused descriptor."""

    def __init__(self) -> None:
        self._set = threading.Event()
        self._lock = threading.Lock()
        self._pipe: tuple[int, int] | None = None

    def wake_fd(self) -> int | None:
        """The descriptor that becomes readable when the question is given up."""
        with self._lock:
            if self._pipe is None and not self._set.is_set():
                self._pipe = os.pipe()
            return None if self._pipe is None else self._pipe[0]

    def set(self) -> None:
        """Give the question up."""
        with self._lock:
            self._set.set()
            if self._pipe is not None:
                os.write(self._pipe[1], b"x")

    def is_set(self) -> bool:
        """Whether the question was given up."""
        return self._set.is_set()

    def release(self) -> None:
        """Close the pipe; called by the reading thread once it waits no more."""
        with self._lock:
            self._set.set()
            pipe, self._pipe = self._pipe, None
        if pipe is not None:
            os.close(pipe[0])
            os.close(pipe[1])


def _wait_for_line(inp: TextIO, given_up: _GiveUp) -> bool:
    """Wait until a line can be read from ``inp`` without blocking, or the question is
    given up (``False``). On a terminal the wait is a ``select`` that also watches the
    question's wake-up pipe, so a question given up (its turn cancelled by Ctrl-C) stops
    waiting at once and the next line typed goes to whoever reads next (the chat
    prompt); elsewhere (a pipe, a file, Windows) the line is read at once."""
    import select
    import sys

    try:
        terminal = sys.platform != "win32" and inp.isatty()
        fd = inp.fileno() if terminal else -1
    except (AttributeError, OSError, ValueError):
        terminal = False
    if not terminal:
        return not given_up.is_set()
    wake = given_up.wake_fd()
    if wake is None:
        return False
    while not given_up.is_set():
        try:
            ready, _, _ = select.select([fd, wake], [], [], 1.0)
        except (OSError, ValueError):  # the terminal went away
            return False
        if fd in ready and not given_up.is_set():
            return True
    return False
