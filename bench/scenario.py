"""The benchmark conversation, named by the model name, shared by the server and the clients.

``bench-k3-p2`` means: the model asks for 2 parallel calls of the tool ``add(a, b)`` in each
of 3 rounds, then answers with text. ``-s100`` switches the tool to ``nap(ms=100)`` (a tool
sleeping 100 ms), for the tool-batch concurrency measurement; ``-w`` streams many small
events (the answer word by word, each tool's arguments in fragments of a few characters),
as a real model streams its tokens; ``-t20`` paces those events 20 ms apart, as a real
model's tokens arrive (the early-start measurement). The server is stateless: it
works out which round a request belongs to from the messages after the last user message,
so any number of conversations can run at once.

Both sides derive everything from :class:`Scenario`: the arguments of each call, the
result the tool must return, and the final answer, which depends on every tool result the
server received — a client whose loop skipped or garbled a tool cannot produce it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["QUESTION", "Scenario", "history_messages", "tool_result_matches"]

_NAME = re.compile(r"^bench-k(?P<k>\d+)-p(?P<p>\d+)(?:-s(?P<s>\d+))?(?P<w>-w)?(?:-t(?P<t>\d+))?$")


@dataclass(frozen=True, slots=True)
class Scenario:
    """One benchmark conversation.

    Attributes:
        rounds: how many tool rounds before the answer (``k``).
        parallel: how many tool calls per round (``p``).
        sleep_ms: when set, the calls are ``nap(ms=sleep_ms)`` instead of ``add(a, b)``.
        fine: streamed replies carry one event per word or argument fragment.
        pace_ms: milliseconds between two streamed events (0: all at once).
    """

    rounds: int
    parallel: int
    sleep_ms: int | None = None
    fine: bool = False
    pace_ms: int = 0

    @classmethod
    def parse(cls, model: str) -> Scenario:
        """The scenario a model name describes.

        Raises:
            ValueError: the name is not ``bench-k<rounds>-p<parallel>[-s<ms>]``.
        """
        match = _NAME.match(model)
        if match is None:
            raise ValueError(
                f"unknown benchmark model {model!r}; expected bench-k<rounds>-p<parallel>"
                "[-s<sleep ms>][-w], e.g. bench-k3-p2"
            )
        sleep = match.group("s")
        pace = match.group("t")
        return cls(
            int(match.group("k")),
            int(match.group("p")),
            int(sleep) if sleep else None,
            fine=match.group("w") is not None or pace is not None,
            pace_ms=int(pace) if pace else 0,
        )

    @property
    def model(self) -> str:
        """The model name that selects this scenario."""
        suffix = f"-s{self.sleep_ms}" if self.sleep_ms is not None else ""
        suffix += "-w" if self.fine and not self.pace_ms else ""
        suffix += f"-t{self.pace_ms}" if self.pace_ms else ""
        return f"bench-k{self.rounds}-p{self.parallel}{suffix}"

    @property
    def model_calls(self) -> int:
        """Model requests per conversation: one per tool round, plus the answer."""
        return self.rounds + 1

    @property
    def tool_calls(self) -> int:
        """Tool executions per conversation."""
        return self.rounds * self.parallel

    @property
    def tool_name(self) -> str:
        """``add`` or ``nap``."""
        return "add" if self.sleep_ms is None else "nap"

    def call_id(self, round_index: int, position: int) -> str:
        """The id of call ``position`` of round ``round_index`` (both from 0)."""
        return f"call_{round_index}_{position}"

    def arguments(self, round_index: int, position: int) -> dict[str, int]:
        """The arguments the model sends for one call."""
        if self.sleep_ms is not None:  # paced: the calls of a round sleep ..., ms+25, ms
            extra = 25 * (self.parallel - 1 - position) if self.pace_ms else 0
            return {"ms": self.sleep_ms + extra}
        return {"a": 10 * round_index + position, "b": position + 1}

    def result(self, round_index: int, position: int) -> int:
        """What the tool returns for that call (``add``: the sum; ``nap``: the ms slept)."""
        args = self.arguments(round_index, position)
        return args["ms"] if "ms" in args else args["a"] + args["b"]

    def answer(self) -> str:
        """The final text, which folds in every expected tool result."""
        total = sum(self.result(r, i) for r in range(self.rounds) for i in range(self.parallel))
        return f"All {self.tool_calls} tool results received; their total is {total}."


def history_messages(count: int) -> list[tuple[str, str]]:
    """``count`` earlier messages as ``(role, text)`` pairs, user and assistant in turn.

    Used to measure the cost of an iteration as the history grows; they end with an
    assistant message, so the benchmark's own user message follows naturally.
    """
    pairs: list[tuple[str, str]] = []
    for i in range(count):
        if i % 2 == 0:
            pairs.append(("user", f"Earlier question number {i // 2}: what is {i} plus {i}?"))
        else:
            pairs.append(("assistant", f"Earlier answer number {i // 2}: it is {2 * (i - 1)}."))
    return pairs


#: The user message every conversation starts with.
QUESTION = "Add the numbers the way the tools tell you, then give me the total."


def tool_result_matches(content: Any, expected: int) -> bool:
    """Whether a tool message's content is the expected number (as text or JSON)."""
    if isinstance(content, list):  # content parts
        content = "".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content
        )
    text = str(content).strip().strip('"')
    return text == str(expected)
