"""Rebuilding a unit elsewhere: from its description, on another process's client.

A unit describes its input as JSON (:meth:`~ostinato.units.Unit.describe`). An engine
that runs a unit away from its turn (an activity on another worker) ships the unit's
kind, name and description; the worker rebuilds the unit on its own auto-configured
client with :func:`rebuild_unit` and runs it (``await client.units.run(unit)``, or
``unit.run()`` for the unit alone), then ships back ``unit.encode(result)``:

* a model round (``model_call``, ``model_stream``): the messages, the plain options
  (laid over the client's default options) and the tool definitions, sent to the
  client's model; the tools are offered by definition only (a model round never runs
  them: the tool loop does);
* a tool call (``tool_call``): the call (its tool name, id and arguments), run by the
  client's tool of that name (its default tools, tool sets and providers resolved), with
  the client's default tool context;
* a memory read or write (``memory_read``, ``memory_write``): the conversation id (and
  the messages written), on the chat memory of the client's memory advisor;
* a retrieval (``retrieval``): the search request, on the vector store of that name of
  the client's retrieval advisor (see ``ostinato.durable._rebuild_retrieval``).

This module sits next to configuration: it needs a client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from ostinato._tool_contract import ToolContext, ToolDefinition, ToolMetadata
from ostinato.errors import ConfigurationError, ToolResolutionError, UnitRebuildError

if TYPE_CHECKING:
    from ostinato.advisors import ChatClientRequest
    from ostinato.client import ChatClient
    from ostinato.memory import ChatMemory
    from ostinato.messages import Message
    from ostinato.tools import ToolCallback
    from ostinato.units import Unit, UnitKind

__all__ = ["arebuild_unit", "rebuild_unit"]

#: The option fields a model round's description may carry, and their JSON types.
_OPTIONS: Final[Mapping[str, tuple[type, ...]]] = {
    "model": (str,),
    "temperature": (int, float),
    "max_tokens": (int,),
    "top_p": (int, float),
    "top_k": (int,),
    "stop_sequences": (list,),
    "frequency_penalty": (int, float),
    "presence_penalty": (int, float),
}
_KEYS: Final[Mapping[str, tuple[str, ...]]] = {
    "model_call": ("messages", "options", "tools"),
    "model_stream": ("messages", "options", "tools"),
    "tool_call": ("call",),
    "memory_read": ("conversation_id",),
    "memory_write": ("conversation_id", "messages"),
    "retrieval": ("store", "query", "top_k", "similarity_threshold", "filter"),
}


@dataclass(frozen=True, slots=True)
class _OfferedTool:
    """A tool offered to a model by its definition alone: a rebuilt model round tells the
    model about its tools, and never runs them (the tool loop does, as tool calls)."""

    tool_definition: ToolDefinition
    tool_metadata: ToolMetadata = field(default_factory=ToolMetadata)

    @classmethod
    def of(cls, data: Any) -> _OfferedTool:
        """The tool a description's ``{"name", "description", "input_schema"}`` defines."""
        return cls(ToolDefinition(data["name"], data["description"], data["input_schema"]))

    async def call(self, arguments: str, context: Any = None) -> str:
        """Refused: the tool is offered, not present (see the class)."""
        from ostinato.errors import ToolExecutionError

        name = self.tool_definition.name
        raise ToolExecutionError(
            f"the tool {name!r} of a rebuilt model round is its definition alone; "
            "it cannot run here\nfix: run the tool call as a tool_call unit",
            tool_name=name,
        )


def rebuild_unit(
    kind: UnitKind | str,
    name: str,
    description: Mapping[str, Any],
    client: ChatClient,
    *,
    sequence: int | None = None,
) -> Unit[Any]:
    """The unit ``description`` describes, rebuilt on ``client`` (see the module's
    docstring); run it with ``await client.units.run(unit)``.

    Args:
        kind: the unit's kind (a :class:`~ostinato.units.UnitKind` or its value).
        name: the unit's name, as it was recorded (the model, the tool or the
            conversation); a tool call's must be its call's tool name.
        description: what :meth:`~ostinato.units.Unit.describe` returned (read back from
            JSON).
        client: the client it runs on (a worker's auto-configured client).
        sequence: the unit's number in its turn, when known: the rebuilt unit takes it
            (so a tool reads the same :func:`~ostinato.units.idempotency_key` as it would
            in its turn, under ``durable_turn(turn_id)``); otherwise it draws one.

    Raises:
        UnitRebuildError: the kind is unknown or the description is malformed (the
            message says which field, what it held and what was expected).
        ToolResolutionError: the call names a tool the client does not have (the
            message lists the tools it has).
        ConfigurationError: a memory unit on a client without chat memory, a retrieval
            on a client without a vector store of its name.
    """
    return _rebuild(kind, name, description, client, client.prompt().build_request(), sequence)


