"""One ``ostinato chat`` session: the auto-configured client, the tools, the conversation.

:func:`open_session` builds the client through auto-configuration exactly as
``ostinato.chat_client()`` would, from the plugin settings as every command uses them
(:mod:`ostinato.cli._command_settings`: memory in SQLite unless set otherwise), with two
things the command line adds: ``--model`` and ``--conversation``. They are applied to the
loaded settings handed to the container — core's ``model``; the memory plugin's
``enabled`` — so the process environment is never changed.

:meth:`ChatSession.ask` runs one turn on the caller's event loop, reporting to a
renderer. Without a memory advisor the session keeps the conversation itself (user
questions and final answers), so an interactive session remembers earlier turns; with
one, memory does, under the conversation id.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ostinato.advisors import ChatClientMessageAggregator, MemoryAdvisor
from ostinato.cli._model_choice import ModelChoice
from ostinato.cli._observer import ToolCallListener
from ostinato.client import AdvisorParams, ChatClient
from ostinato.errors import ConfigurationError
from ostinato.events import LoopExitReason
from ostinato.messages import AssistantMessage, Message, ToolCall, UserMessage
from ostinato.model import ChatModel, ChatResponse
from ostinato.plugins import PluginManager, Registry
from ostinato.prompt import ChatOptions
from ostinato.tools import ToolCallback

if TYPE_CHECKING:
    from ostinato.cli._terminal import TerminalRenderer
    from ostinato.settings import Settings

__all__ = [
    "MCP_TOOL_SET",
    "MEMORY_ADVISOR",
    "RETRIEVAL_ADVISOR",
    "ChatSession",
    "TurnResult",
    "open_session",
]

#: The advisor the memory plugin registers (``ostinato-memory``).
MEMORY_ADVISOR: Final = "memory"
_MEMORY_PREFIX: Final = "OSTINATO_MEMORY_"
#: The tool set the MCP plugin registers (``ostinato-mcp``), which ``--mcp`` enables.
MCP_TOOL_SET: Final = "mcp"
_MCP_PREFIX: Final = "OSTINATO_MCP_"
#: The advisor ``--rag`` turns on (the retrieval plugin's), and its settings' prefix.
RETRIEVAL_ADVISOR: Final = "retrieval"
_RETRIEVAL_PREFIX: Final = "OSTINATO_RETRIEVAL_"


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one turn produced: the final response, its model rounds, its duration, and
    why its tool loop ended (``None`` when no tool loop ran; ``limit`` names a usage limit
    it reached), and the calls the model asked for that the loop did not run."""

    response: ChatResponse | None
    rounds: int
    seconds: float
    ended: LoopExitReason | None = None
    not_run: tuple[ToolCall, ...] = ()
    limit: str | None = None


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
        approve: ask on the terminal before each tool call runs (``--approve``).
        options: model options of every turn (``-o key=value``).
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
        approve: bool = False,
        options: ChatOptions | None = None,
    ) -> None:
        self.client = client
        self.model = model
        self.choice = choice
        self.tools = list(tools)
        self.system = system
        self.conversation_id = conversation_id
        self.remember = remember
        self.stream = stream
        self.approve = approve
        self.options = options
        self.history: list[Message] = []

    async def ask(self, question: str, renderer: TerminalRenderer) -> TurnResult:
        """Run one turn, showing it on ``renderer``; the conversation grows only when the
        turn succeeds (a cancelled or failed turn leaves it as it was)."""
        listener = ToolCallListener(renderer)
        spec = self.client.prompt()
        if self.system is not None:
            spec.system(self.system)
        if self.remember:
            spec.messages(list(self.history))
        spec.user(question).tools(*self.tools).listener(listener)
        if self.options is not None:
            spec.options(self.options)
        if self.conversation_id is not None:
            spec.advisors(AdvisorParams.conversation_id(self.conversation_id))
        if self.approve:
            from ostinato.cli._approval_prompt import TerminalApprover, approve_every_call

            spec.approval_policy(approve_every_call)
            spec.approver(TerminalApprover(renderer, sys.stdin, sys.stderr))
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
        except BaseException:
            listener.cancel_running()  # tools the turn left running never finish
            raise
        finally:
            renderer.stop()
        if self.remember:
            answer = response.text if response is not None else None
            self.history += [UserMessage(question), AssistantMessage(answer or "")]
        seconds = time.perf_counter() - started
        not_run = tuple(listener.not_run.values())
        return TurnResult(
            response, listener.rounds, seconds, listener.ended, not_run, listener.limit
        )

    async def aclose(self) -> None:
        """Close the model (its HTTP clients, a local server it started)."""
        aclose: Any = getattr(self.model, "aclose", None)
        if callable(aclose):
            await aclose()


