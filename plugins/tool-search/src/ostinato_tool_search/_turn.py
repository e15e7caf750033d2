"""One turn's tool-search state, and which tools the model has found so far.

The state rides in the advisor context under :data:`TURN_CONTEXT_KEY`, so every round of
the turn (and nothing else) shares it. The tools found are read from the
``toolSearchTool`` answers among the messages a round forwards.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from ostinato.messages import Message, ToolResponseMessage
from ostinato.tools import ToolCallback
from ostinato_tool_search._search_tool import SEARCH_TOOL_NAME

__all__ = ["TURN_CONTEXT_KEY", "ToolSearchTurn", "names_in"]

#: Advisor-context key holding the turn's :class:`ToolSearchTurn` (removed from responses).
TURN_CONTEXT_KEY: Final = "ostinato.tool_search.turn"

_SEARCH_NAME_FOLDED: Final = SEARCH_TOOL_NAME.lower()


def names_in(answer: str) -> list[str]:
    """The tool names in a ``toolSearchTool`` answer; none if it is not a JSON list."""
    try:
        data = json.loads(answer)
    except (TypeError, ValueError):
        return []
    return [n for n in data if isinstance(n, str)] if isinstance(data, list) else []


@dataclass(eq=False, repr=False, slots=True)
class ToolSearchTurn:
    """What the tool-search advisor knows during one turn.

    Attributes:
        session_id: the index session searched (the conversation id, or the turn's own).
        ephemeral: the session belongs to this turn alone and is dropped at its end.
        callbacks: every tool attached to the request, by name (the first of a name wins).
        found: the names found so far, in the order found (kept when accumulating).
    """

    session_id: str
    ephemeral: bool
    callbacks: Mapping[str, ToolCallback]
    found: list[str] = field(default_factory=list)

    def discover(self, messages: Sequence[Message], *, accumulate: bool) -> list[str]:
        """The attached tools named by ``toolSearchTool`` answers in ``messages``.

        With ``accumulate``: every answer, after the names found in earlier rounds (which
        are remembered); without: only the last message holding answers (all of its
        parallel answers). Names of tools not attached are left out.
        """
        answers: list[list[str]] = []
        for message in messages:
            if isinstance(message, ToolResponseMessage):
                texts = [
                    r.response_data
                    for r in message.responses
                    if r.name.lower() == _SEARCH_NAME_FOLDED
                ]
                if texts:
                    answers.append(texts)
        names: list[str] = list(self.found) if accumulate else []
        for texts in answers if accumulate else answers[-1:]:
            for text in texts:
                names.extend(names_in(text))
        found = [name for name in dict.fromkeys(names) if name in self.callbacks]
        if accumulate:
            self.found[:] = found
        return found

    def __repr__(self) -> str:
        # Short: it rides in the advisor context, which loggers print.
        return (
            f"ToolSearchTurn(session_id={self.session_id!r}, ephemeral={self.ephemeral}, "
            f"tools={len(self.callbacks)}, found={self.found!r})"
        )