async def arebuild_unit(
    kind: UnitKind | str,
    name: str,
    description: Mapping[str, Any],
    client: ChatClient,
    *,
    sequence: int | None = None,
) -> Unit[Any]:
    """:func:`rebuild_unit`, after the client's tool providers that fetch their tools
    (MCP servers) fetched them: a tool call can name one of their tools."""
    request = await client.prompt().abuild_request()
    return _rebuild(kind, name, description, client, request, sequence)


def _rebuild(
    kind: UnitKind | str,
    name: str,
    description: Mapping[str, Any],
    client: ChatClient,
    request: ChatClientRequest,
    sequence: int | None,
) -> Unit[Any]:
    from ostinato.units import UnitKind

    value = kind.value if isinstance(kind, UnitKind) else kind
    if value not in _KEYS:
        raise UnitRebuildError(
            f"cannot rebuild a unit of kind {value!r}\n"
            f"  expected one of: {', '.join(_KEYS)}\n"
            "fix: pass the kind the unit was recorded with (unit.kind)"
        )
    _check_keys(value, description)
    unit: Unit[Any]
    if value in ("model_call", "model_stream"):
        unit = _model_round(value, description, client, request)
    elif value == "tool_call":
        unit = _tool_call(name, description, request)
    elif value == "retrieval":
        from ostinato.durable._rebuild_retrieval import retrieval_unit

        unit = retrieval_unit(name, description, client)
    else:
        unit = _memory_unit(value, name, description, client)
    if sequence is not None:
        unit.sequence = sequence
    return unit


def _brief(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _malformed(kind: str, field: str, found: object, expected: str) -> UnitRebuildError:
    return UnitRebuildError(
        f"the {kind} unit's description holds {field} = {_brief(found)}\n"
        f"  expected: {expected}\n"
        "fix: pass what unit.describe() returned for the unit (read back from JSON)"
    )


def _check_keys(kind: str, description: object) -> None:
    keys = _KEYS[kind]
    if not isinstance(description, Mapping):
        raise UnitRebuildError(
            f"the {kind} unit's description is {_brief(description)}\n"
            f"  expected: a JSON object with {', '.join(keys)}\n"
            "fix: pass what unit.describe() returned for the unit (read back from JSON)"
        )
    missing = [k for k in keys if k not in description]
    if missing:
        raise UnitRebuildError(
            f"the {kind} unit's description lacks {', '.join(missing)} "
            f"(it has: {', '.join(map(str, description)) or 'nothing'})\n"
            f"  expected: a JSON object with {', '.join(keys)}\n"
            "fix: pass what unit.describe() returned for the unit (read back from JSON)"
        )


def _messages(kind: str, data: object) -> list[Message]:
    from ostinato.messages import message_from_dict

    if not isinstance(data, list):
        raise _malformed(kind, "messages", data, "a list of messages (Message.to_dict())")
    try:
        return [message_from_dict(m) for m in data]
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise _malformed(
            kind, "messages", data, f"messages as Message.to_dict() writes them ({error})"
        ) from error


def _plain_options(kind: str, data: object) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise _malformed(kind, "options", data, "a JSON object of plain chat options")
    plain: dict[str, Any] = {}
    for key, value in data.items():
        types = _OPTIONS.get(key)
        if types is None:
            raise _malformed(
                kind, f"options.{key}", value, f"only the options {', '.join(_OPTIONS)}"
            )
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, types):
            expected = " or ".join(t.__name__ for t in types)
            raise _malformed(kind, f"options.{key}", value, expected)
        if isinstance(value, list):  # the stop sequences
            if not all(isinstance(s, str) for s in value):
                raise _malformed(kind, "options.stop_sequences", value, "a list of strings")
            value = tuple(value)
        plain[key] = value
    return plain