def _with_memory(registry: Registry, loaded: dict[str, Any]) -> dict[str, Any]:
    """``loaded`` plugin settings with the memory plugin's turned on for ``--conversation``."""
    if MEMORY_ADVISOR not in registry.advisors:
        raise ConfigurationError(
            "--conversation needs conversation memory, and no plugin registers it\n"
            "fix: pip install ostinato-memory (or leave out --conversation)"
        )
    memory = loaded.get(_MEMORY_PREFIX)
    if memory is None:
        return loaded
    return {**loaded, _MEMORY_PREFIX: memory.model_copy(update={"enabled": True})}


def _with_rag(registry: Registry, loaded: dict[str, Any]) -> dict[str, Any]:
    """``loaded`` plugin settings with retrieval turned on for ``--rag``: the advisor
    ``OSTINATO_RETRIEVAL_ADVISOR`` names, else the question-answer advisor, on the store
    ``ostinato index`` fills (``OSTINATO_RETRIEVAL_STORE``/``PATH``/``EMBEDDING``)."""
    if RETRIEVAL_ADVISOR not in registry.advisors:
        raise ConfigurationError(
            "--rag needs retrieval, and no plugin registers it\n"
            "fix: pip install ostinato-retrieval, then index your files with "
            "ostinato index PATH... (or leave out --rag)"
        )
    retrieval = loaded.get(_RETRIEVAL_PREFIX)
    if retrieval is None:
        return loaded
    path = Path(getattr(retrieval, "path", ""))
    if getattr(retrieval, "store", None) == "sqlite" and not path.is_file():
        raise ConfigurationError(
            f"--rag searches the index {str(path)!r}, which does not exist\n"
            "fix: build it first with ostinato index PATH... (the same "
            "OSTINATO_RETRIEVAL_PATH and OSTINATO_RETRIEVAL_EMBEDDING), or set "
            "OSTINATO_RETRIEVAL_PATH to the index you built"
        )
    if getattr(retrieval, "advisor", None) == "none":
        retrieval = retrieval.model_copy(update={"advisor": "question-answer"})
    return {**loaded, _RETRIEVAL_PREFIX: retrieval}


def _with_mcp(
    registry: Registry, settings: Settings, loaded: dict[str, Any], path: str
) -> tuple[Settings, dict[str, Any]]:
    """``settings`` with the tool set ``mcp`` enabled, and ``loaded`` with the MCP plugin's
    configuration file set to ``path`` (``--mcp``)."""
    if MCP_TOOL_SET not in registry.tools:
        raise ConfigurationError(
            "--mcp needs the MCP plugin, and no plugin registers the tool set 'mcp'\n"
            "fix: pip install ostinato-mcp (or leave out --mcp)"
        )
    mcp = loaded.get(_MCP_PREFIX)
    if mcp is not None:
        loaded = {**loaded, _MCP_PREFIX: mcp.model_copy(update={"config": Path(path)})}
    enabled = [
        *settings.tools.enabled,
        *([] if MCP_TOOL_SET in settings.tools.enabled else [MCP_TOOL_SET]),
    ]
    tools = settings.tools.model_copy(update={"enabled": enabled})
    return settings.model_copy(update={"tools": tools}), loaded


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
    approve: bool = False,
    mcp_config: str | None = None,
    rag: bool = False,
) -> ChatSession:
    """Build the client for ``choice`` through auto-configuration (see the module).

    Raises:
        ConfigurationError: a setting is wrong, the model cannot be built,
            ``conversation_id`` is given and no memory plugin is installed,
            ``mcp_config`` is given and no MCP plugin is installed, or ``rag`` is set and
            no retrieval plugin is installed or its index does not exist.
        PluginError: a plugin is broken.
    """
    from ostinato.cli._command_settings import command_plugin_settings
    from ostinato.config import Settings, build_container, load_settings

    settings = load_settings(Settings).model_copy(update={"model": choice.model})
    loaded: dict[str, Any] = command_plugin_settings(registry)  # checked where used
    if conversation_id is not None:
        loaded = _with_memory(registry, loaded)
    if mcp_config is not None:
        settings, loaded = _with_mcp(registry, settings, loaded, mcp_config)
    if rag:
        loaded = _with_rag(registry, loaded)
    container = build_container(plugin_manager=manager, settings=settings, plugin_settings=loaded)
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
        approve=approve,
    )
