"""``ostinato chat --approve``: ask on the terminal before each tool call runs.

For every call the model asks for, the prompt shows the call and reads one answer:
``y`` runs it, ``n`` denies it and asks why (the model is told the user declined, and
the reason typed, if any), ``e`` asks for new arguments as a JSON object and runs the
call with them. End of input denies. A denial is shown like the tool lines:
``✗ name(arguments) denied: reason``. The
question goes to stderr and the answer is read from stdin, on ostinato's tool thread
pool, so the event loop (and a cancelled turn) is never blocked by the terminal.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TextIO

from ostinato.cli._terminal import format_call
from ostinato.tools import ApprovalDecision, ApprovalKind, ApprovalRequest

if TYPE_CHECKING:
    from ostinato.cli._terminal import TerminalRenderer

__all__ = ["TerminalApprover", "approve_every_call"]

_QUESTION = "approve {call}? [y]es / [n]o / [e]dit: "
_ARGUMENTS = "arguments (a JSON object): "
_REASON = "why (told to the model; Enter for no reason): "
_DECLINED = "the user declined this call"


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
        decision = await run_in_tool_thread(self._ask, request)
        if decision.kind is ApprovalKind.DENY:
            reason = decision.reason or ""
            shown = reason.removeprefix(_DECLINED).removeprefix(": ")
            self._renderer.denied(request.call.name, request.call.arguments, shown or None)
        return decision

    def _read(self, question: str) -> str | None:
        self._err.write(question)
        self._err.flush()
        line = self._in.readline()
        return None if not line else line.strip()

    def _ask(self, request: ApprovalRequest) -> ApprovalDecision:
        call = format_call(request.call.name, request.call.arguments)
        while True:
            answer = self._read(_QUESTION.format(call=call))
            if answer is None:
                return ApprovalDecision.deny("no answer from the user (end of input)")
            choice = answer.lower()[:1]
            if choice == "y":
                return ApprovalDecision.approve()
            if choice == "n":
                reason = self._read(_REASON)
                return ApprovalDecision.deny(f"{_DECLINED}: {reason}" if reason else _DECLINED)
            if choice == "e":
                edited = self._edit()
                if edited is not None:
                    return edited

    def _edit(self) -> ApprovalDecision | None:
        while True:
            text = self._read(_ARGUMENTS)
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
