"""Compaction strategies: what of a long session the model sees, and when it is summarized.

A strategy works on :class:`~ostinato_memory._session_view.Block` values — summaries and
whole turns — so it never splits a turn, nor a tool call from its result. Two things a
strategy may do:

* :meth:`CompactionStrategy.select`: choose, at read time, the blocks the model sees
  (nothing is written): :class:`LastTurns`, :class:`TokenBudget`.
* :meth:`CompactionStrategy.plan`: after a turn, name the oldest blocks to fold into one
  new summary, which is *appended* to the log covering their range:
  :class:`SummarizeOlderTurns`. The blocks folded may hold an earlier summary, so
  summaries are recursive (a summary of summaries).

Strategies apply in order: each ``select`` sees what the one before kept; the first
``plan`` that names blocks wins.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Protocol, runtime_checkable

from ostinato.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResponseMessage,
    UserMessage,
)
from ostinato.model import ChatModel
from ostinato.prompt import Prompt
from ostinato_memory._session_view import Block, TokenCounter, estimate_tokens

__all__ = [
    "DEFAULT_SUMMARY_INSTRUCTIONS",
    "ChatModelSummarizer",
    "CompactionStrategy",
    "LastTurns",
    "SummarizeOlderTurns",
    "Summarizer",
    "TokenBudget",
    "transcript",
]

#: What :class:`ChatModelSummarizer` asks the model.
DEFAULT_SUMMARY_INSTRUCTIONS: Final = (
    "Summarize the conversation below for the assistant that continues it. Keep every "
    "fact, name, number, decision and open question; drop pleasantries. If it starts with "
    "an earlier summary, fold that summary in. Answer with the summary only."
)


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return value


def _turns(blocks: Sequence[Block]) -> int:
    return sum(1 for block in blocks if not block.is_summary)


class CompactionStrategy:
    """A compaction strategy (this base keeps everything and never summarizes)."""

    __slots__ = ()

    def select(self, blocks: list[Block]) -> list[Block]:
        """The blocks the model sees, oldest first (default: all)."""
        return blocks

    def plan(self, blocks: list[Block]) -> list[Block] | None:
        """The oldest blocks to fold into a new summary, or ``None`` (default)."""
        return None

    @property
    def summarizer(self) -> Summarizer | None:
        """What writes the summary :meth:`plan` asks for (``None``: never asks)."""
        return None


class LastTurns(CompactionStrategy):
    """Show the model the summaries and the last ``turns`` turns (a sliding window)."""

    __slots__ = ("_turns",)

    def __init__(self, turns: int) -> None:
        self._turns = _positive("turns", turns)

    def select(self, blocks: list[Block]) -> list[Block]:
        """Every summary, and the newest ``turns`` turns."""
        kept: list[Block] = []
        seen = 0
        for block in reversed(blocks):
            if block.is_summary:
                kept.append(block)
            elif seen < self._turns:
                kept.append(block)
                seen += 1
        return kept[::-1]

    def __repr__(self) -> str:
        return f"LastTurns({self._turns})"


class TokenBudget(CompactionStrategy):
    """Show the model the newest blocks that fit in ``max_tokens``, counted by ``counter``
    (the model's own counter; default :func:`~ostinato_memory.estimate_tokens`). The
    budget is the history's: leave room in the model's context for the system prompt, the
    new message, the tool definitions and the answer."""

    __slots__ = ("_counter", "_max_tokens")

    def __init__(self, max_tokens: int, *, counter: TokenCounter = estimate_tokens) -> None:
        self._max_tokens = _positive("max_tokens", max_tokens)
        self._counter = counter

    @property
    def max_tokens(self) -> int:
        """The budget."""
        return self._max_tokens

    def select(self, blocks: list[Block]) -> list[Block]:
        """The newest blocks whose tokens, together, fit the budget."""
        kept: list[Block] = []
        used = 0
        for block in reversed(blocks):
            cost = self._counter(block.messages)
            if used + cost > self._max_tokens:
                break
            kept.append(block)
            used += cost
        return kept[::-1]

    def __repr__(self) -> str:
        return f"TokenBudget({self._max_tokens})"


@runtime_checkable
class Summarizer(Protocol):
    """Writes a summary of messages (an earlier summary among them is folded in)."""

    async def summarize(self, messages: Sequence[Message]) -> str:
        """The summary of ``messages``."""
        ...


def transcript(messages: Sequence[Message]) -> str:
    """``messages`` as plain text, one line per message, tool calls and results included."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, ToolResponseMessage):
            lines += [f"tool {r.name} returned: {r.response_data}" for r in message.responses]
            continue
        role = {SystemMessage: "summary", UserMessage: "user"}.get(type(message), "assistant")
        if message.text:
            lines.append(f"{role}: {message.text}")
        if isinstance(message, AssistantMessage):
            lines += [f"assistant called {c.name}({c.arguments})" for c in message.tool_calls]
    return "\n".join(lines)


class ChatModelSummarizer:
    """A :class:`Summarizer` asking a chat model (one call per summary)."""

    __slots__ = ("_instructions", "_model")

    def __init__(self, model: ChatModel, *, instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS):
        self._model = model
        self._instructions = instructions

    async def summarize(self, messages: Sequence[Message]) -> str:
        """The model's summary of :func:`transcript` of ``messages`` (a model-call unit of
        the current stack, so a durable turn records it: a replay does not ask again)."""
        from ostinato.units import call_model

        prompt = Prompt([SystemMessage(self._instructions), UserMessage(transcript(messages))])
        response = await call_model(self._model, prompt)
        return (response.text or "").strip()


class _FunctionSummarizer:
    __slots__ = ("_function",)

    def __init__(self, function: Callable[[Sequence[Message]], Awaitable[str]]) -> None:
        self._function = function

    async def summarize(self, messages: Sequence[Message]) -> str:
        return await self._function(messages)


class SummarizeOlderTurns(CompactionStrategy):
    """After a turn, fold the older turns into a summary once the session is too long.

    Args:
        summarizer: a :class:`Summarizer`, a chat model (wrapped in
            :class:`ChatModelSummarizer`) or an async function of the messages.
        max_tokens: summarize when what the model would see counts more (by ``counter``).
        max_turns: summarize when it holds more turns than this.
        keep_turns: turns left as they are after summarizing (default 2).
        keep_tokens: at most this many tokens left as they are (default ``max_tokens //
            2`` with ``max_tokens``); older turns are folded even within ``keep_turns``.
        counter: the model's token counter (default the estimate).

    Give ``max_tokens``, ``max_turns`` or both. What is folded is a prefix of the blocks —
    the active summary, if any, and the oldest turns — so each new summary covers the one
    before it (recursive summarization).
    """

    __slots__ = ("_counter", "_keep_tokens", "_keep_turns", "_max_tokens", "_max_turns", "_sum")

    def __init__(
        self,
        summarizer: Summarizer | ChatModel | Callable[[Sequence[Message]], Awaitable[str]],
        *,
        max_tokens: int | None = None,
        max_turns: int | None = None,
        keep_turns: int = 2,
        keep_tokens: int | None = None,
        counter: TokenCounter = estimate_tokens,
    ) -> None:
        if max_tokens is None and max_turns is None:
            raise ValueError("SummarizeOlderTurns needs max_tokens, max_turns or both")
        if isinstance(summarizer, Summarizer):
            self._sum: Summarizer = summarizer
        elif isinstance(summarizer, ChatModel):
            self._sum = ChatModelSummarizer(summarizer)
        elif callable(summarizer):
            self._sum = _FunctionSummarizer(summarizer)
        else:
            raise TypeError(
                f"summarizer must be a Summarizer, a ChatModel or an async function, got "
                f"{type(summarizer).__name__}"
            )
        self._max_tokens = None if max_tokens is None else _positive("max_tokens", max_tokens)
        self._max_turns = None if max_turns is None else _positive("max_turns", max_turns)
        self._keep_turns = _positive("keep_turns", keep_turns)
        if keep_tokens is None and max_tokens is not None:
            keep_tokens = max(max_tokens // 2, 1)
        self._keep_tokens = None if keep_tokens is None else _positive("keep_tokens", keep_tokens)
        self._counter = counter

    @property
    def summarizer(self) -> Summarizer:
        """What writes the summaries."""
        return self._sum

    def _too_long(self, blocks: list[Block]) -> bool:
        if self._max_turns is not None and _turns(blocks) > self._max_turns:
            return True
        if self._max_tokens is not None:
            return sum(self._counter(b.messages) for b in blocks) > self._max_tokens
        return False

    def plan(self, blocks: list[Block]) -> list[Block] | None:
        """The blocks to fold when the session is too long: all but the newest turns that
        fit ``keep_turns`` and ``keep_tokens``; ``None`` when no turn would be folded."""
        if not self._too_long(blocks):
            return None
        kept = 0
        used = 0
        for block in reversed(blocks):
            if block.is_summary:
                break
            cost = self._counter(block.messages)
            if kept >= self._keep_turns or (
                self._keep_tokens is not None and used + cost > self._keep_tokens
            ):
                break
            kept += 1
            used += cost
        fold = blocks[: len(blocks) - kept]
        return fold if _turns(fold) else None

    def __repr__(self) -> str:
        return (
            f"SummarizeOlderTurns(max_tokens={self._max_tokens}, max_turns={self._max_turns}, "
            f"keep_turns={self._keep_turns})"
        )
