"""One ``ostinato chat`` session: the auto-configured client, the tools, the conversation.

:func:`open_session` builds the client through auto-configuration exactly as
``ostinato.chat_client()`` would, with two things the command line adds: ``--model``
and ``--conversation``. Plugins read their settings from the environment, so while the
client is built these are passed as the variables the plugins read (``OSTINATO_MODEL``;
``OSTINATO_MEMORY_ENABLED`` and ``OSTINATO_MEMORY_REPOSITORY=sqlite``), then the
environment is restored.

:meth:`ChatSession.ask` runs one turn on the caller's event loop, reporting to a
renderer. Without a memory advisor the session keeps the conversation itself (user
questions and final answers), so an interactive session remembers earlier turns; with
one, memory does, under the conversation id.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ostinato.advisors import ChatClientMessageAggregator, MemoryAdvisor
from ostinato.cli._model_choice import ModelChoice
from ostinato.cli._observer import ToolCallObserver
from ostinato.client import AdvisorParams, ChatClient
from ostinato.errors import ConfigurationError
from ostinato.messages import AssistantMessage, Message, UserMessage
from ostinato.model import ChatModel, ChatResponse
from ostinato.plugins import PluginManager, Registry
from ostinato.tools import ToolCallback

if TYPE_CHECKING:
    from ostinato.cli._terminal import TerminalRenderer

__all__ = ["MEMORY_ADVISOR", "ChatSession", "TurnResult", "open_session", "scoped_environment"]

#: The advisor the memory plugin registers (``ostinato-memory``).
MEMORY_ADVISOR: Final = "memory"
_MEMORY_PREFIX: Final = "OSTINATO_MEMORY_"


@contextlib.contextmanager
def scoped_environment(values: Mapping[str, str]) -> Iterator[None]:
    """Set environment variables for the ``with`` block, then restore them."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one turn produced: the final response, its model rounds and its duration."""

    response: ChatResponse | None
    rounds: int
    seconds: float


class ChatSession:
    """A client and what every turn of the session adds to its requests.

    Args:
        client: the client.
        model: its chat model (closed by :meth:`aclose`).
        choice: which model it is, and why.
        tools: tools of every turn (from ``--tools``).
        system: the system text of every turn (``--system``).
        conversation_id: the memory conversation (with a memory advisor).
        remember: keep the conversation in the session (when no memory advisor does).
        stream: stream the answer (``--no-stream``: one blocking call).
    """

    def __init__(
        self,
        client: ChatClient,
        model: ChatModel,
        choice: ModelChoice,
        *,
        tools: Sequence[ToolCallback] = (),
        system: str | None = None,
        conversation_id: str | None = None,
        remember: bool = True,
        stream: bool = True,
    ) -> None:
        self.client = client
        self.model = model
        self.choice = choice
        self.tools = list(tools)
        self.system = system
        self.conversation_id = conversation_id
        self.remember = remember
        self.stream = stream
        self.history: list[Message] = []

    async def ask(self, question: str, renderer: TerminalRenderer) -> TurnResult:
        """Run one turn, showing it on ``renderer``; the conversation grows only when the
        turn succeeds (a cancelled or failed turn leaves it as it was)."""
        observer = ToolCallObserver(renderer)
        spec = self.client.prompt()
        if self.system is not None:
            spec.system(self.system)
        if self.remember:
            spec.messages(list(self.history))
        spec.user(question).tools(*self.tools).advisors(observer)
        if self.conversation_id is not None:
            spec.advisors(AdvisorParams.conversation_id(self.conversation_id))
        started = time.perf_counter()
        try:
            if self.stream:
                aggregator = ChatClientMessageAggregator()
                async for chunk in spec.stream().achat_client_responses():
                    aggregator.add(chunk)
                    if chunk.chat_response is not None and chunk.chat_response.text:
                        renderer.answer(chunk.chat_response.text)
                final = aggregator.result()
                response = final.chat_response if final is not None else None
            else:
                response = await spec.call().achat_response()
                if response is not None and response.text:
                    renderer.answer(response.text)
        finally:
            renderer.stop()
        if self.remember:
            answer = response.text if response is not None else None
            self.history += [UserMessage(question), AssistantMessage(answer or "")]
        return TurnResult(response, observer.rounds, time.perf_counter() - started)

    async def aclose(self) -> None:
        """Close the model (its HTTP clients, a local server it started)."""
        aclose: Any = getattr(self.model, "aclose", None)
        if callable(aclose):
            await aclose()


def _memory_environment(registry: Registry) -> dict[str, str]:
    if MEMORY_ADVISOR not in registry.advisors:
        raise ConfigurationError(
            "--conversation needs conversation memory, and no plugin registers it\n"
            "fix: pip install ostinato-memory (or leave out --conversation)"
        )
    from ostinato.config import load_plugin_settings

    settings = load_plugin_settings(registry).get(_MEMORY_PREFIX)
    repository = str(getattr(settings, "repository", "") or "")
    env = {f"{_MEMORY_PREFIX}ENABLED": "true"}
    if repository in ("", "in-memory"):  # one process only: a second invocation forgets
        env[f"{_MEMORY_PREFIX}REPOSITORY"] = "sqlite"
    return env


def _default_conversation(advisors: Sequence[Any]) -> str | None:
    for advisor in advisors:
        if isinstance(advisor, MemoryAdvisor):
            value = getattr(advisor, "default_conversation_id", None)
            return value if isinstance(value, str) and value else None
    return None


def open_session(
    choice: ModelChoice,
    manager: PluginManager,
    registry: Registry,
    *,
    tools: Sequence[ToolCallback] = (),
    system: str | None = None,
    conversation_id: str | None = None,
    stream: bool = True,
) -> ChatSession:
    """Build the client for ``choice`` through auto-configuration (see the module).

    Raises:
        ConfigurationError: a setting is wrong, the model cannot be built, or
            ``conversation_id`` is given and no memory plugin is installed.
        PluginError: a plugin is broken.
    """
    from ostinato.config import build_container

    env = {"OSTINATO_MODEL": choice.model}
    if conversation_id is not None:
        env.update(_memory_environment(registry))
    with scoped_environment(env):
        container = build_container(plugin_manager=manager)
        client: ChatClient = container.chat_client()
        model: ChatModel = container.chat_model()
        advisors: list[Any] = container.advisors()
    has_memory = any(isinstance(a, MemoryAdvisor) for a in advisors)
    if conversation_id is None and has_memory:
        # Memory is on (OSTINATO_MEMORY_ENABLED): its default conversation, or this session's.
        conversation_id = _default_conversation(advisors) or f"chat-{uuid.uuid4().hex[:12]}"
    return ChatSession(
        client,
        model,
        choice,
        tools=tools,
        system=system,
        conversation_id=conversation_id,
        remember=not has_memory,
        stream=stream,
    )
