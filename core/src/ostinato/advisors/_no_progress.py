"""No-progress detection: the model asking for the same tool call round after round.

Off unless the application turns it on: every call the model asks for runs by default.
A call's *key* is its tool name and its arguments (JSON, keys sorted). A key asked for in
``repeats`` consecutive tool rounds is no progress. The loop then either
*tells* the model — the call does not run again; its response is "you already called
...; its result was ..." with the last real result — or *ends* the turn with reason
``no_progress``. Telling works by handing the tool calling manager, for that round, a
stand-in for each repeated tool that answers the repeated arguments itself and runs the
tool for any others, so limits, order, concurrency and tool events stay the manager's.
This module must not know the loop beyond the calls and results it is given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from ostinato.messages import AssistantMessage, ToolCall, ToolResponseMessage
from ostinato.model import ChatGenerationMetadata, ChatResponse, FinishReason, Generation
from ostinato.tools import ToolCallback, ToolContext, ToolDefinition, ToolMetadata

__all__ = [
    "NoProgress",
    "NoProgressAction",
    "NoProgressTracker",
    "RepeatedCallAnswerer",
    "call_key",
    "no_progress_action",
    "no_progress_answer",
    "told_callbacks",
]


class NoProgressAction(StrEnum):
    """What the loop does with a call repeated without progress."""

    TELL = "tell"
    """Answer the call with its earlier result instead of running it again (the action
    when only ``no_progress_repeats`` is given)."""
    END = "end"
    """End the turn with reason ``no_progress``."""


def no_progress_action(value: NoProgressAction | str) -> NoProgressAction:
    """``value`` as a :class:`NoProgressAction`.

    Raises:
        ValueError: ``value`` is none of the actions (the message lists them).
    """
    try:
        return NoProgressAction(value)
    except ValueError:
        raise ValueError(
            f"no_progress_action must be one of "
            f"{', '.join(repr(a.value) for a in NoProgressAction)}; got {value!r}"
        ) from None


# One encoder for every key: ``json.dumps`` with options builds a new one per call.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def call_key(call: ToolCall) -> tuple[str, str]:
    """``(name, arguments)`` with the arguments' JSON normalised (keys sorted)."""
    text = call.arguments.strip() if call.arguments else ""
    try:
        parsed = json.loads(text or "{}")
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return call.name, text  # such arguments compare as written
    return call.name, _CANONICAL.encode(parsed)


@dataclass(frozen=True, slots=True)
class NoProgress:
    """Calls of the current round repeated ``repeats`` times in a row."""

    calls: tuple[ToolCall, ...]
    repeats: int
    told: Mapping[tuple[str, str], str]

    @property
    def message(self) -> str:
        """The answer of a turn ended for no progress."""
        names = ", ".join(sorted({c.name for c in self.calls}))
        return (
            f"Stopped: the model asked for {names} with the same arguments {self.repeats} "
            "times in a row without progress. Give the model what it lacks, or raise "
            "no_progress_repeats (OSTINATO_TOOLS__NO_PROGRESS_REPEATS) if repeating is right."
        )


class NoProgressTracker:
    """Counts, per key, the consecutive tool rounds asking for it, and keeps each key's
    last real result."""

    __slots__ = ("_keys", "_results", "_streaks", "repeats")

    def __init__(self, repeats: int) -> None:
        self.repeats = repeats
        self._streaks: dict[tuple[str, str], int] = {}
        self._results: dict[tuple[str, str], str] = {}
        # The calls of the round last observed and their keys, by call id: record()
        # needs them again (a dataclass's hash would cost more than the lookup saves).
        self._keys: dict[str, tuple[ToolCall, tuple[str, str]]] = {}

    def _key(self, call: ToolCall) -> tuple[str, str]:
        known = self._keys.get(call.id)
        return known[1] if known is not None and known[0] is call else call_key(call)

    def observe(self, calls: Sequence[ToolCall]) -> NoProgress | None:
        """Count this round's ``calls``; the ones repeated ``repeats`` times, if any."""
        keys = [call_key(c) for c in calls]
        self._keys = {c.id: (c, k) for c, k in zip(calls, keys, strict=True)}
        streaks = self._streaks
        self._streaks = streaks = {k: streaks.get(k, 0) + 1 for k in set(keys)}
        repeats = self.repeats
        found = [(c, k) for c, k in zip(calls, keys, strict=True) if streaks[k] >= repeats]
        if not found:
            return None
        told = {k: _told_text(c, streaks[k] - 1, self._results.get(k)) for c, k in found}
        return NoProgress(tuple(c for c, _ in found), repeats, told)

    def record(self, calls: Iterable[ToolCall], responses: ToolResponseMessage | None) -> None:
        """Keep the results of the calls that really ran (not the ones told)."""
        if responses is None:
            return
        by_id = {r.id: r.response_data for r in responses.responses}
        for call in calls:
            if call.id in by_id:
                self._results[self._key(call)] = by_id[call.id]


def _told_text(call: ToolCall, times: int, result: str | None) -> str:
    said = f"its result was: {result}" if result is not None else "it gave no result"
    return (
        f"You already called {call.name} with these arguments ({call.arguments or '{}'}) "
        f"{times} time{'s' if times != 1 else ''} in a row; {said}. Calling it again will "
        "not change that: use this result, or try something else."
    )


class RepeatedCallAnswerer:
    """Stands in for a tool whose repeated calls are told, not run: a repeated call gets
    the told text, any other call runs the tool."""

    __slots__ = ("_told", "_tool")

    def __init__(self, tool: ToolCallback, told: Mapping[tuple[str, str], str]) -> None:
        self._tool = tool
        self._told = told

    @property
    def tool_definition(self) -> ToolDefinition:
        """The tool's definition."""
        return self._tool.tool_definition

    @property
    def tool_metadata(self) -> ToolMetadata:
        """The tool's metadata, never return-direct (a told call goes back to the model)."""
        return replace(self._tool.tool_metadata, return_direct=False)

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """The told text for repeated arguments; otherwise the tool's result."""
        key = call_key(ToolCall("", self._tool.tool_definition.name, arguments))
        told = self._told.get(key)
        if told is not None:
            return told
        return await self._tool.call(arguments, context)


def told_callbacks(
    callbacks: Sequence[ToolCallback], found: NoProgress
) -> tuple[ToolCallback, ...]:
    """``callbacks`` with each tool of a repeated call replaced by its stand-in."""
    names = {c.name for c in found.calls}
    return tuple(
        RepeatedCallAnswerer(cb, found.told) if cb.tool_definition.name in names else cb
        for cb in callbacks
    )


def no_progress_answer(response: ChatResponse, found: NoProgress) -> ChatResponse:
    """``response`` with one generation saying the turn stopped for no progress."""
    metadata = ChatGenerationMetadata(finish_reason=FinishReason.NO_PROGRESS)
    return response.copy(generations=[Generation(AssistantMessage(found.message), metadata)])
