"""One remote A2A agent, called through the ``a2a-sdk``'s client: :class:`RemoteAgent`.

Its card is read once from ``<url>/.well-known/agent-card.json`` (or the card URL given);
each call sends one message (streamed when the card says the agent streams) and reads
the task to its end or to ``input-required``: a :class:`RemoteReply`. The status
updates of an ostinato agent carry its loop events (``ostinato/event`` metadata): they
are rebuilt as :class:`~ostinato.events.LoopEvent` values, so the caller sees the remote
turn's tool calls and usage.

Called from a tool of a turn (as :class:`~ostinato_a2a.A2AToolset`'s tools are), each
update the remote agent streams is also a progress report of the calling tool call
(:func:`ostinato.tools.areport_progress`), so the calling turn's listeners, its log and
``ostinato serve``'s stream see the remote task as it goes: a status update with its
state, text and the remote loop event it carries, an artifact chunk with its text, and
last the remote turn's usage when the agent told it (see :func:`progress_data`).

Credentials: the token (or headers) configured for this agent are sent only to the
origin (scheme, host, port) of the URL it was configured with; a card pointing its
interface elsewhere gets no credential. HTTP connections are opened per call, on the
caller's event loop.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
from a2a.client import ClientConfig, create_client
from a2a.client.card_resolver import A2ACardResolver
from a2a.helpers import get_data_parts
from a2a.types import AgentCard, Message, Part, Role, SendMessageRequest, TaskState
from google.protobuf.json_format import MessageToDict

from ostinato.errors import EventSchemaError
from ostinato.events import LoopEvent, event_from_dict
from ostinato.model import Usage
from ostinato.tools import areport_progress
from ostinato_a2a._executor import EVENT_METADATA_KEY, USAGE_METADATA_KEY
from ostinato_a2a._json import narrowed

__all__ = ["PROGRESS_SOURCE", "RemoteAgent", "RemoteReply", "delegated_usage", "progress_data"]

#: The ``source`` of the data of a progress report told for a remote agent's update.
PROGRESS_SOURCE: Final = "a2a"

_CARD_PATH: Final = "/.well-known/agent-card.json"


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return (url.scheme, url.host, url.port)


class _OriginAuth(httpx.Auth):
    """Adds the credential headers to requests for one origin only."""

    def __init__(self, origin: httpx.URL, headers: Mapping[str, str]) -> None:
        self._origin = _origin(origin)
        self._headers = dict(headers)

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if _origin(request.url) == self._origin:
            request.headers.update(self._headers)
        yield request


@dataclass(frozen=True, slots=True)
class RemoteReply:
    """What a remote agent answered to one message.

    Attributes:
        state: the task's last state: ``completed``, ``input-required``, ``failed``...
            (the A2A names, lower case with dashes).
        text: the answer (the ``answer`` artifact, else the artifacts' and the status
            message's text).
        task_id: the task (to answer an ``input-required`` one).
        context_id: the task's context.
        data: the data parts of the artifacts and of the status message.
        events: the remote turn's loop events, when the agent is an ostinato one.
        told_usage: the usage the agent told in its completed status, when it did.
    """

    state: str
    text: str
    task_id: str
    context_id: str
    data: tuple[Any, ...] = ()
    events: tuple[LoopEvent, ...] = field(default=(), repr=False)
    told_usage: Usage | None = None

    @property
    def usage(self) -> Usage | None:
        """The remote turn's usage (from its completed status, else its ``loop_ended``
        event), when it told it."""
        if self.told_usage is not None:
            return self.told_usage
        for event in reversed(self.events):
            usage = getattr(event, "usage", None)
            if event.kind == "loop_ended" and isinstance(usage, Usage):
                return usage
        return None


def _state_name(state: int) -> str:
    return TaskState.Name(state).removeprefix("TASK_STATE_").lower().replace("_", "-")


def _texts(parts: Any) -> str:
    return "".join(str(p.text) for p in parts if p.HasField("text"))


class RemoteAgent:
    """A remote A2A agent (see the module).

    Args:
        url: the agent's base URL, or its card's URL (ending ``.json``).
        name: the name its tools get (default: the card's name).
        token: a bearer token for this agent only.
        headers: more headers for this agent only.
        timeout: seconds one call may take.
    """

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 300.0,
    ) -> None:
        self.url = url.rstrip("/")
        self.name = name
        self.timeout = timeout
        sent = dict(headers or {})
        if token:
            sent["Authorization"] = f"Bearer {token}"
        self._auth = _OriginAuth(httpx.URL(self.url), sent)
        self._card: AgentCard | None = None

    def _http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(auth=self._auth, timeout=self.timeout)

    async def card(self) -> AgentCard:
        """The agent's card (read once)."""
        if self._card is None:
            base, path = self.url, _CARD_PATH
            if self.url.endswith(".json"):
                base, _, rest = self.url.rpartition("/")
                path = "/" + rest
                if base.endswith("/.well-known"):
                    base, path = base[: -len("/.well-known")], "/.well-known/" + rest
            async with self._http() as http:
                self._card = await A2ACardResolver(http, base).get_agent_card(path)
        return self._card

    async def send(self, text: str, *, task_id: str = "", context_id: str = "") -> RemoteReply:
        """Send ``text`` (on ``task_id`` to answer a waiting task) and read the task to its
        end or until it waits.

        Raises:
            A2AClientError: the agent could not be reached or refused the call.
        """
        card = await self.card()
        message = Message(
            role=Role.ROLE_USER,
            message_id=uuid.uuid4().hex,
            task_id=task_id,
            context_id=context_id,
            parts=[Part(text=text)],
        )
        async with self._http() as http:
            client = await create_client(card, ClientConfig(httpx_client=http, streaming=True))
            collected = _Collected(self.name or card.name)
            async for response in client.send_message(SendMessageRequest(message=message)):
                for text, data in collected.add(response):
                    await areport_progress(text, data=data)  # nothing outside a tool call
        reply = collected.reply()
        if reply.usage is not None:
            await areport_progress(
                f"{collected.agent} used {reply.usage.total_tokens} tokens",
                data=collected.told(usage=reply.usage.to_dict()),
            )
        return reply


def progress_data(agent: str, task_id: str, state: str, **more: Any) -> dict[str, Any]:
    """The ``data`` of a progress report told for a remote agent's update: ``source``
    (:data:`PROGRESS_SOURCE`), ``agent`` (its name), ``task_id``, ``state`` (the task's,
    as in :attr:`RemoteReply.state`), and what the update carried: ``event`` (the remote
    loop event's JSON form), ``artifact`` (an artifact's name, its text in the report's
    text), ``usage`` (the remote turn's usage, the last report of a call)."""
    return {"source": PROGRESS_SOURCE, "agent": agent, "task_id": task_id, "state": state} | more


def delegated_usage(events: Any) -> Usage | None:
    """The usage remote agents told in a turn's events, summed (``None``: none told).

    The calling turn's own usage (``LoopEnded.usage``) counts its own model rounds only:
    a remote agent's tokens are its own, and are counted here."""
    total: Usage | None = None
    for event in events:
        data = getattr(event, "data", None)
        if event.kind != "tool_progress" or not data or data.get("source") != PROGRESS_SOURCE:
            continue
        told = data.get("usage")
        if told is not None:
            usage = Usage(**narrowed(told))
            total = usage if total is None else total + usage
    return total


class _Collected:
    """The stream responses of one call, folded into a :class:`RemoteReply`; each one's
    progress reports (text, data)."""

    def __init__(self, agent: str) -> None:
        self.agent = agent
        self.usage: Usage | None = None
        self.state = TaskState.TASK_STATE_SUBMITTED
        self.task_id = ""
        self.context_id = ""
        self.artifacts: dict[str, Any] = {}
        self.status_text = ""
        self.data: list[Any] = []
        self.events: list[LoopEvent] = []

    def told(self, **more: Any) -> dict[str, Any]:
        """The data of a progress report of this call's task (see :func:`progress_data`)."""
        return progress_data(self.agent, self.task_id, _state_name(self.state), **more)

    def add(self, response: Any) -> list[tuple[str, dict[str, Any]]]:
        if response.HasField("message"):
            self.state = TaskState.TASK_STATE_COMPLETED
            self.status_text = _texts(response.message.parts)
            self.data.extend(get_data_parts(response.message.parts))
            return [(self.status_text, self.told())]
        if response.HasField("task"):
            task = response.task
            self.task_id, self.context_id = task.id, task.context_id
            self.state = task.status.state
            for artifact in task.artifacts:
                self.artifacts[artifact.artifact_id] = artifact
            self._status(task.status)
            return [(_texts(task.status.message.parts), self.told())]
        if response.HasField("artifact_update"):
            update = response.artifact_update
            artifact = update.artifact
            known = self.artifacts.get(artifact.artifact_id)
            if update.append and known is not None:
                known.parts.extend(artifact.parts)
            else:
                self.artifacts[artifact.artifact_id] = artifact
            return [(_texts(artifact.parts), self.told(artifact=artifact.name))]
        if response.HasField("status_update"):
            update = response.status_update
            self.task_id, self.context_id = update.task_id, update.context_id
            self.state = update.status.state
            self._status(update.status)
            metadata = MessageToDict(update.metadata)
            text = _texts(update.status.message.parts) if update.status.HasField("message") else ""
            told = self.told()
            if USAGE_METADATA_KEY in metadata:
                with contextlib.suppress(TypeError, ValueError):
                    self.usage = Usage(**narrowed(metadata[USAGE_METADATA_KEY]))
            if EVENT_METADATA_KEY in metadata:
                event = narrowed(metadata[EVENT_METADATA_KEY])
                told["event"] = event
                if not text and isinstance(event, dict):
                    named = event.get("call", {}).get("name") if "call" in event else None
                    text = f"{self.agent}: {event.get('kind')}" + (f" {named}" if named else "")
                # Another version's event is left out: the reply does without it.
                with contextlib.suppress(EventSchemaError):
                    self.events.append(event_from_dict(event))
            return [(text, told)]
        return []

    def _status(self, status: Any) -> None:
        if status.HasField("message"):
            self.status_text = _texts(status.message.parts)
            self.data.extend(get_data_parts(status.message.parts))

    def reply(self) -> RemoteReply:
        artifacts = list(self.artifacts.values())
        answer = [a for a in artifacts if a.name == "answer"] or artifacts
        text = "\n".join(_texts(a.parts) for a in answer)
        if not text or self.state != TaskState.TASK_STATE_COMPLETED:
            text = self.status_text or text
        data = [*(d for a in answer for d in get_data_parts(a.parts)), *self.data]
        return RemoteReply(
            _state_name(self.state),
            text,
            self.task_id,
            self.context_id,
            tuple(narrowed(d) for d in data),
            tuple(self.events),
            self.usage,
        )
