"""What a session shows the model: its log, compacted, as whole turns. Pure functions.

A log's summaries stand for the ranges they cover: a summary hides the entries in its
range and takes the place of the first of them; a newer summary whose range holds an
older one's (recursive summarization) hides that one too. What is left is cut into
*blocks* — a summary, or a whole turn: the entries from one that starts with a user
message up to the next one (inside the tool loop a turn is several entries, one per tool
round, and a tool call and its results are always in one entry). Compaction strategies
keep or fold whole blocks, so they never split a turn, nor a tool call from its result.

Token counts are estimated when the model's provider gives no counter
(:func:`estimate_tokens`): about four characters per token, plus four tokens per
message for its role and framing, and 256 per media item.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from ostinato.memory import EntryKind, SessionEntry
from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "SUMMARY_METADATA",
    "Block",
    "TokenCounter",
    "estimate_tokens",
    "session_blocks",
    "summary_message",
]

#: Characters per token in the estimate.
CHARS_PER_TOKEN: Final = 4
#: Tokens per message in the estimate (role, separators).
TOKENS_PER_MESSAGE: Final = 4
#: Tokens per media item in the estimate.
TOKENS_PER_MEDIA: Final = 256
#: Metadata key marking a summary message (its value: the covered range).
SUMMARY_METADATA: Final = "ostinato.session.summary"

TokenCounter = Callable[[Sequence[Message]], int]
"""Tokens ``messages`` take in a request to a model (one counter per model)."""


def estimate_tokens(messages: Sequence[Message]) -> int:
    """The estimate used when no counter is given: ``ceil(characters / 4)`` of each
    message's text, tool calls and tool results, plus 4 per message and 256 per media."""
    total = 0
    for message in messages:
        chars = len(message.text or "")
        media = 0
        if isinstance(message, AssistantMessage):
            chars += sum(len(c.name) + len(c.arguments) + len(c.id) for c in message.tool_calls)
        if isinstance(message, ToolResponseMessage):
            chars += sum(len(r.name) + len(r.response_data) + len(r.id) for r in message.responses)
        if isinstance(message, UserMessage | AssistantMessage):
            media = len(message.media)
        total += TOKENS_PER_MESSAGE + math.ceil(chars / CHARS_PER_TOKEN) + media * TOKENS_PER_MEDIA
    return total


def summary_message(text: str, start: int, end: int) -> SystemMessage:
    """The message a summary entry holds: ``text`` as a system message naming its range."""
    return SystemMessage(
        f"Summary of the earlier conversation:\n{text}",
        metadata={SUMMARY_METADATA: [start, end]},
    )


@dataclass(frozen=True, slots=True)
class Block:
    """A summary, or a whole turn: what compaction keeps or folds as one.

    Attributes:
        entries: its entries, oldest first (one for a summary).
        start: the first position it stands for (a summary: the start of its range).
        end: the position after the last one it stands for.
    """

    entries: tuple[SessionEntry, ...]
    start: int
    end: int

    @property
    def is_summary(self) -> bool:
        """Whether it is a summary."""
        return self.entries[0].kind is EntryKind.SUMMARY

    @property
    def messages(self) -> list[Message]:
        """Its messages, oldest first."""
        return [m for entry in self.entries for m in entry.messages]


def _starts_turn(entry: SessionEntry) -> bool:
    first = next((m for m in entry.messages if not isinstance(m, SystemMessage)), None)
    return isinstance(first, UserMessage)


def _active_summaries(entries: Sequence[SessionEntry]) -> list[SessionEntry]:
    active: list[SessionEntry] = []
    for entry in entries:  # oldest first: a newer summary hides those inside its range
        if entry.kind is not EntryKind.SUMMARY or entry.covers is None:
            continue
        start, end = entry.covers
        active = [
            s
            for s in active
            if s.covers is not None and not (start <= s.covers[0] and s.covers[1] <= end)
        ]
        active.append(entry)
    return active


def session_blocks(entries: Sequence[SessionEntry]) -> list[Block]:
    """The blocks of a log's ``entries`` (oldest first): summaries in place of what they
    cover, the other entries grouped into whole turns; branch markers show nothing."""
    summaries = _active_summaries(entries)
    ranges = [s.covers for s in summaries if s.covers is not None]

    def hidden(position: int) -> bool:
        return any(start <= position < end for start, end in ranges)

    items: list[tuple[int, SessionEntry]] = [(s.covers[0], s) for s in summaries if s.covers]
    items += [
        (e.position, e)
        for e in entries
        if e.kind is EntryKind.TURN and e.messages and not hidden(e.position)
    ]
    items.sort(key=lambda item: (item[0], item[1].kind is not EntryKind.SUMMARY))
    blocks: list[Block] = []
    turn: list[SessionEntry] = []

    def close_turn() -> None:
        if turn:
            blocks.append(Block(tuple(turn), turn[0].position, turn[-1].position + 1))
            turn.clear()

    for _, entry in items:
        if entry.kind is EntryKind.SUMMARY and entry.covers is not None:
            close_turn()
            blocks.append(Block((entry,), entry.covers[0], entry.covers[1]))
        else:
            if _starts_turn(entry):
                close_turn()
            turn.append(entry)
    close_turn()
    return blocks
