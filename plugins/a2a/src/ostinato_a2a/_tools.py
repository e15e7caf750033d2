"""Remote A2A agents as tools: :class:`A2AToolset`, two tools per agent.

``<agent>`` sends the remote agent a message and returns its answer. When the remote
task waits for input (``input-required``, an ostinato agent's approval), the result
says so, with the remote agent's question and the task id, and the model answers through
``<agent>_reply``, a tool that always requires approval: the calling turn stops with the
reply as its pending call, and the person deciding approves, edits or denies what is
sent to the remote task. A remote task that fails is a failed tool call.

The remote agent's text is data the model reads as a tool result, never instructions to
ostinato; the remote turn's events and usage come back on each call
(:attr:`A2AToolset.replies` keeps the last ones, and ``on_reply`` hears each).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from ostinato.errors import ToolArgumentsError, ToolExecutionError
from ostinato.tools import ToolContext, ToolDefinition, ToolMetadata
from ostinato_a2a._remote import RemoteAgent, RemoteReply

__all__ = ["A2AAgentTool", "A2AToolset"]

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]+")
_SEND_SCHEMA: Final = json.dumps(
    {
        "type": "object",
        "properties": {"message": {"type": "string", "description": "what to ask the agent"}},
        "required": ["message"],
    }
)
_REPLY_SCHEMA: Final = json.dumps(
    {
        "type": "object",
        "properties": {
            "task_id": {"type": "string", "description": "the waiting task's id"},
            "message": {"type": "string", "description": "the reply, e.g. 'approve'"},
        },
        "required": ["task_id", "message"],
    }
)


def tool_name(name: str) -> str:
    """A tool name from an agent's name (letters, digits, ``_`` and ``-``)."""
    return _UNSAFE.sub("_", name).strip("_").lower() or "agent"


def _arguments(arguments: str, name: str, keys: Sequence[str]) -> dict[str, str]:
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError as exc:
        raise ToolArgumentsError(
            f"invalid arguments for tool '{name}': not JSON ({exc})", tool_name=name
        ) from exc
    if not isinstance(parsed, dict) or not all(isinstance(parsed.get(k), str) for k in keys):
        raise ToolArgumentsError(
            f"invalid arguments for tool '{name}': expected an object with the text(s) "
            f"{', '.join(keys)}, got {arguments!r}",
            tool_name=name,
        )
    return {k: parsed[k] for k in keys}


class A2AAgentTool:
    """One tool of a remote agent: ``<agent>`` (send) or ``<agent>_reply`` (answer a
    waiting task; requires approval)."""

    __slots__ = ("_definition", "_metadata", "agent", "reply", "toolset")

    def __init__(self, toolset: A2AToolset, agent: RemoteAgent, name: str, reply: bool) -> None:
        self.toolset = toolset
        self.agent = agent
        self.reply = reply
        described = toolset.descriptions.get(agent.url, "a remote A2A agent")
        if reply:
            description = (
                f"Answer a task of the agent {name} that waits for input (its question is in "
                "that call's result); the user approves the reply before it is sent."
            )
            self._definition = ToolDefinition(f"{name}_reply", description, _REPLY_SCHEMA)
        else:
            description = f"Ask the remote agent {name}: {described}"
            self._definition = ToolDefinition(name, description, _SEND_SCHEMA)
        self._metadata = ToolMetadata(requires_approval=reply, timeout=agent.timeout)

    @property
    def tool_definition(self) -> ToolDefinition:
        """Name, description and input schema."""
        return self._definition

    @property
    def tool_metadata(self) -> ToolMetadata:
        """The reply tool requires approval; both time out with the agent's timeout."""
        return self._metadata

    async def call(self, arguments: str, context: ToolContext | None = None) -> str:
        """Send the message; the remote agent's answer, or what it waits for.

        Raises:
            ToolArgumentsError: the arguments are not the expected texts.
            ToolExecutionError: the agent could not be reached, or its task failed.
        """
        name = self._definition.name
        keys = ("task_id", "message") if self.reply else ("message",)
        given = _arguments(arguments, name, keys)
        try:
            reply = await self.agent.send(given["message"], task_id=given.get("task_id", ""))
        except Exception as exc:  # the a2a-sdk's errors, httpx's
            raise ToolExecutionError(
                f"the A2A agent at {self.agent.url} failed: {type(exc).__name__}: {exc}",
                tool_name=name,
            ) from exc
        self.toolset.heard(reply)
        return self._result(reply)

    def _result(self, reply: RemoteReply) -> str:
        base = self._definition.name.removesuffix("_reply")
        if reply.state == "completed":
            return reply.text
        if reply.state in ("input-required", "auth-required"):
            return (
                f"The agent {base} waits for input on task {reply.task_id!r}: {reply.text}\n"
                f"To answer it, call {base}_reply with task_id {reply.task_id!r} and the reply."
            )
        raise ToolExecutionError(
            f"the agent {base}'s task ended {reply.state}: {reply.text or 'no reason given'}",
            tool_name=self._definition.name,
        )

    def __repr__(self) -> str:
        return f"A2AAgentTool({self._definition.name!r}, url={self.agent.url!r})"


class A2AToolset:
    """Remote A2A agents as tools: a ``ToolCallbackProvider`` whose agents' cards are
    read when a request first needs the tools.

    Args:
        agents: the agents (or their URLs).
        on_reply: called with each :class:`~ostinato_a2a.RemoteReply` (the remote turn's
            events and usage).
    """

    def __init__(
        self,
        agents: Iterable[RemoteAgent | str],
        *,
        on_reply: Callable[[RemoteReply], Any] | None = None,
    ) -> None:
        self.agents: tuple[RemoteAgent, ...] = tuple(
            a if isinstance(a, RemoteAgent) else RemoteAgent(a) for a in agents
        )
        self.on_reply = on_reply
        self.replies: list[RemoteReply] = []
        self.descriptions: dict[str, str] = {}
        self._names: dict[str, str] = {}

    def heard(self, reply: RemoteReply) -> None:
        """Keep ``reply`` (the latest 100) and hand it to ``on_reply``."""
        self.replies = [*self.replies[-99:], reply]
        if self.on_reply is not None:
            self.on_reply(reply)

    async def aget_tool_callbacks(self) -> list[A2AAgentTool]:
        """Read every agent's card (once), then :meth:`get_tool_callbacks`."""
        missing = [a for a in self.agents if a.url not in self._names]
        cards = await asyncio.gather(*(a.card() for a in missing))
        for agent, card in zip(missing, cards):
            self._names[agent.url] = tool_name(agent.name or card.name)
            skills = "; ".join(f"{s.name}: {s.description}" for s in card.skills)
            self.descriptions[agent.url] = card.description + (
                f" (skills: {skills})" if skills else ""
            )
        return self.get_tool_callbacks()

    def get_tool_callbacks(self) -> list[A2AAgentTool]:
        """Two tools per agent whose card was read (see the module)."""
        tools = []
        for agent in self.agents:
            name = self._names.get(agent.url) or (tool_name(agent.name) if agent.name else None)
            if name is not None:
                tools.append(A2AAgentTool(self, agent, name, reply=False))
                tools.append(A2AAgentTool(self, agent, name, reply=True))
        return tools

    def __repr__(self) -> str:
        return f"A2AToolset({[a.url for a in self.agents]!r})"
