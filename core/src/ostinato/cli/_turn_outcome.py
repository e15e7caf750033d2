"""How a turn ended when it did not end with an answer, and its exit code.

A turn whose loop stopped at the iteration cap or another limit, or whose model asked for
tool calls nobody ran (no tool loop), printed nothing or a partial text and exited 0;
now it says what happened on stderr and exits with a code of its own. This module only
decides; it must not print.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ostinato.cli._terminal import format_call
from ostinato.events import LoopExitReason
from ostinato.messages import ToolCall
from ostinato.model import ChatResponse

__all__ = ["EXIT_STOPPED_AT_LIMIT", "EXIT_TOOL_CALLS_NOT_RUN", "turn_outcome"]

#: The loop stopped before an answer: the iteration cap, a usage or tool-call limit, no
#: progress.
EXIT_STOPPED_AT_LIMIT: Final = 3
#: The model asked for tool calls that did not run, and no tool loop ran them.
EXIT_TOOL_CALLS_NOT_RUN: Final = 4

_LIMITS: Final = {
    LoopExitReason.MAX_ITERATIONS: (
        "stopped at the iteration cap",
        "raise OSTINATO_TOOLS__MAX_ITERATIONS, or set OSTINATO_TOOLS__FINAL_ANSWER_ON_LIMIT="
        "true to get a final answer at the cap",
    ),
    LoopExitReason.BUDGET: (
        "stopped at a usage limit of the turn",
        "raise OSTINATO_TOOLS__MAX_MODEL_REQUESTS or OSTINATO_TOOLS__MAX_TOTAL_TOKENS",
    ),
    LoopExitReason.TOOL_CALL_LIMIT: (
        "stopped at a tool-call limit",
        "raise the tool-call limits (`ostinato config` shows them)",
    ),
    LoopExitReason.NO_PROGRESS: (
        "stopped: the model asked for the same tool call again and again",
        "rephrase the question, or raise OSTINATO_TOOLS__NO_PROGRESS_REPEATS",
    ),
}


#: Each usage limit of a turn (``LoopEnded.limit``): what stopped, and what to change.
_USAGE_LIMITS: Final = {
    "model_requests": ("the model-request limit", "raise OSTINATO_TOOLS__MAX_MODEL_REQUESTS"),
    "total_tokens": ("the token limit", "raise OSTINATO_TOOLS__MAX_TOTAL_TOKENS"),
    "tool_calls": ("the tool-call budget", "raise UsageLimits(tool_calls=...) of the client"),
}


def _calls(response: ChatResponse | None) -> list[ToolCall]:
    generation = response.result if response is not None else None
    return list(generation.output.tool_calls) if generation is not None else []


def turn_outcome(
    response: ChatResponse | None,
    ended: LoopExitReason | None,
    rounds: int,
    not_run_in_loop: Sequence[ToolCall] = (),
    limit: str | None = None,
) -> tuple[int, str | None]:
    """The exit code of a turn and, when it did not end with an answer, the message
    saying why (a first line, the calls that did not run, a ``fix:`` line).

    ``not_run_in_loop`` are the calls the loop was asked for and did not run (at the cap
    the answer is a text, not those calls); ``limit`` is the usage limit a ``budget``
    ending reached, named in the message when given.
    """
    calls = list(not_run_in_loop) if ended in _LIMITS else _calls(response)
    not_run = [f"  did not run: {format_call(c.name, c.arguments)}" for c in calls]
    if ended in _LIMITS:
        what, fix = _LIMITS[ended]
        if ended is LoopExitReason.BUDGET and limit in _USAGE_LIMITS:
            which, fix = _USAGE_LIMITS[limit]
            what = f"stopped at {which} of the turn"
        plural = "s" if rounds != 1 else ""
        head = f"{what} after {rounds} model round{plural}, before an answer"
        return EXIT_STOPPED_AT_LIMIT, "\n".join([head, *not_run, f"fix: {fix}"])
    if calls and ended in (None, LoopExitReason.ANSWERED):
        head = (
            f"the model asked for {len(calls)} tool call{'s' if len(calls) != 1 else ''} "
            "that did not run (no tool loop ran them)"
        )
        fix = (
            "offer the tools with --tools and leave the tool loop on "
            "(OSTINATO_CHAT_CLIENT__TOOL_CALLING__ENABLED=true)"
        )
        return EXIT_TOOL_CALLS_NOT_RUN, "\n".join([head, *not_run, f"fix: {fix}"])
    return 0, None
