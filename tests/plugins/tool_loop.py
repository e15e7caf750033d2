"""The tool-loop scenarios every HTTP adapter plays end to end, and what each one checks.

Each adapter describes, in its own ``tool_loop`` module, a :class:`ToolLoop`: how to serve
its recorded exchanges on a loopback server, how to build its model pointed at it, and one
:class:`Scenario` per face (sync and async, call and stream): the checks of what came back
and of what reached the server, decorated with :func:`scenario` naming the recordings
replayed in order and the prompt asked.
``tests/plugins/test_tool_loop_end_to_end.py`` runs every scenario for every adapter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ostinato import ChatClient
from ostinato.client import ChatClientRequestSpec
from ostinato.http import HttpxChatModel
from tests.fakes.loopback import LoopbackServer

__all__ = ["Scenario", "ToolLoop", "asking", "scenario"]


@dataclass(frozen=True)
class Scenario:
    """One round trip of the tool loop: the model's tool call, then its answer."""

    #: The recorded exchanges the server replays, in order.
    recordings: tuple[str, ...]
    #: The prompt, its tools included, asked of a client on the adapter's model.
    ask: Callable[[ChatClient], ChatClientRequestSpec]
    #: The adapter's checks of the server and of what came back (answer, pieces, response).
    check: Callable[[LoopbackServer, Any], None] | None = None
    #: The prompt and completion tokens of both rounds, summed on the final response.
    usage: tuple[int, int] | None = None
    #: How the final answer's text starts (a call face's answer).
    starts: str | None = None
    #: Whether the requests are checked with the adapter's ``check_followup`` against the
    #: last recording (the recorded follow-up).
    followup: bool = False


@dataclass(frozen=True)
class ToolLoop:
    """One adapter's tool-loop scenarios over real sockets."""

    name: str
    served: Callable[..., LoopbackServer]
    new_model: Callable[[LoopbackServer], HttpxChatModel[Any]]
    call_sync: Scenario
    stream_sync: Scenario
    call_async: Scenario
    stream_async: Scenario
    #: Two tools called in one turn, when the adapter's corpus recorded it.
    parallel_call_sync: Scenario | None = None
    #: Checks a call's requests, the follow-up exactly the recorded one of this name.
    check_followup: Callable[[LoopbackServer, str], None] | None = None


def asking(question: str, *tools: Any) -> Callable[[ChatClient], ChatClientRequestSpec]:
    """A scenario's ``ask``: the question, with these tools."""

    def ask(client: ChatClient) -> ChatClientRequestSpec:
        return client.prompt(question).tools(*tools)

    return ask


def scenario(
    *recordings: str,
    ask: Callable[[ChatClient], ChatClientRequestSpec],
    usage: tuple[int, int] | None = None,
    starts: str | None = None,
    followup: bool = False,
) -> Callable[[Callable[[LoopbackServer, Any], None]], Scenario]:
    """Makes the decorated checks a :class:`Scenario` replaying ``recordings``."""

    def decorate(check: Callable[[LoopbackServer, Any], None]) -> Scenario:
        return Scenario(recordings, ask, check, usage, starts, followup)

    return decorate