def _offered_tools(kind: str, data: object) -> list[ToolCallback]:
    if not isinstance(data, list):
        raise _malformed(kind, "tools", data, "a list of tool definitions")
    offered: list[ToolCallback] = []
    for index, item in enumerate(data):
        try:
            offered.append(_OfferedTool.of(item))
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise _malformed(
                kind,
                f"tools[{index}]",
                item,
                f'{{"name", "description", "input_schema"}}, each a non-blank string ({error})',
            ) from error
    return offered


def _model_round(
    kind: str, description: Mapping[str, Any], client: ChatClient, request: ChatClientRequest
) -> Unit[Any]:
    from ostinato.prompt import Prompt, ToolCallingChatOptions
    from ostinato.units import ModelCall, ModelStream

    messages = _messages(kind, description["messages"])
    plain = _plain_options(kind, description["options"])
    offered = _offered_tools(kind, description["tools"])
    base = request.prompt.options or client.model_default_options
    options = base.copy(**plain)
    if offered or isinstance(options, ToolCallingChatOptions):
        options = ToolCallingChatOptions.from_options(options).with_tool_callbacks(offered)
    prompt = Prompt(messages, options)
    if kind == "model_call":
        return ModelCall(prompt, client.model)
    return ModelStream(prompt, client.model)


def _tool_call(name: str, description: Mapping[str, Any], request: ChatClientRequest) -> Unit[Any]:
    from ostinato.messages import ToolCall
    from ostinato.prompt import ToolCallingChatOptions
    from ostinato.units import ToolInvocation

    data = description["call"]
    try:
        if not isinstance(data, Mapping):
            raise TypeError("not a JSON object")
        call = ToolCall.from_dict(data)
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise _malformed(
            "tool_call", "call", data, f"a tool call as ToolCall.to_dict() writes it ({error})"
        ) from error
    if name != call.name:
        raise _malformed(
            "tool_call", "call.name", call.name, f"the unit's name, {name!r} (the tool's name)"
        )
    options = request.prompt.options
    tools: tuple[ToolCallback, ...] = ()
    context = ToolContext()
    if isinstance(options, ToolCallingChatOptions):
        tools = options.tool_callbacks
        context = ToolContext(options.tool_context)
    callback = next((t for t in tools if t.tool_definition.name == call.name), None)
    if callback is None:
        have = ", ".join(t.tool_definition.name for t in tools) or "none"
        raise ToolResolutionError(
            f"the tool_call unit calls the tool {call.name!r}, which this client does not have\n"
            f"  its tools: {have}\n"
            "fix: give the client that tool (OSTINATO_TOOLS__ENABLED naming the tool set "
            "holding it, or default_tools(...) on its builder)",
            source=call.name,
        )
    metadata = callback.tool_metadata
    arguments = call.arguments if call.arguments and call.arguments.strip() else "{}"
    return ToolInvocation(
        call,
        callback,
        arguments,
        context,
        metadata.timeout,
        metadata.return_direct,
        metadata.sequential,
    )


def _memory_unit(
    kind: str, name: str, description: Mapping[str, Any], client: ChatClient
) -> Unit[Any]:
    from ostinato.units import MemoryRead, MemoryWrite

    conversation_id = description["conversation_id"]
    if not isinstance(conversation_id, str) or not conversation_id.strip():
        raise _malformed(kind, "conversation_id", conversation_id, "a non-blank string")
    if name != conversation_id:
        raise _malformed(kind, "conversation_id", conversation_id, f"the unit's name, {name!r}")
    if kind == "memory_write":
        messages = _messages(kind, description["messages"])
        return MemoryWrite(_chat_memory(client, kind), conversation_id, messages)
    return MemoryRead(_chat_memory(client, kind), conversation_id)


def _chat_memory(client: ChatClient, kind: str) -> ChatMemory:
    from ostinato.advisors import MemoryAdvisor

    advisors = client.prompt().effective_advisors()
    for advisor in advisors:
        memory = getattr(advisor, "chat_memory", None)
        if isinstance(advisor, MemoryAdvisor) and memory is not None:
            found: ChatMemory = memory
            return found
    names = ", ".join(type(a).__name__ for a in advisors) or "none"
    raise ConfigurationError(
        f"the {kind} unit needs the client's chat memory, and the client has none\n"
        f"  its advisors: {names}\n"
        "  expected: a memory advisor with a chat_memory (the memory plugin's)\n"
        "fix: turn chat memory on for the client (OSTINATO_MEMORY_ENABLED=true with the "
        "memory plugin installed), with the repository the unit's turn used"
    )
